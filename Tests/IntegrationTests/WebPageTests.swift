import Inputs
import Foundation
import JackPeers
import TestSupport
import XCTest

/// `pulsejack run --web` on the private jackd, looked at and played by Debian's headless
/// chromium (through chromedriver), heard by a JACK client. Screenshots go to
/// `.build/screenshots/` for a person to look at.
final class WebPageTests: XCTestCase {
    private var run: LiveWebRun?

    override func tearDown() { run?.stop() }

    static var screenshots: URL { Subprocess.repository.appendingPathComponent(".build/screenshots") }

    private static let preset = """
        name: web test
        bpm: 120
        voices:
          - {name: pulse, kind: click}
          - name: pad
            kind: click
            on_beat: false
            gain: 0.5
            inserts: [{plugin: "http://lv2plug.in/plugins/eg-amp", controls: {gain: -6}}]
          - {name: snap, kind: click, on_beat: false, pan: 0.5}
        regions: {right-down: pad, left-down: pad, left-left: snap, right-right: snap, left-up: snap, right-up: mode}
        skip_region: left-up
        """

    func testTheBrowserShowsTheEngineAndItsSwitchSilencesTheVoiceForAJackClient() throws {
        guard let server = TestServer.name else { throw XCTSkip(TestServer.missing) }
        guard WebDriver.available else {
            return XCTFail("chromium and chromium-driver are not installed (make deps installs them)")
        }
        TestServer.use(server)
        let run = try LiveWebRun(preset: Self.preset, web: "0", server: server)
        self.run = run
        let (url, osc, client) = (run.url, run.osc, run.client)
        XCTAssertTrue(try Subprocess.waitForPorts(of: client, server: server))
        let ear = try CaptureClient(name: "pj-web-ear-\(getpid())", threshold: 0.1)
        defer { ear.close() }
        try ear.connect(from: "\(client):out_L")

        let browser = try WebDriver()
        defer { browser.quit() }
        try browser.open(url)
        XCTAssertTrue(try browser.wait(until: "return window.pulsejack && window.pulsejack.connected && window.pulsejack.layout !== null"))
        // The BPM the engine has (its own status over OSC), on the page.
        XCTAssertTrue(try browser.wait(until: "return document.getElementById('bpm').textContent === '120.0'"))
        XCTAssertEqual(try run.status()["bpm"], 120)
        // The server named as libjack names it, with the rate and period the status reports.
        let serverLine = try XCTUnwrap(browser.execute("return document.getElementById('server').textContent") as? String)
        let period = try XCTUnwrap(try run.status()["period"])
        XCTAssertEqual(serverLine, "\(try TestServer.product()) · 48000 Hz · \(Int(period)) frames")
        let first = try browser.window
        let second = try browser.newWindow()
        try browser.open(url)
        XCTAssertTrue(try browser.wait(until: "return window.pulsejack && window.pulsejack.connected && window.pulsejack.layout !== null"))
        try browser.switchTo(first)

        try checkTheRadialTraceMoves(browser)
        try checkTheSwitch(browser, pages: (first, second), ear: ear)
        try checkTheTempoRegionsAndMood(browser, osc: osc)
        try checkTheInsertControls(browser, pages: (first, second), run: run)
    }

    /// The radial trace: drawn, and moving between two screenshots.
    private func checkTheRadialTraceMoves(_ browser: WebDriver) throws {
        XCTAssertTrue(try browser.wait(until: "return window.pulsejack.meterFrames > 90"))
        let inked = """
            const canvas = document.getElementById('radial'), data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
            let coloured = 0; for (let i = 0; i < data.length; i += 4) if (Math.max(data[i], data[i + 1], data[i + 2]) > 150) coloured += 1;
            return coloured;
            """
        let before = try XCTUnwrap(browser.execute(inked) as? Int)
        let canvasBefore = try XCTUnwrap(browser.execute("return document.getElementById('radial').toDataURL()") as? String)
        let shotBefore = try browser.screenshot()
        usleep(700_000)
        let canvasAfter = try XCTUnwrap(browser.execute("return document.getElementById('radial').toDataURL()") as? String)
        let shotAfter = try browser.screenshot()
        XCTAssertGreaterThan(before, 50, "the traces are drawn (grid and hand are darker)")
        XCTAssertNotEqual(canvasBefore, canvasAfter, "the trace moved")
        XCTAssertNotEqual(shotBefore, shotAfter)
        try FileManager.default.createDirectory(at: Self.screenshots, withIntermediateDirectories: true)
        try shotBefore.write(to: Self.screenshots.appendingPathComponent("web-page-1.png"))
        try shotAfter.write(to: Self.screenshots.appendingPathComponent("web-page-2.png"))
    }

