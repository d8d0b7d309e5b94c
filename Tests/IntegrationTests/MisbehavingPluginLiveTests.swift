import Foundation
import Inputs
import JackPeers
import TestSupport
import XCTest

/// The project's misbehaving plugins during `pulsejack run` on the private jackd, every behaviour
/// at once beside a clean voice, as voice inserts, as lv2 voices, and as master inserts: NaN and
/// +Inf (with a reverb after the NaN insert), stored denormals, latencies of 1e9, −5 and NaN
/// frames and one that flips between 0 and a beat, 64 controls with absurd data, and — isolated —
/// a 20 ms spin every 50th run, a crash in run(), an endless loop, and a crash in instantiate()
/// and in restore() (of a saved state). A capture client listens to the clean voice's own port, jack_capture records
/// the output ports, the run records its take, and `pulsejack status --json` is asked meanwhile.
///
/// The spin in process is a test of its own: until its guard benches it (3 overruns), each spin
/// stalls the whole period, so the clean voice is exact only from then on.
final class MisbehavingPluginLiveTests: XCTestCase {
    private var folder: TemporaryFolder!
    private var run: LiveRun?

    override func setUpWithError() throws {
        try Subprocess.requirePulsejack()
        folder = try TemporaryFolder("misbehaving-live")
    }

    override func tearDown() {
        run?.stop()
    }

    enum Place { case voiceInsert, instrument, masterInsert }

    /// Each behaviour, whether it is isolated, and what the log must say of it (nil: nothing,
    /// as denormals are flushed, not a fault).
    static let behaviours: [(name: String, isolate: Bool, said: String?)] = [
        ("nan", false, "output non-finite samples"), ("inf", false, "output non-finite samples"), ("denormal", false, nil),
        ("latency-huge", false, "reported a latency of "), ("latency-negative", false, "reported a latency of "),
        ("latency-nan", false, "reported a latency of "), ("latency-flip", false, nil),
        ("absurd-controls", false, "has a default beyond the float range"), ("spin", true, "isolated: it missed its deadline"),
        // Beside every other fault on two cores, a crashing child may be cut at its deadline
        // before it crashes: named either way (`IsolatedPluginLiveTests` hears the crash alone).
        ("segfault", true, "isolated: it "), ("hang", true, "isolated: it missed its deadline"),
        ("crash-instantiate", true, "isolated: it crashed (signal 11"), ("crash-restore", true, "isolated: it crashed (signal 11"),
    ]

    /// The behaviours played at `place`. A latency on the master moves every voice's pulses by
    /// design (each fires that much early, to be heard on its frame after the master), the clean
    /// one's too, so the flip is not beside a clean voice there: `MisbehavingPluginTests` checks
    /// that each pulse still fires once with it on the master.
    static func behaviours(at place: Place) -> [(name: String, isolate: Bool, said: String?)] {
        place == .masterInsert ? behaviours.filter { $0.name != "latency-flip" } : behaviours
    }

    func testEveryFaultAsAVoiceInsert() throws { try play(at: .voiceInsert) }
    func testEveryFaultAsAnLV2Voice() throws { try play(at: .instrument) }
    func testEveryFaultAsAMasterInsert() throws { try play(at: .masterInsert) }

