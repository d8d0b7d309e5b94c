import Atomics
import CJack
import Foundation

/// A second JACK client that records where impulses arrive on its input: the independent ear
/// of the precision and latency rows. Onsets are kept as the client's own frame count since
/// activation and as JACK's frame time.
public final class CaptureClient {
    public var client: OpaquePointer { owned.pointer }
    private let owned: OwnedClient
    let port: OpaquePointer
    let capacity = 1 << 20
    let ownFrames: UnsafeMutablePointer<Int64>
    /// Each onset's period (index into `readings`) and offset within it.
    let onsetPeriods: UnsafeMutablePointer<Int32>
    let onsetOffsets: UnsafeMutablePointer<Int32>
    /// JACK's frame time of each period it ran.
    let log: PeriodLog
    let levels: UnsafeMutablePointer<Float>
    /// For each onset, the cycle JACK said was current when the ear ran (its frame time, its
    /// start on CLOCK_MONOTONIC, seconds a frame): a late callback reads the next cycle's.
    let cycleFrames: UnsafeMutablePointer<UInt32>
    let cycleTimes: UnsafeMutablePointer<Double>
    /// The same cycle's start on JACK's own clock (`jack_get_time`'s: CLOCK_MONOTONIC_RAW under
    /// jackd2, Ableton Link's), seconds.
    let cycleJackTimes: UnsafeMutablePointer<Double>
    let framePeriods: UnsafeMutablePointer<Double>
    let count = ManagedAtomic<Int>(0)
    public private(set) var framesSeen: Int64 = 0
    let periods = ManagedAtomic<Int>(0)

    /// Samples louder than `threshold` count as onsets.
    public let threshold: Float
    let sampleRate: Double

    /// `server`: a server other than JACK_DEFAULT_SERVER's.
    public init(name: String, threshold: Float = 0.5, server: String? = nil) throws {
        self.threshold = threshold
        let client = try openPeerClient(name, role: "capture client", server: server)
        owned = OwnedClient(client)
        port = jack_port_register(client, "in", JACK_DEFAULT_AUDIO_TYPE, UInt(JackPortIsInput.rawValue), 0)!
        sampleRate = Double(jack_get_sample_rate(client))
        ownFrames = .allocate(capacity: capacity)
        onsetPeriods = .allocate(capacity: capacity)
        onsetOffsets = .allocate(capacity: capacity)
        log = PeriodLog(capacity: capacity)
        levels = .allocate(capacity: capacity)
        (cycleFrames, cycleTimes, framePeriods) = (.allocate(capacity: capacity), .allocate(capacity: capacity), .allocate(capacity: capacity))
        cycleJackTimes = .allocate(capacity: capacity)
        jack_set_process_callback(client, { frames, context in
            pj_process_order_begin()
            defer { pj_process_order_end() }
            Unmanaged<CaptureClient>.fromOpaque(context!).takeUnretainedValue().process(frames)
            return 0
        }, Unmanaged.passUnretained(self).toOpaque())
        guard jack_activate(client) == 0 else { throw JackPeerFailure("capture client: activate failed") }
    }

    private func process(_ frames: jack_nframes_t) {
        let input = jack_port_get_buffer(port, frames).assumingMemoryBound(to: Float.self)
        guard let period = log.record(reading: jack_last_frame_time(client), frames: frames) else { return }
        var stored = count.load(ordering: .relaxed)
        var cycleStart: Double?, cycleJackStart = 0.0, framePeriod = 0.0, cycleFrame: jack_nframes_t = 0
        for index in 0..<Int(frames) where abs(input[index]) > threshold && stored < capacity {
            if cycleStart == nil {
                // This cycle's start by JACK's DLL (jack_get_cycle_times), put on CLOCK_MONOTONIC:
                // jackd2's clock is CLOCK_MONOTONIC_RAW, and the two are read back to back.
                var currentFrames: jack_nframes_t = 0, current: jack_time_t = 0, next: jack_time_t = 0
                var periodMicroseconds: Float = 0
                _ = jack_get_cycle_times(client, &currentFrames, &current, &next, &periodMicroseconds)
                var before = timespec(), after = timespec()
                clock_gettime(CLOCK_MONOTONIC, &before)
                let jackNow = Double(jack_get_time()) / 1e6
                clock_gettime(CLOCK_MONOTONIC, &after)
                let monotonic = (Double(before.tv_sec) + Double(after.tv_sec)) / 2 + (Double(before.tv_nsec) + Double(after.tv_nsec)) / 2e9
                cycleStart = Double(current) / 1e6 + (monotonic - jackNow)
                cycleJackStart = Double(current) / 1e6
                framePeriod = Double(next &- current) / 1e6 / Double(frames)
                cycleFrame = currentFrames
            }
            (cycleFrames[stored], cycleTimes[stored], framePeriods[stored]) = (cycleFrame, cycleStart!, framePeriod)
            cycleJackTimes[stored] = cycleJackStart
            levels[stored] = input[index]
            ownFrames[stored] = framesSeen + Int64(index)
            onsetPeriods[stored] = Int32(period)
            onsetOffsets[stored] = Int32(index)
            stored += 1
        }
        count.store(stored, ordering: .releasing)
        framesSeen += Int64(frames)
        periods.store(period + 1, ordering: .releasing)
    }