    /// Off in the page: silent for the JACK ear; the second page sees it; on again: heard again.
    private func checkTheSwitch(_ browser: WebDriver, pages: (first: String, second: String), ear: CaptureClient) throws {
        let (first, second) = pages
        let pulseBeats = { (from: Int64, to: Int64) in ear.onsetJackFrames.filter { $0 >= from && $0 < to }.count }
        try browser.execute("document.querySelector('.voice[data-voice=\"pulse\"] input.enable').click()")
        try browser.switchTo(second)
        XCTAssertTrue(try browser.wait(until: "return document.querySelector('.voice[data-voice=\"pulse\"] input.enable').checked === false"),
                      "the second page sees the first page's change")
        let secondShot = try browser.screenshot()
        try secondShot.write(to: Self.screenshots.appendingPathComponent("web-page-second-window.png"))
        let offFrom = ear.frameTime
        usleep(2_000_000)
        let offTo = ear.frameTime
        try browser.execute("document.querySelector('.voice[data-voice=\"pulse\"] input.enable').click()")
        try browser.switchTo(first)
        XCTAssertTrue(try browser.wait(until: "return document.querySelector('.voice[data-voice=\"pulse\"] input.enable').checked === true"))
        let onFrom = ear.frameTime
        usleep(2_000_000)
        let onTo = ear.frameTime
        XCTAssertEqual(pulseBeats(offFrom, offTo), 0, "silent while off (2 s at 120 BPM would hold 4 beats)")
        XCTAssertGreaterThanOrEqual(pulseBeats(onFrom, onTo), 3, "heard again once on: \(ear.onsetJackFrames.suffix(8))")
    }

    /// A tempo change over OSC, Tambour's mode and regions, MusicMood's bands: on the page.
    private func checkTheTempoRegionsAndMood(_ browser: WebDriver, osc: UInt16) throws {
        // A tempo change over OSC (liblo's oscsend) reaches the page.
        if let oscsend = Subprocess.which("oscsend") {
            try Subprocess.run(oscsend, ["localhost", "\(osc)", "/pulse/bpm", "f", "75"])
        } else {
            OSCEncoder.send(OSCEncoder.message("/pulse/bpm", [.float(75)]), port: osc)
        }
        XCTAssertTrue(try browser.wait(until: "return document.getElementById('bpm').textContent === '75.0'"))
        // Tambour: the mode from the page, region hits from the page and over OSC lit and recorded
        // (a skipped beat as ·).
        try browser.execute("document.querySelector('#modes button[data-mode=\"recording\"]').click()")
        XCTAssertTrue(try browser.wait(until: "return document.querySelector('#modes button.active').dataset.mode === 'recording'"))
        try browser.execute("[...document.querySelectorAll('.region')].find(cell => cell.textContent === 'right-down').click()")
        XCTAssertTrue(try browser.wait(until: "return document.getElementById('pattern').textContent === 'right-down'"))
        OSCEncoder.send(OSCEncoder.message("/region/left-up"), port: osc)
        OSCEncoder.send(OSCEncoder.message("/region/left-left"), port: osc)
        XCTAssertTrue(try browser.wait(until: "return document.getElementById('pattern').textContent === 'right-down·left-left'"))
        XCTAssertTrue(try browser.wait(until: "return window.pulsejack.regionHits >= 3 && document.querySelector('.region.lit') !== null"))
        // MusicMood: the band powers OSC sends, averaged, and the mood they make.
        for (band, power) in [("alpha", 0.8), ("beta", 0.4), ("delta", 0.3), ("theta", 0.5), ("gamma", 0.2)] {
            OSCEncoder.send(OSCEncoder.message("/muse/elements/\(band)_absolute", [.float(Float(power))]), port: osc)
        }
        XCTAssertTrue(try browser.wait(until: "return document.getElementById('mood-name').textContent === 'happy'"))
        // The mood can be known before the last band reaches the page: wait for all five.
        let bands = "return [...document.querySelectorAll('.band .value')].map(v => v.textContent).join(' ')"
        let allShown = try browser.wait(until: bands + " === '0.80 0.40 0.30 0.50 0.20'")
        let shown = try browser.execute(bands)
        XCTAssertTrue(allShown, "the bands shown: \(String(describing: shown))")
    }

