import OSC
import Runs
import Engine
import Inputs
import Foundation
import TestSupport
import XCTest
import Realtime

/// The live run's life cycle in process, against the private jackd: what the CLI's `run` does,
/// without a subprocess.
final class LiveSessionTests: XCTestCase {
    func testALiveSessionPlaysRecordsAndAccountsForEveryFiredVoice() throws {
        guard TestServer.join() != nil else { throw XCTSkip(TestServer.missing) }
        let temporary = try TemporaryFolder("live")
        defer { temporary.remove() }
        let folder = temporary.path
        var configuration = LiveSession.Configuration(preset: Shipped.presets.appendingPathComponent("default").path)
        configuration.clientName = "pulsejack-live-\(getpid())"
        configuration.bpm = 240
        configuration.osc?.port = 0
        configuration.eventsOut = folder + "/events.jsonl"
        configuration.recordSession = folder + "/session.log"
        configuration.record = folder + "/out.wav"
        let warnings = LockedBox<[String]>([])
        let session = try LiveSession(configuration: configuration, log: { line in warnings.withLockedValue { $0.append(line) } },
                                      say: { _ in })
        try session.activate()
        // Every input source in one shape, in the order the engine drains their rings: the run's
        // own, OSC, and the page's (the live picture that --events-out keeps).
        XCTAssertEqual(session.sources.map { "\(type(of: $0))" }, ["ControlInput", "OSCInput"] + (session.view == nil ? [] : ["PageInput"]))
        XCTAssertTrue(session.send(ControlMessage(.tempo(bpm: 240))), "the run's own ring takes a message")
        let port = try XCTUnwrap(session.osc?.boundPort)
        let deadline = Date() + 1.5
        while Date() < deadline {
            session.tick()
            usleep(100_000)
        }
        // The status the OSC port answers comes from the same session.
        let status = try OSCStatusQuery.ask(host: "127.0.0.1", port: port)
        guard case .float(let bpm)? = status.first(where: { $0.0 == "bpm" })?.1 else { return XCTFail("no bpm in \(status)") }
        XCTAssertEqual(bpm, 240, accuracy: 1e-9)
        // Every counter the engine and the OSC input count is shown, under its description's key.
        let keys = Set(status.map(\.0))
        for key in EngineCounter.allCases.map(\.about.key) + OSCCounter.allCases.map(\.about.key) {
            XCTAssertTrue(keys.contains(key), "\(key) is counted but not in the status \(keys.sorted())")
        }
        guard case .int(let periods)? = status.first(where: { $0.0 == "periods" })?.1 else { return XCTFail("no periods in \(status)") }
        XCTAssertGreaterThan(periods, 100, "1.5 s of periods of at most 1024 frames")
        let summary = session.stop()

        XCTAssertGreaterThan(summary.counts[.beats], 3, "240 BPM for 1.5 s")
        let events = try String(contentsOfFile: folder + "/events.jsonl", encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(events.count, summary.counts[.voicesFired], "every fired voice written once")
        let log = try String(contentsOfFile: folder + "/session.log", encoding: .utf8).split(separator: "\n")
        XCTAssertTrue(log.first?.contains("pulsejack_session") == true)
        XCTAssertEqual(log.last.map(String.init), SessionLog.endLine(frame: session.engine.framePosition))
        let wav = try WavFile(path: folder + "/out.wav")
        XCTAssertTrue(summary.recorded.contains("recorded \(wav.frameCount) frames"), summary.recorded)
        XCTAssertTrue(warnings.withLockedValue { $0 }.isEmpty, "\(warnings.withLockedValue { $0 })")
    }

    /// The run's last line, made from the counters' descriptions, reads as it always has.
    func testTheSummaryLineSaysTheCountersInTheirOrder() {
        var counts = EngineCounters.Snapshot.zero
        (counts[.framesProcessed], counts[.framesSkipped], counts[.beats], counts[.voicesFired]) = (48_000, 512, 3, 2)
        (counts[.xruns], counts[.rejectedTempos], counts[.lateMessages], counts[.clippedSamples]) = (1, 4, 5, 6)
        counts[.queueOverflows] = 9  // in the status only
        var summary = LiveSession.Summary(counts: counts, reconnects: 0, recorded: "")
        XCTAssertEqual(summary.description, "48512 frames: 3 beats, 2 voices fired, 1 xruns (512 frames skipped), "
                       + "4 tempo updates rejected, 5 late messages, 6 clipped samples")
        summary.counts[.sessionLogOverruns] = 7
        summary.reconnects = 2
        XCTAssertEqual(summary.description, "48512 frames: 3 beats, 2 voices fired, 1 xruns (512 frames skipped), "
                       + "4 tempo updates rejected, 5 late messages, 6 clipped samples, 7 messages lost to a full recording ring, 2 reconnects")
        summary.counts[.framesRewound] = 256
        XCTAssertEqual(summary.description, "48512 frames: 3 beats, 2 voices fired, 1 xruns (512 frames skipped), "
                       + "4 tempo updates rejected, 5 late messages, 6 clipped samples, 7 messages lost to a full recording ring, "
                       + "256 frames wound back, 2 reconnects")
    }

    func testAFailedBuildStopsTheServerItStartedAndSaysWhy() throws {
        var configuration = LiveSession.Configuration(preset: "/nonexistent/preset")
        configuration.osc = nil
        XCTAssertThrowsError(try LiveSession(configuration: configuration, log: { _ in }, say: { _ in })) { error in
            XCTAssertTrue("\(error)".hasPrefix("/nonexistent/preset: no such preset"), "\(error)")
        }
    }
}

/// `--start-server net` before the command line's parser sees it.
final class StartServerArgumentTests: XCTestCase {
    func testNetBecomesTheHiddenFlagAndNothingElseChanges() {
        XCTAssertEqual(StartServerArgument.rewriting(["run", "--start-server", "net", "--bpm", "80"]),
                       ["run", "--start-net-server", "--bpm", "80"])
        XCTAssertEqual(StartServerArgument.rewriting(["run", "--start-server=net"]), ["run", "--start-net-server"])
        XCTAssertEqual(StartServerArgument.rewriting(["run", "--start-server", "--bpm", "80"]), ["run", "--start-server", "--bpm", "80"],
                       "a plain flag stays one")
        XCTAssertEqual(StartServerArgument.rewriting(["run", "--start-server"]), ["run", "--start-server"], "a flag last")
        XCTAssertEqual(StartServerArgument.rewriting(["run", "--", "--start-server", "net"]), ["run", "--", "--start-server", "net"],
                       "nothing after --")
    }
}