    public func connect(from source: String) throws {
        guard jack_connect(client, source, "\(String(cString: jack_get_client_name(client))):in") == 0 else {
            throw JackPeerFailure("cannot connect \(source) to the capture client")
        }
    }

    public var onsets: [Int64] { Array(UnsafeBufferPointer(start: ownFrames, count: count.load(ordering: .acquiring))) }
    /// Each onset's time on CLOCK_MONOTONIC (LSL's clock): the cycle JACK said was current when
    /// the ear ran (its start by JACK's DLL, read then), moved to the onset's true frame
    /// (`onsetJackFrames`: a late callback's cycle is the next one) at that cycle's frame length.
    public var onsetMonotonicSeconds: [Double] {
        onsetJackFrames.enumerated().map { index, frame in
            let frames = Int32(truncatingIfNeeded: UInt32(truncatingIfNeeded: frame) &- cycleFrames[index])
            return cycleTimes[index] + Double(frames) * framePeriods[index]
        }
    }
    /// Each onset's time on JACK's own clock (seconds), as `onsetMonotonicSeconds` but unmoved:
    /// under jackd2, CLOCK_MONOTONIC_RAW, Ableton Link's clock.
    public var onsetJackSeconds: [Double] {
        onsetJackFrames.enumerated().map { index, frame in
            let frames = Int32(truncatingIfNeeded: UInt32(truncatingIfNeeded: frame) &- cycleFrames[index])
            return cycleJackTimes[index] + Double(frames) * framePeriods[index]
        }
    }
    public var onsetLevels: [Float] { Array(UnsafeBufferPointer(start: levels, count: count.load(ordering: .acquiring))) }
    /// Onsets in JACK's frame time, placed by `PeriodLog` so a late callback cannot move one.
    public var onsetJackFrames: [Int64] {
        let total = periods.load(ordering: .acquiring)
        let found = count.load(ordering: .acquiring)
        return (0..<found).map { log.start(Int(onsetPeriods[$0]), of: total) + Int64(onsetOffsets[$0]) }
    }

    /// Where in JACK's frame time the ear was not run while it listened: an onset there was not heard.
    public var gaps: [Range<Int64>] { log.gaps(of: periods.load(ordering: .acquiring)) }
    /// Where the ear placed a period before its own reading of JACK's clock (`PeriodLog.movedBack`).
    public var movedBack: [Range<Int64>] { log.movedBack(of: periods.load(ordering: .acquiring)) }
    /// How far JACK's timeline moved on CLOCK_MONOTONIC while the ear listened (seconds):
    /// `PeriodLog.timelineShift`.
    public var timelineShift: Double { log.timelineShift(of: periods.load(ordering: .acquiring), rate: sampleRate) }

    /// The playback latency JACK reports for another client's port (`pulsejack:out_L`): frames
    /// from its buffer to where it is heard (the larger end of the range).
    public func playbackLatency(of port: String) -> Int? {
        latencyRange(of: port, JackPlaybackLatency)?.last
    }

    /// The capture latency JACK reports for another client's port (`pulsejack:out_L`): frames
    /// from what reached that port to its buffer, as `[min, max]`. Read through this client,
    /// whose registry has long seen the port (a fresh `jack_lsp` under PipeWire sometimes listed
    /// the port but could not open it, printing no latency).
    public func captureLatency(of port: String) -> [Int]? {
        latencyRange(of: port, JackCaptureLatency)
    }

    /// `[min, max]` of a port's latency in `mode`, through this client; nil for an unknown port.
    private func latencyRange(of port: String, _ mode: jack_latency_callback_mode_t) -> [Int]? {
        guard let handle = jack_port_by_name(client, port) else { return nil }
        var range = jack_latency_range_t()
        jack_port_get_latency_range(handle, mode, &range)
        return [Int(range.min), Int(range.max)]
    }

    /// JACK's frame time now (an estimate between cycles): e.g. the moment both ears are connected.
    public var frameTime: Int64 { Int64(jack_frame_time(client)) }

    /// Closes the JACK client (idempotent; also when the peer is released, before its buffers go).
    public func close() { owned.close() }

    deinit { owned.close() }
}
