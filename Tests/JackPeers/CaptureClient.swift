import Atomics
import CJack
import Foundation

/// A second JACK client that records where impulses arrive on its input: the independent ear
/// of the precision and latency rows. Onsets are kept as the client's own frame count since
/// activation and as JACK's frame time.
public final class CaptureClient {
    public let client: OpaquePointer
    let port: OpaquePointer
    let capacity = 1 << 20
    let ownFrames: UnsafeMutablePointer<Int64>
    let jackFrames: UnsafeMutablePointer<Int64>
    let levels: UnsafeMutablePointer<Float>
    let count = ManagedAtomic<Int>(0)
    public private(set) var framesSeen: Int64 = 0
    let periods = ManagedAtomic<Int>(0)

    /// Samples louder than `threshold` count as onsets.
    public let threshold: Float

    public init(name: String, threshold: Float = 0.5) throws {
        self.threshold = threshold
        var status = jack_status_t(rawValue: 0)
        guard let client = pj_client_open(name, JackNoStartServer, &status, nil) else { throw JackPeerFailure("capture client: no server") }
        self.client = client
        port = jack_port_register(client, "in", JACK_DEFAULT_AUDIO_TYPE, UInt(JackPortIsInput.rawValue), 0)!
        ownFrames = .allocate(capacity: capacity)
        jackFrames = .allocate(capacity: capacity)
        levels = .allocate(capacity: capacity)
        jack_set_process_callback(client, { frames, context in
            Unmanaged<CaptureClient>.fromOpaque(context!).takeUnretainedValue().process(frames)
            return 0
        }, Unmanaged.passUnretained(self).toOpaque())
        guard jack_activate(client) == 0 else { throw JackPeerFailure("capture client: activate failed") }
    }

    private func process(_ frames: jack_nframes_t) {
        let input = jack_port_get_buffer(port, frames).assumingMemoryBound(to: Float.self)
        let periodStart = Int64(jack_last_frame_time(client))
        var stored = count.load(ordering: .relaxed)
        for index in 0..<Int(frames) where abs(input[index]) > threshold && stored < capacity {
            levels[stored] = input[index]
            ownFrames[stored] = framesSeen + Int64(index)
            jackFrames[stored] = periodStart + Int64(index)
            stored += 1
        }
        count.store(stored, ordering: .releasing)
        framesSeen += Int64(frames)
        periods.wrappingIncrement(ordering: .relaxed)
    }

    public func connect(from source: String) throws {
        guard jack_connect(client, source, "\(String(cString: jack_get_client_name(client))):in") == 0 else {
            throw JackPeerFailure("cannot connect \(source) to the capture client")
        }
    }

    public var onsets: [Int64] { Array(UnsafeBufferPointer(start: ownFrames, count: count.load(ordering: .acquiring))) }
    public var onsetLevels: [Float] { Array(UnsafeBufferPointer(start: levels, count: count.load(ordering: .acquiring))) }
    public var onsetJackFrames: [Int64] { Array(UnsafeBufferPointer(start: jackFrames, count: count.load(ordering: .acquiring))) }

    public func close() { jack_client_close(client) }
}
