import Atomics
import CJack
import Control
import Foundation

/// The JACK client: stereo outputs `out_L`/`out_R`, a MIDI input `midi_in` and a stereo audio
/// input `in_L`/`in_R` (for dense convolution), with the engine's
/// process path as its process callback. Control thread, except where marked.
public final class JackClient: @unchecked Sendable {
    public enum Failure: Error, CustomStringConvertible {
        case noServer(server: String)
        case openFailed(status: UInt32)
        case portFailed(String)
        case activateFailed

        public var description: String {
            switch self {
            case .noServer(let server):
                return "no JACK server '\(server)' is running. Start one (e.g. `jackd -d alsa`, or without a sound card " +
                    "`jackd -d dummy -r 48000 -p 256`), or run with --start-server"
            case .openFailed(let status):
                return String(format: "could not open a JACK client (status 0x%x)", status)
            case .portFailed(let name):
                return "could not register the JACK port '\(name)'"
            case .activateFailed:
                return "could not activate the JACK client"
            }
        }
    }

    private var handle: OpaquePointer?
    var client: OpaquePointer { handle! }
    public let name: String
    public let sampleRate: Int
    public let bufferSize: Int
    private var host: ProcessHost?
    /// Set (like a signal handler would) when the server shuts the client down.
    public let serverGone = ManagedAtomic<Bool>(false)
    private let shutdownReason = UnsafeMutablePointer<CChar>.allocate(capacity: 256)

    /// The server this process talks to: `JACK_DEFAULT_SERVER`, or "default".
    public static var serverName: String {
        ProcessInfo.processInfo.environment["JACK_DEFAULT_SERVER"].flatMap { $0.isEmpty ? nil : $0 } ?? "default"
    }

    /// libjack prints its own connection errors on stderr; pulsejack reports failures itself, in
    /// one line. Call once, before opening clients.
    public static func silenceLibraryMessages() {
        jack_set_error_function { _ in }
        jack_set_info_function { _ in }
    }

    /// Opens a client on the running server; never starts one.
    public init(name: String) throws {
        var status = jack_status_t(rawValue: 0)
        guard let client = pj_client_open(name, JackNoStartServer, &status, nil) else {
            if status.rawValue & JackServerFailed.rawValue != 0 { throw Failure.noServer(server: Self.serverName) }
            throw Failure.openFailed(status: status.rawValue)
        }
        handle = client
        self.name = String(cString: jack_get_client_name(client))
        sampleRate = Int(jack_get_sample_rate(client))
        bufferSize = Int(jack_get_buffer_size(client))
        shutdownReason.initialize(repeating: 0, count: 256)
    }

    deinit {
        close()
        shutdownReason.deallocate()
    }

    /// Deactivates (if active) and closes the client; later calls do nothing.
    public func close() {
        guard let handle else { return }
        jack_client_close(handle)
        self.handle = nil
    }

    /// Why the server shut the client down, once `serverGone` is set.
    public var shutdownMessage: String { String(cString: shutdownReason) }

    /// Registers ports, installs the callbacks, warms the engine and activates. With
    /// `periodTimings`, the process thread pushes each period's cost (nanoseconds) into it.
    public func activate(engine: RealtimeEngine, periodTimings: SPSCRing<UInt64>? = nil) throws {
        func register(_ port: String, _ type: String, _ flags: JackPortFlags) throws -> OpaquePointer {
            guard let handle = jack_port_register(client, port, type, UInt(flags.rawValue), 0) else {
                throw Failure.portFailed(port)
            }
            return handle
        }
        let host = ProcessHost(engine: engine,
                               left: try register("out_L", JACK_DEFAULT_AUDIO_TYPE, JackPortIsOutput),
                               right: try register("out_R", JACK_DEFAULT_AUDIO_TYPE, JackPortIsOutput),
                               midiIn: try register("midi_in", JACK_DEFAULT_MIDI_TYPE, JackPortIsInput),
                               inLeft: try register("in_L", JACK_DEFAULT_AUDIO_TYPE, JackPortIsInput),
                               inRight: try register("in_R", JACK_DEFAULT_AUDIO_TYPE, JackPortIsInput),
                               client: self, periodTimings: periodTimings?.producer)
        self.host = host
        engine.warmUp()
        let context = Unmanaged.passUnretained(host).toOpaque()
        jack_set_process_callback(client, { frames, context in
            Unmanaged<ProcessHost>.fromOpaque(context!).takeUnretainedValue().process(frames: frames)
            return 0
        }, context)
        jack_set_xrun_callback(client, { context in
            Unmanaged<ProcessHost>.fromOpaque(context!).takeUnretainedValue().engine.counters.xruns
                .wrappingIncrement(ordering: .relaxed)
            return 0
        }, context)
        jack_on_info_shutdown(client, { _, reason, context in
            // Runs like a signal handler: copy the reason into preallocated memory and set a flag.
            let client = Unmanaged<ProcessHost>.fromOpaque(context!).takeUnretainedValue().owner!
            if let reason { strncpy(client.shutdownReason, reason, 255) }
            client.serverGone.store(true, ordering: .releasing)
        }, context)
        guard jack_activate(client) == 0 else { throw Failure.activateFailed }
    }

