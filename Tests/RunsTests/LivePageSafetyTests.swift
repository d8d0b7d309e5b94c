import Runs
import CAllocCounter
import Inputs
import Foundation
import TestSupport
import WebSurface
import XCTest
import Realtime

/// The live page beside the process thread, in this process: eight pages connected, sending
/// commands and reading every frame, while JACK runs the engine — no allocation and no lock on
/// its thread (counted in `make test`; under `make test-tsan`, where the counter is built out,
/// the same run is ThreadSanitizer's check of the page's threads).
final class LivePageSafetyTests: XCTestCase {
    func testNoAllocationOnJacksProcessThreadWithEightPagesConnected() throws {
        guard TestServer.join() != nil else { throw XCTSkip(TestServer.missing) }
        let temporary = try TemporaryFolder("page-rt")
        defer { temporary.remove() }
        let folder = temporary.path
        let session = try LiveSession(configuration: Self.configuration(eventsOut: folder + "/events.jsonl"), log: { _ in }, say: { _ in })
        // Counted from before activation: the first periods (lazy statics, first calls) too.
        pj_rt_counters_reset()
        try session.activate()
        // The page starts and stops with the run's life cycle.
        let web = try XCTUnwrap(session.page)
        let voices = session.engine.handle.voiceNames
        let pages = try (0..<8).map { _ in try WebSocketPeer(port: web.boundPort, path: "/ws") }
        let readers = DispatchGroup()
        let received = LockedBox([Int](repeating: 0, count: pages.count))
        let reading = LockedBox(true)
        // A thread each (the global queue would run only as many as the machine has cores).
        for (index, page) in pages.enumerated() {
            readers.enter()
            Thread {
                while reading.withLockedValue({ $0 }), let text = try? page.receiveText() {
                    if text.contains("\"type\":\"meter\"") { received.withLockedValue { $0[index] += 1 } }
                }
                readers.leave()
            }.start()
        }
        usleep(300_000)
        let sent = try Self.sendEveryCommand(from: pages, to: voices, ticking: session)
        let allocations = pj_rt_allocation_count(), locks = pj_rt_lock_count()
        reading.withLockedValue { $0 = false }
        let summary = session.stop()
        XCTAssertEqual(readers.wait(timeout: .now() + 10), .success)
        if pj_alloc_counter_live() != 0 {
            XCTAssertEqual(allocations, 0, RealtimeAllocationTrace.first)
            XCTAssertEqual(locks, 0)
        }
        XCTAssertGreaterThan(summary.counts[.voicesFired], 20, "240 BPM for 3 s")
        XCTAssertGreaterThanOrEqual(summary.counts[.messagesApplied], sent, "the pages' \(sent) commands reached the engine")
        XCTAssertTrue(received.withLockedValue { $0 }.allSatisfy { $0 > 100 }, "every page got meter frames: \(received.withLockedValue { $0 })")
        // The page's thread drained the fired reports and handed them on: the events log has each once.
        let events = try String(contentsOfFile: folder + "/events.jsonl", encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(events.count, summary.counts[.voicesFired])
    }

    /// Thirty steps in which every page moves a fader and flips a rate, the control thread ticking
    /// as `run` does; returns once every command has reached the engine (or after 10 s), with
    /// the number sent. A fixed number of steps, not a time: under ThreadSanitizer a step takes
    /// longer (CI: 292 commands applied in 3 s where 400 were asked for).
    private static func sendEveryCommand(from pages: [WebSocketPeer], to voices: [String], ticking session: LiveSession) throws -> Int {
        let steps = 30
        for step in 0..<steps {
            for (index, page) in pages.enumerated() {
                let voice = voices[(index + step) % voices.count]
                try page.send(text: "{\"type\":\"control\",\"address\":\"/voice/\(voice)/gain\",\"args\":[\(0.2 + 0.05 * Double(step % 10))]}")
                try page.send(text: "{\"type\":\"control\",\"address\":\"/voice/\(voice)/rate\",\"args\":[\(1 + step % 4),\(1 + index % 4)]}")
            }
            session.tick()
            usleep(100_000)
        }
        // The page's thread hands the commands on as they come.
        let sent = steps * pages.count * 2, applied = session.engine.handle.counters
        let deadline = Date().addingTimeInterval(10)
        while applied.value(.messagesApplied) < sent, Date() < deadline {
            session.tick()
            usleep(50_000)
        }
        return sent
    }

    /// The default preset at 240 BPM with OSC and the page on free ports, logging the fired voices to `eventsOut`.
    private static func configuration(eventsOut: String) -> LiveSession.Configuration {
        var configuration = LiveSession.Configuration(preset: Shipped.presets.appendingPathComponent("default").path)
        configuration.clientName = "pulsejack-page-rt-\(getpid())"
        configuration.bpm = 240
        configuration.osc?.port = 0
        configuration.web = WebAddress("127.0.0.1:0")
        configuration.eventsOut = eventsOut
        return configuration
    }
}