    /// The insert's controls, at the preset's value; moved from the page, the engine has it.
    private func checkTheInsertControls(_ browser: WebDriver, pages: (first: String, second: String), run: LiveWebRun) throws {
        let (first, second) = pages
        XCTAssertEqual(try browser.execute("return document.querySelector('.insert').textContent.includes('Simple Amplifier')") as? Bool, true)
        XCTAssertTrue(try browser.wait(until: "return Number(document.querySelector('[data-control=\"1\"]').value) === -6"))
        try browser.execute("const gain = document.querySelector('[data-control=\"1\"]'); gain.value = -20; gain.dispatchEvent(new Event('change'))")
        try browser.switchTo(second)
        XCTAssertTrue(try browser.wait(until: "return window.pulsejack.state.controls[1] === -20"), "the engine's copy, on the other page")
        try browser.switchTo(first)
        XCTAssertEqual(try run.status()["bpm"], 75)
        usleep(500_000)
        try browser.screenshot().write(to: Self.screenshots.appendingPathComponent("web-page-3.png"))
    }

    /// The body shaping the sound on the page: each modulation's source and destination values
    /// move with what OSC sends, the fader it moves is marked and follows it, the heart's
    /// variability shows, and its switch turns it off for the engine (a JACK client hears the
    /// voice back at its own gain).
    func testThePageShowsModulationsMovingAndSwitchesOneOff() throws {
        guard let server = TestServer.name else { throw XCTSkip(TestServer.missing) }
        guard WebDriver.available else { return XCTFail("chromium and chromium-driver are not installed (make deps installs them)") }
        TestServer.use(server)
        let run = try LiveWebRun(preset: """
            name: modulated
            bpm: 60
            voices:
              - {name: pad, kind: click, on_beat: false, gain: 0.5}
              - name: tone
                kind: click
                on_beat: false
                inserts: [{plugin: "http://lv2plug.in/plugins/eg-amp"}]
            modulations:
              - {from: signal.level, to: voice.pad.gain}
              - {from: eeg.alpha, to: voice.tone.insert.1.gain, to_range: [-40, 0]}
            """, web: "0", server: server)
        self.run = run
        XCTAssertTrue(try Subprocess.waitForPorts(of: run.client, server: server))
        let ear = try CaptureClient(name: "pj-web-modulation-ear-\(getpid())", threshold: 0.1)
        defer { ear.close() }
        try ear.connect(from: "\(run.client):out_L")
        let browser = try WebDriver()
        defer { browser.quit() }
        try browser.open(run.url)
        XCTAssertTrue(try browser.wait(until: "return window.pulsejack && window.pulsejack.connected && window.pulsejack.layout !== null"))
        XCTAssertEqual(try browser.execute("return document.querySelectorAll('.modulation').length") as? Int, 2)
        XCTAssertEqual(try browser.execute("return document.querySelector('.modulation[data-index=\"1\"]').textContent") as? String,
                       "eeg.alpha–→voice.tone.insert.1.gain–")

        try checkTheModulationsMove(browser, run: run)

        // Heard at the modulated gain; switched off on the page, at the pad's own 0.5. A click is
        // one sample: a cycle the loaded server did not run the ear in loses it (the engine still
        // counts it fired), so a trigger not heard within half a second is sent again.
        let heard = { () -> Float? in
            let before = ear.onsetLevels.count
            for _ in 0..<10 where ear.onsetLevels.count == before {
                OSCEncoder.send(OSCEncoder.message("/voice/pad/trigger", [.float(1)]), port: run.osc)
                for _ in 0..<10 where ear.onsetLevels.count == before { usleep(50_000) }
            }
            return ear.onsetLevels.count > before ? ear.onsetLevels.last : nil
        }
        XCTAssertEqual(heard() ?? 0, 0.8, accuracy: 1e-6)
        try browser.execute("document.querySelector('.modulation[data-index=\"0\"] .switch').click()")
        XCTAssertTrue(try browser.wait(until: "const f = document.querySelector('.voice[data-voice=\"pad\"] .gain'); return !f.classList.contains('modulated') && Number(f.value) === 0.5"),
                      "the fader back at the voice's own gain")
        XCTAssertEqual(try run.status()["modulation_1_on"], 0)
        usleep(100_000)
        XCTAssertEqual(heard() ?? 0, 0.5, accuracy: 1e-6, "the voice's own gain once the modulation is off")
        XCTAssertEqual(try run.status()["modulation_2_on"], 1, "the other one stays on")
    }