    /// Full names of our output ports.
    public var outputPortNames: [String] { ["\(name):out_L", "\(name):out_R"] }

    /// Connects out_L/out_R to the first two physical playback ports; returns what it connected.
    @discardableResult
    public func connectToPlayback() -> [(String, String)] {
        guard let ports = jack_get_ports(client, nil, JACK_DEFAULT_AUDIO_TYPE,
                                         UInt(JackPortIsPhysical.rawValue | JackPortIsInput.rawValue)) else { return [] }
        defer { jack_free(ports) }
        var playback: [String] = []
        var index = 0
        while let port = ports[index] { playback.append(String(cString: port)); index += 1 }
        var made: [(String, String)] = []
        for (source, destination) in zip(outputPortNames, playback) where jack_connect(client, source, destination) == 0 {
            made.append((source, destination))
        }
        return made
    }

    public func deactivate() {
        jack_deactivate(client)
    }

    /// Asks the server to run the graph as fast as possible (JACK's freewheel mode) or to return
    /// to real time. Control thread.
    public func setFreewheel(_ on: Bool) {
        jack_set_freewheel(client, on ? 1 : 0)
    }
}

/// What the process callback reaches through its context pointer: the engine and our ports.
final class ProcessHost {
    let engine: RealtimeEngine
    let left, right, midiIn, inLeft, inRight: OpaquePointer
    weak var owner: JackClient?
    let periodTimings: SPSCRing<UInt64>.Producer?

    init(engine: RealtimeEngine, left: OpaquePointer, right: OpaquePointer, midiIn: OpaquePointer,
         inLeft: OpaquePointer, inRight: OpaquePointer, client: JackClient, periodTimings: SPSCRing<UInt64>.Producer?) {
        self.inLeft = inLeft
        self.inRight = inRight
        self.engine = engine
        self.periodTimings = periodTimings
        self.left = left
        self.right = right
        self.midiIn = midiIn
        owner = client
    }

    /// Real-time safe. The JACK process callback.
    func process(frames: jack_nframes_t) {
        let started = periodTimings == nil ? 0 : Self.monotonicNanoseconds()
        let outLeft = jack_port_get_buffer(left, frames).assumingMemoryBound(to: Float.self)
        let outRight = jack_port_get_buffer(right, frames).assumingMemoryBound(to: Float.self)
        let midi = jack_port_get_buffer(midiIn, frames)
        let inputLeft = jack_port_get_buffer(inLeft, frames).assumingMemoryBound(to: Float.self)
        let inputRight = jack_port_get_buffer(inRight, frames).assumingMemoryBound(to: Float.self)
        engine.process(frames: Int(frames), left: outLeft, right: outRight, midiIn: midi,
                       inputLeft: inputLeft, inputRight: inputRight)
        if let periodTimings { periodTimings.push(Self.monotonicNanoseconds() &- started) }
    }

    /// Real-time safe (clock_gettime on CLOCK_MONOTONIC is a vDSO call; it never blocks).
    @inline(__always)
    static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
    }
}
