import Control
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
          - {name: pad, kind: click, on_beat: false, gain: 0.5}
        regions: {right-down: pad}
        """

    func testTheBrowserShowsTheEngineAndItsSwitchSilencesTheVoiceForAJackClient() throws {
        guard let server = TestServer.name else { throw XCTSkip(TestServer.missing) }
        guard WebDriver.available else {
            return XCTFail("chromium and chromium-driver are not installed (make deps installs them)")
        }
        setenv("JACK_DEFAULT_SERVER", server, 1)
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
        let first = try browser.window
        let second = try browser.newWindow()
        try browser.open(url)
        XCTAssertTrue(try browser.wait(until: "return window.pulsejack && window.pulsejack.connected && window.pulsejack.layout !== null"))
        try browser.switchTo(first)

        // The radial trace: drawn, and moving between two screenshots.
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

        // Off in the page: silent for the JACK ear; the second page sees it; on again: heard again.
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

        // A tempo change over OSC (liblo's oscsend) reaches the page.
        if let oscsend = Subprocess.which("oscsend") {
            try Subprocess.run(oscsend, ["localhost", "\(osc)", "/pulse/bpm", "f", "75"])
        } else {
            OSCEncoder.send(OSCEncoder.message("/pulse/bpm", [.float(75)]), port: osc)
        }
        XCTAssertTrue(try browser.wait(until: "return document.getElementById('bpm').textContent === '75.0'"))
        // A region hit over OSC lights its cell and, with the page's own commands, counts alike.
        try browser.execute("document.querySelector('#modes button[data-mode=\"recording\"]').click()")
        XCTAssertTrue(try browser.wait(until: "return document.querySelector('#modes button.active').dataset.mode === 'recording'"))
        try browser.execute("document.querySelector('.region[data-index=\"0\"]').click()")
        XCTAssertTrue(try browser.wait(until: "return document.querySelectorAll('#pattern span').length === 1"))
        XCTAssertEqual(try run.status()["bpm"], 75)
        usleep(500_000)
        try browser.screenshot().write(to: Self.screenshots.appendingPathComponent("web-page-3.png"))
    }

}