    /// The sources move, and their destinations and the faders with them; the heart's
    /// variability shows, as the status has it.
    private func checkTheModulationsMove(_ browser: WebDriver, run: LiveWebRun) throws {
        // The source moves, and the destination and the pad's gain fader with it.
        for level in [0.2, 0.8] {
            OSCEncoder.send(OSCEncoder.message("/signal/level", [.float(Float(level))]), port: run.osc)
            XCTAssertTrue(try browser.wait(until: "return document.querySelector('.modulation[data-index=\"0\"] .source').textContent === '\(level)'"))
            XCTAssertTrue(try browser.wait(until: "return document.querySelector('.modulation[data-index=\"0\"] .destination').textContent === '\(level)'"))
            XCTAssertTrue(try browser.wait(until: "const f = document.querySelector('.voice[data-voice=\"pad\"] .gain'); return f.classList.contains('modulated') && Number(f.value) === \(level)"))
        }
        OSCEncoder.send(OSCEncoder.message("/muse/elements/alpha_absolute", [.float(0.25)]), port: run.osc)
        XCTAssertTrue(try browser.wait(until: "return document.querySelector('.modulation[data-index=\"1\"] .destination').textContent === '-30'"))
        XCTAssertTrue(try browser.wait(until: "const f = document.querySelector('[data-control=\"1\"]'); return f.classList.contains('modulated') && Number(f.value) === -30"))
        // The heart's variability, from the intervals /pulse/rr sends.
        OSCEncoder.send(OSCEncoder.message("/pulse/rr", [.float(0.8), .float(0.85), .float(0.78)]), port: run.osc)
        XCTAssertTrue(try browser.wait(until: "return document.getElementById('variability').textContent.startsWith('RMSSD ')"))
        let sent = [0.8, 0.85, 0.78].map { (Double(Float($0)) * 1024).rounded() / 1024 }
        let expected = try XCTUnwrap(ReferenceVariability.of(sent, window: 30))
        XCTAssertEqual(try XCTUnwrap(try run.status()["rmssd_ms"]), expected.rmssd, accuracy: 1e-3)
        XCTAssertEqual(try XCTUnwrap(try run.status()["sdnn_ms"]), expected.sdnn, accuracy: 1e-3)
        try browser.screenshot().write(to: Self.screenshots.appendingPathComponent("web-page-modulations.png"))
    }

    /// With `--lsl` and an LSL stream read, the page lists each stream in and out: its name,
    /// type, rate and samples, as the status counts them.
    func testThePageListsTheLabStreamsInAndOut() throws {
        guard let server = TestServer.name else { throw XCTSkip(TestServer.missing) }
        guard WebDriver.available else { return XCTFail("chromium and chromium-driver are not installed (make deps installs them)") }
        if let missing = LSLPeer.missing { throw XCTSkip(missing) }
        if TestServer.isPipeWire { throw XCTSkip("the page shows what the status says, the same on every server: the jackd2 pass runs this") }
        TestServer.use(server)
        let network = try LabNetwork("lsl-web")
        defer { network.remove() }
        let stream = "pj-web-hrv-\(getpid())"
        let heart = try LSLPeer(["rr", "--name", stream, "--on", "20", "--off", "0", "--again", "0"], network: network)
        defer { heart.finish(seconds: 0) }
        let run = try LiveWebRun(preset: "voices:\n  - {name: click, kind: click}\n", web: "0", server: server,
                                 arguments: ["--lsl", "--heart", "lsl:\(stream)"], network: network)
        self.run = run
        XCTAssertTrue(try Subprocess.waitForPorts(of: run.client, server: server))
        let browser = try WebDriver()
        defer { browser.quit() }
        try browser.open(run.url)
        XCTAssertTrue(try browser.wait(until: "return window.pulsejack && window.pulsejack.connected && window.pulsejack.layout !== null"))
        let rows = "return [...document.querySelectorAll('#lab-streams tbody tr')].map(r => [...r.cells].map(c => c.textContent).join('|'))"
        let streaming = try browser.wait(seconds: 15, until: "const rows = (\(rows.dropFirst(7)));"
            + " return rows.some(r => r.startsWith('in|\(stream)|RR|irregular|') && !r.startsWith('in|\(stream)|RR|irregular|0|'))")
        let seen = try browser.execute(rows)
        XCTAssertTrue(streaming, "\(String(describing: seen))")
        let shown = try XCTUnwrap(try browser.execute(rows) as? [String])
        XCTAssertTrue(shown.contains { $0.hasPrefix("out|\(run.client)|Markers|irregular|") }, "\(shown)")
        XCTAssertTrue(shown.contains { $0.hasPrefix("out|\(run.client)-heart|HeartRate|irregular|") }, "\(shown)")
        XCTAssertEqual(try browser.execute("return document.getElementById('lab').hidden") as? Bool, false)
        XCTAssertEqual(try browser.execute("return [...document.querySelectorAll('#counters td')].some(c => c.textContent.startsWith('lsl_'))") as? Bool, false,
                       "the streams are in their own table, not among the counters")
    }
}