    /// A plugin that spins 20 ms every 50th run, in process, is benched after 3 overruns and
    /// named in the log and the status; from then on the clean voice is exact again.
    func testASpinningPluginInProcessIsBenchedAndTheCleanVoiceIsExactAgain() throws {
        guard let server = TestServer.join() else { throw XCTSkip(TestServer.missing) }
        let preset = folder.file("spin.yaml")
        try ("voices:\n  - {name: bystander, kind: click, gain: 0.5}\n  - name: spinning\n    kind: click\n    gain: 0.5\n    inserts:\n"
             + "      - plugin: \(MisbehavingPlugins.uri("spin"))\n").write(toFile: preset, atomically: true, encoding: .utf8)
        let client = "pj-spinning-\(getpid())", oscPort = OSCEncoder.freePort()
        run = try LiveRun(["run", "--preset", preset, "--bpm", "120", "--osc-port", "\(oscPort)", "--name", client, "--outputs", "voices"],
                          server: server, environment: ["LV2_PATH": try MisbehavingPlugins.lv2Path()])
        XCTAssertTrue(try Subprocess.waitForPorts(of: client, server: server, port: "bystander_L"), "the voice ports never appeared")
        let ear = try CaptureClient(name: "pj-spinning-ear-\(getpid())", threshold: 0.1)
        try ear.connect(from: "\(client):bystander_L")
        Thread.sleep(forTimeInterval: 4.5)
        let status = try Subprocess.run(Subprocess.pulsejack, ["status", "--osc-port", "\(oscPort)", "--json"])
        ear.close()
        let (exit, printed) = run?.stop() ?? (-1, "")
        XCTAssertEqual(exit, 0, printed)
        XCTAssertTrue(printed.contains("plugin spinning.insert1 (Misbehaving spin) took more than 50 % of the period in 3 of 256 periods"), printed)
        let values = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any], status.stdout)
        XCTAssertEqual(values["plugin_spinning.insert1_state"] as? String, "benched: overruns", status.stdout)
        XCTAssertGreaterThanOrEqual(values["plugin_spinning.insert1_overruns"] as? Int ?? 0, 3, status.stdout)
        XCTAssertGreaterThan(values["plugin_spinning.insert1_max_us"] as? Double ?? 0, 19_000, status.stdout)
        // Its spins start after its first second, every 50th period; the first makes its guard watchful
        // and the next three are overruns, so it is benched by its fourth (about 2.1 s):
        // the clicks heard in the last two seconds lie on the 24 000-frame grid, every one. One
        // missing is accounted for only where the ear was not run, or by a cycle pulsejack lost
        // (an xrun it counts; seen once on a loaded machine, in the ThreadSanitizer pass).
        let heard = ear.onsetJackFrames, last = try XCTUnwrap(heard.last), gaps = ear.gaps
        let settled = heard.filter { $0 > last - 96_000 }
        XCTAssertGreaterThanOrEqual(settled.count, 3, "\(heard)")
        var unexplained: [Int64] = []
        for (earlier, later) in zip(settled, settled.dropFirst()) {
            XCTAssertEqual((later - earlier) % 24_000, 0, "the clean voice on its grid: \(heard)")
            for due in stride(from: earlier + 24_000, to: later, by: 24_000) where !gaps.contains(where: { $0.contains(due) }) {
                unexplained.append(due)
            }
        }
        let (xruns, _) = LiveGrid.xruns(in: printed)
        XCTAssertLessThanOrEqual(unexplained.count, xruns, "clicks missing \(unexplained), \(xruns) xruns, the ear's gaps \(gaps): \(heard)")
    }

    /// The voice name of a behaviour ("latency-huge" → "latency_huge").
    private func voice(_ behaviour: String) -> String { behaviour.replacingOccurrences(of: "-", with: "_") }

    private func preset(at place: Place) throws -> String {
        var voices = "voices:\n  - {name: bystander, kind: click, gain: 0.5}\n", master = ""
        for (number, behaviour) in Self.behaviours(at: place).enumerated() {
            let uri = MisbehavingPlugins.uri(behaviour.name, instrument: place == .instrument)
            var options = behaviour.isolate ? "isolate: true" : "isolate: false"
            if behaviour.name == "crash-restore" { options += ", state: \(try MisbehavingPlugins.savedState(in: folder.url, for: uri))" }
            switch place {
            case .voiceInsert:
                voices += "  - name: \(voice(behaviour.name))\n    kind: click\n    gain: 0.5\n    inserts:\n"
                    + "      - {plugin: \(uri), \(options)}\n"
                // A reverb after the NaN: never poisoned.
                if behaviour.name == "nan" { voices += "      - {plugin: http://drobilla.net/plugins/mda/Ambience}\n" }
            case .instrument:
                voices += "  - {name: \(voice(behaviour.name)), kind: lv2, plugin: \(uri), note: \(60 + number), length: 0.1, \(options)}\n"
            case .masterInsert:
                master += "    - {plugin: \(uri), \(options)}\n"
            }
        }
        return voices + (master.isEmpty ? "" : "master:\n  inserts:\n" + master)
    }

    /// Where a behaviour's plugin sits, as the log and the status name it.
    private func place(of index: Int, at place: Place) -> String {
        let behaviour = Self.behaviours(at: place)[index].name
        switch place {
        case .voiceInsert: return "\(voice(behaviour)).insert1"
        case .instrument: return voice(behaviour)
        case .masterInsert: return "master.insert\(index + 1)"
        }
    }

    private func play(at place: Place) throws {
        guard let server = TestServer.join() else { throw XCTSkip(TestServer.missing) }
        guard Subprocess.which("jack_capture") != nil else { throw XCTSkip("jack_capture is not installed") }
        let preset = folder.file("preset.yaml")
        try self.preset(at: place).write(toFile: preset, atomically: true, encoding: .utf8)
        let client = "pj-misbehaving-\(getpid())", oscPort = OSCEncoder.freePort(), take = folder.file("take.wav")
        run = try LiveRun(["run", "--preset", preset, "--bpm", "120", "--osc-port", "\(oscPort)", "--name", client, "--outputs", "voices",
                           "--record", take], server: server, environment: ["LV2_PATH": try MisbehavingPlugins.lv2Path()])
        XCTAssertTrue(try Subprocess.waitForPorts(of: client, server: server, port: "bystander_L"), "the voice ports never appeared")
        let ear = try CaptureClient(name: "pj-misbehaving-ear-\(getpid())", threshold: 0.1)
        try ear.connect(from: "\(client):bystander_L")

        // Four seconds of the outputs: the faults start after each plugin's first second.
        let ports = ["out_L", "out_R"] + (place == .masterInsert ? [] : Self.behaviours.map { "\(voice($0.name))_L" })
        let audio = try XCTUnwrap(JackCapture.record(ports, of: client, server: server, seconds: 4, into: folder.file("capture.wav")))
        ear.close()
        let status = try statusOnceEveryIsolatedFaultHappened(oscPort: oscPort, at: place)
        let (exit, printed) = run?.stop() ?? (-1, "")
        XCTAssertEqual(exit, 0, printed)

        // Nothing non-finite or subnormal on any output port, nor in the take.
        let recorded = try WavFile(path: take)
        XCTAssertGreaterThan(audio.frameCount, 3 * 48_000)
        let outputs: [(String, [Float])] = Array(zip(ports, audio.channels)) + Array(zip(["take L", "take R"], recorded.channels))
        for (name, channel) in outputs {
            XCTAssertEqual(channel.filter { !$0.isFinite }.count, 0, "non-finite samples on \(name)")
            XCTAssertEqual(channel.filter { $0.isSubnormal }.count, 0, "subnormal samples on \(name)")
        }
        checkTheCleanVoice(heardBy: ear, printed: printed)
        // Each plugin named in the log where it did wrong; the status, which `status --json`
        // writes as JSON, shows the spinning one benched and the NaN one's samples.
        for (index, behaviour) in Self.behaviours(at: place).enumerated() {
            guard let said = behaviour.said else { continue }
            let name = self.place(of: index, at: place)
            // The guards say "plugin PLACE (NAME) …", a plugin's own data "PLACE: NAME: …".
            let named = printed.split(separator: "\n").contains { line in
                (line.contains("plugin \(name) (") || line.contains("\(name): ")) && line.contains("Misbehaving \(behaviour.name)")
                    && line.contains(said)
            }
            XCTAssertTrue(named, "\(name): \(said): \(printed)")
        }
        XCTAssertEqual(status.status, 0, status.stderr)
        let values = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any], status.stdout)
        XCTAssertGreaterThan(values["plugin_\(self.place(of: 0, at: place))_nonfinite"] as? Int ?? 0, 0, status.stdout)
        XCTAssertGreaterThanOrEqual(values["plugin_restarts"] as? Int ?? 0, 2, status.stdout)
    }

    /// `pulsejack status --json` once every isolated plugin has been out at least once (its
    /// fault comes after its own first second of runs, and a child started late under load —
    /// five children beside crashing ones on two cores — can reach it after the four seconds
    /// recorded: CI under PipeWire, "hang" never named in a 5 s run), or after 20 s.
    private func statusOnceEveryIsolatedFaultHappened(oscPort: UInt16, at place: Place) throws -> Subprocess {
        let isolated = Self.behaviours(at: place).enumerated().filter { $0.element.isolate }.map { self.place(of: $0.offset, at: place) }
        var faulted = Set<String>(), status: Subprocess
        let deadline = Date().addingTimeInterval(20)
        repeat {
            status = try Subprocess.run(Subprocess.pulsejack, ["status", "--osc-port", "\(oscPort)", "--json"])
            let values = (try? JSONSerialization.jsonObject(with: Data(status.stdout.utf8))) as? [String: Any] ?? [:]
            for name in isolated where values["plugin_\(name)_state"] as? String != "playing" || (values["plugin_\(name)_restarts"] as? Int ?? 0) > 0 {
                faulted.insert(name)
            }
            if faulted.count < isolated.count { Thread.sleep(forTimeInterval: 0.5) }
        } while faulted.count < isolated.count && Date() < deadline
        return status
    }

    /// The clean voice: its clicks on the heart's frames (24 000 apart at 120 BPM, in JACK's
    /// frame time) through every fault.
    private func checkTheCleanVoice(heardBy ear: CaptureClient, printed: String) {
        // A faulty plugin can still make a period late (an isolated one until its deadline, a
        // restart), and jackd2's graph then runs the ear on our port's next or last period: a
        // click heard a period early or late, or twice. Each such is an xrun pulsejack counts.
        let (xruns, skipped) = LiveGrid.xruns(in: printed)
        let heard = ear.onsetJackFrames
        let timing = "\(xruns) xruns; the ear's gaps \(ear.gaps)"
        // It plays on through the faults: of the clicks due while the ear listened, at least half
        // are heard, from the first beats to the last. A click due in a period JACK ran late or
        // not at all is lost (at most one an xrun), and every plugin here begins its fault at the
        // end of its first second, one same beat: that beat's click is often lost, and a restart
        // can cost another (here 8–9 of 8–9 with 12–57 xruns a run; before the SIMD passes were
        // optimized in debug builds the process thread took 85 % of a core here, and CI heard 2
        // of 9 with 202 xruns).
        let due = Int(ear.framesSeen / 24_000)
        XCTAssertGreaterThanOrEqual(heard.count * 2, due, "\(heard) of \(due) due; \(printed)")
        XCTAssertGreaterThanOrEqual((heard.last ?? 0) - (heard.first ?? 0), Int64(max(due - 3, 1)) * 24_000, "\(heard) of \(due) due")
        // Under PipeWire the loaded ear misreads its own cycles' frame times by part of a period
        // too (CI and here, 0 xruns each: 238848 on the grid 238784, 144640 on 144512), and a
        // click it hears at the first frame after a gap of its own is the server's late delivery
        // of its tail, its frame unknowable there (CI: 3334144, due 3333760, right after the
        // gaps 3333376..<3333632 and 3333888..<3334144; here 455936, due 454784 inside the gap
        // 453888..<455680, a period after it): heard, and counted above, but placed only within
        // a period, or — within a period after a gap — not at all.
        let placed = TestServer.isPipeWire ? heard.filter { !LiveGrid.afterAGap($0, gaps: ear.gaps) } : heard
        let off = LiveGrid.offGrid(placed, spacing: 24_000, lateBudget: Int64(skipped + 256 * xruns), withinAPeriod: TestServer.isPipeWire)
        XCTAssertNotNil(off, "the clean voice off its grid: \(heard); \(timing)")
        // The ear itself not run for the cycle a click was due in hears it a period late, no
        // fault of pulsejack's: jackd2 gives it the click's tail at the next cycle's first frame
        // (CI: 3206656 after the ear's gap 3206400..<3206656, 0 xruns). Under PipeWire, with the
        // faulty plugins' children spinning on two cores, the loaded ear reads its cycles' frame
        // times a period either way, after a gap of its own or none it can see (3103616, due
        // 3103360 right after the gap 3102976..<3103232; [24512, 48256, 72512 …] with no gap
        // near 48000; 0 xruns each, and the last landed commit did the same in 2 of 4 runs): there
        // a click a period off the grid is the ear's, and only one off by more, or missing, is
        // pulsejack's (`offGrid` above).
        let gaps = ear.gaps
        let unexcused = TestServer.isPipeWire ? [] : (off ?? []).filter { onset in !gaps.contains { $0.contains(onset - 256) } }
        XCTAssertLessThanOrEqual(unexcused.count, xruns, "the clean voice a period off its grid: \(unexcused) of \(heard); \(timing)")
    }
}
