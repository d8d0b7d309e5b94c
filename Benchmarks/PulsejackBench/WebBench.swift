import Runs
import CAllocCounter
import Inputs
import Foundation
import TestSupport
import WebSurface
import Realtime

/// Row 10, the live page: a `LiveSession` with its page server (as `run --web` makes them) on a
/// private dummy jackd, 240 BPM, 256-frame periods. From a beat's frame (as wall-clock time
/// through JACK's clock) to its WebSocket message arriving at a client, and to the page's flash
/// in headless chromium (read back from the page); meter frames a second each client gets with
/// 1 and with 8 clients; allocations on the process thread meanwhile.
enum WebBench {
    struct Result {
        var beatToMessage: [Double] = []
        var beatToFlash: [Double] = []
        var heardToFlash: [Double] = []
        var meterRate: [Int: [Double]] = [:]
        var dropped: [Int: Int] = [:]
        var allocations = 0
        var beats = 0
    }

    static func nowMs() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) * 1000 + Double(time.tv_nsec) / 1_000_000
    }

    static func measure() throws -> Result {
        let server = try PrivateJackServer(periodFrames: 256)
        defer { server.stop() }
        var configuration = LiveSession.Configuration(preset: BenchFixtures.repository.appendingPathComponent("presets/default").path)
        configuration.bpm = 240
        configuration.osc?.port = 0
        configuration.liveView = true
        let session = try LiveSession(configuration: configuration, log: { _ in }, say: { _ in })
        guard let view = session.view, let address = WebAddress("127.0.0.1:0") else { throw BenchFailure("no live view") }
        let web = try WebServer(view: view, address: address, token: nil)
        try web.start()
        try session.activate()
        // The control thread's ticks, on a thread of their own (the session's one control thread).
        let ticking = LockedBox(true), ticked = TickedSession(session: session), tickerEnded = DispatchSemaphore(value: 0)
        let ticker = Thread {
            while ticking.withLockedValue({ $0 }) {
                ticked.session.tick()
                usleep(100_000)
            }
            tickerEnded.signal()
        }
        ticker.start()
        defer {
            ticking.withLockedValue { $0 = false }
            tickerEnded.wait()
            web.stop()
            _ = session.stop()
        }
        var result = Result()
        pj_rt_counters_reset()

        result.beatToMessage = try beatMessages(web)
        for clients in [1, 8] {
            let frames = try meterFrames(web, clients: clients)
            result.meterRate[clients] = frames.rates
            result.dropped[clients] = frames.dropped
        }
        if WebDriver.available { (result.beatToFlash, result.heardToFlash) = try flashes(web) }
        result.allocations = Int(pj_rt_allocation_count())
        result.beats = session.engine.handle.counters.value(.beats)
        return result
    }

    /// One client: each beat message against the beat's own time, over 15 s.
    private static func beatMessages(_ web: WebServer) throws -> [Double] {
        let peer = try WebSocketPeer(port: web.boundPort, path: "/ws")
        let end = Date().addingTimeInterval(15)
        var delays: [Double] = []
        while Date() < end, let text = try peer.receiveText() {
            let received = nowMs()
            guard text.hasPrefix("{\"type\":\"beat\""),
                  let beat = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
                  let at = (beat["at"] as? NSNumber)?.doubleValue else { continue }
            delays.append(received - at)
        }
        return delays
    }

    /// Meter frames per second for each of `clients` pages reading everything, and the frames dropped meanwhile.
    private static func meterFrames(_ web: WebServer, clients: Int) throws -> (rates: [Double], dropped: Int) {
        let dropsBefore = web.counters.value(.meterFramesDropped)
        let pages = try (0..<clients).map { _ in try WebSocketPeer(port: web.boundPort, path: "/ws") }
        let counts = LockedBox([Int](repeating: 0, count: clients))
        let started = DispatchSemaphore(value: 0), done = DispatchGroup()
        let window = 5.0
        for (index, page) in pages.enumerated() {
            done.enter()
            Thread {
                // Up to date first: reading until a frame sent after now.
                let catchUp = nowMs()
                while let text = try? page.receiveText() {
                    if text.hasPrefix("{\"type\":\"meter\""), let t = Self.field("t", in: text), t > catchUp { break }
                }
                started.signal()
                let stop = Date().addingTimeInterval(window)
                while Date() < stop, let text = try? page.receiveText() {
                    if text.hasPrefix("{\"type\":\"meter\"") { counts.withLockedValue { $0[index] += 1 } }
                }
                done.leave()
            }.start()
        }
        for _ in 0..<clients { started.wait() }
        done.wait()
        return (counts.withLockedValue { $0 }.map { Double($0) / window }, web.counters.value(.meterFramesDropped) - dropsBefore)
    }

    /// The page in chromium: when each beat's flash reached the screen, from the beat and from its being heard.
    private static func flashes(_ web: WebServer) throws -> (fromBeat: [Double], fromHeard: [Double]) {
        let browser = try WebDriver()
        defer { browser.quit() }
        try browser.open(web.url)
        _ = try browser.wait(until: "return window.pulsejack && window.pulsejack.connected && window.pulsejack.bestRoundTrip < 50")
        usleep(12_000_000)
        var fromBeat: [Double] = [], fromHeard: [Double] = []
        if let flashes = try browser.execute("return window.pulsejack.flashes") as? [[String: Any]] {
            for flash in flashes {
                guard let at = (flash["at"] as? NSNumber)?.doubleValue, let heard = (flash["heard"] as? NSNumber)?.doubleValue,
                      let shown = (flash["shown"] as? NSNumber)?.doubleValue else { continue }
                fromBeat.append(shown - at)
                fromHeard.append(shown - heard)
            }
        }
        return (fromBeat, fromHeard)
    }

    // @unchecked: only the ticker thread calls `tick` until `stop`, which runs after it ends.
    struct TickedSession: @unchecked Sendable { let session: LiveSession }

    static func field(_ name: String, in text: String) -> Double? {
        guard let range = text.range(of: "\"\(name)\":") else { return nil }
        return Double(text[range.upperBound...].prefix { "0123456789.-e".contains($0) })
    }

    static func run(runs: Int) throws -> [BenchRow] {
        let result = try measure()
        let message = Statistics(result.beatToMessage), flash = Statistics(result.beatToFlash), heard = Statistics(result.heardToFlash)
        func rate(_ clients: Int) -> String {
            let rates = Statistics(result.meterRate[clients] ?? [])
            return String(format: "%.1f (lowest %.1f) frames/s, %d dropped", rates.median, rates.sorted.first ?? .nan,
                          result.dropped[clients] ?? 0)
        }
        let command = ".build/release/pulsejack-bench --only web"
        return [
            BenchRow(row: "10. Live page", measure: "beat's frame (wall time through JACK's clock) → its WebSocket message at a client, \(message.count) beats at 240 BPM, 256-frame periods",
                     pulsejack: String(format: "median %.1f ms, p99 %.1f ms", message.median, message.percentile(99)),
                     reference: "negative: before the frame's own time (the period is computed ahead of playing it); the page flashes a beat when it is heard, so the message must come before that",
                     command: command),
            BenchRow(row: "10. Live page", measure: "beat's frame → the flash on the page (headless chromium, read back from the page), \(flash.count) beats",
                     pulsejack: String(format: "median %.1f ms, p99 %.1f ms; after the heard time: median %.1f ms, p99 %.1f ms",
                                       flash.median, flash.percentile(99), heard.median, heard.percentile(99)),
                     reference: "the display frame nearest the heard time once the message is there; here the message comes only about 1 ms ahead (the dummy driver reports no playback latency), so the next frame: at most 16.7 ms at 60 Hz",
                     command: command),
            BenchRow(row: "10. Live page", measure: "meter frames delivered per client, 1 client / 8 clients (5 s each)",
                     pulsejack: "\(rate(1)) / \(rate(8))", reference: "the meter rate: 60 frames/s", command: command),
            BenchRow(row: "10. Live page", measure: "allocations on the process thread with pages connected (over the whole run, \(result.beats) beats)",
                     pulsejack: "\(result.allocations)", reference: "0", command: command),
        ]
    }
}
