import CJack
import Foundation
import Realtime
import Engine

/// What a client is before it opens: the options it is asked for, the ports it registers and
/// their names, the names JACK refuses, the server it talks to, and how opening it fails.
extension JackClient {
    public enum Failure: Error, CustomStringConvertible {
        case noServer(server: String)
        case openFailed(status: UInt32)
        case portFailed(String)
        case activateFailed
        case badName(String)

        public var description: String {
            switch self {
            case .noServer(let server) where JackServerIdentity.current.isPipeWire:
                return "PipeWire's JACK (\(JackServerIdentity.current.product)) found no PipeWire to join ('\(server)' is not used there). "
                    + "Start PipeWire (e.g. `systemctl --user start pipewire`, or headless `pipewire &`)"
            case .noServer(let server):
                return "no JACK server '\(server)' is running. Start one (e.g. `jackd -d alsa`, or without a sound card " +
                    "`jackd -d dummy -r 48000 -p 256`), or run with --start-server"
            case .openFailed(let status):
                return String(format: "could not open a JACK client (status 0x%x)", status)
            case .portFailed(let name):
                return "could not register the JACK port '\(name)'"
            case .activateFailed:
                return "could not activate the JACK client"
            case .badName(let why):
                return why
            }
        }
    }

    /// Who owns the transport's timebase.
    public enum Timebase: Sendable {
        case off
        /// Become master unless another client already is.
        case conditional
        /// Become master even if another client is.
        case takeOver
    }

    /// What a live client does besides rendering.
    public struct Options {
        public var timebase = Timebase.off
        /// Take the tempo from an external transport master instead of the heart.
        public var followTransport = false
        public var meter: OutputMeter?
        public var recorder: OutputRecorder?
        /// The process thread pushes each period's cost (nanoseconds) into it.
        public var periodTimings: SPSCRing<UInt64>?
        /// The process thread pushes it back while cycles run (a stall watch with no timer).
        public var cycleDeadline: CycleDeadline?
        /// Ports per voice or group, and per voice MIDI (the engine configured to match).
        public var outputs = OutputLayout.masterOnly
        /// Ableton Link's peer (`--link`): the grid heart on the session's beats.
        public var link: LinkSession?
        /// `--midi-clock`: `clock_out`, 24 clocks a beat of the grid heart and the transport's changes.
        public var midiClock = false
        public init() {}
    }

    typealias Port = (name: String, type: String, output: Bool, pretty: String)
    /// Our ports: (name, JACK type, flags, pretty name). Stable names, so saved connections hold.
    static let ports: [Port] = [
        ("out_L", JACK_DEFAULT_AUDIO_TYPE, true, "Out Left"),
        ("out_R", JACK_DEFAULT_AUDIO_TYPE, true, "Out Right"),
        ("midi_out", JACK_DEFAULT_MIDI_TYPE, true, "MIDI Out (fired voices)"),
        ("midi_in", JACK_DEFAULT_MIDI_TYPE, false, "MIDI In (pads, controllers)"),
        ("in_L", JACK_DEFAULT_AUDIO_TYPE, false, "Convolution In Left"),
        ("in_R", JACK_DEFAULT_AUDIO_TYPE, false, "Convolution In Right"),
    ]
    /// The shared beat grid's port: out for the timebase, in for a follower (`SharedGrid`).
    static let gridOut: Port = ("grid_out", JACK_DEFAULT_MIDI_TYPE, true, "Grid Out (beats for followers)")
    static let gridIn: Port = ("grid_in", JACK_DEFAULT_MIDI_TYPE, false, "Grid In (the timebase's beats)")
    /// `--midi-clock`'s port.
    static let clockOut: Port = ("clock_out", JACK_DEFAULT_MIDI_TYPE, true, "MIDI Clock Out (the grid heart's tempo)")

    /// The ports these options register, in this order: ours, the grid's when leading or
    /// following, the MIDI clock's, each bus's pair, each voice's MIDI port (`ProcessHost` takes them so).
    static func ports(for options: Options) -> [Port] {
        ports + (options.timebase != .off ? [gridOut] : []) + (options.followTransport ? [gridIn] : []) + (options.midiClock ? [clockOut] : [])
            + options.outputs.audioPorts.map { ($0.name, JACK_DEFAULT_AUDIO_TYPE, true, $0.pretty) }
            + options.outputs.midiPorts.map { ($0.name, JACK_DEFAULT_MIDI_TYPE, true, $0.pretty) }
    }

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

    /// Why `name` cannot be a JACK client's name on `server`, or nil when it can. JACK's rules:
    /// not empty, no ':' (it separates client and port in a port's full name), shorter than
    /// `jack_client_name_size() − 1` bytes (jackd2 1.9.21 reports 65 and refuses 64 bytes). And never the server's own name: such a client
    /// takes the server's socket path, and no other client can connect after it (jackd2 1.9.21).
    /// The server-name rule is jackd2's alone: PipeWire has no server socket to take, and a
    /// client there may well be called "default".
    public static func problem(withName name: String, server: String = serverName, on identity: JackServerIdentity = .current) -> String? {
        let limit = Int(jack_client_name_size()) - 2
        if name.isEmpty { return "the JACK client name is empty" }
        if name.contains(":") { return "the JACK client name '\(name)' contains ':', which JACK uses between client and port names" }
        if name.utf8.count > limit {
            return "the JACK client name is \(name.utf8.count) bytes long; JACK allows at most \(limit)"
        }
        if name == server && !identity.isPipeWire {
            return "the JACK client name '\(name)' is the server's own name: that would cut every other client off the server. Choose another --name"
        }
        return nil
    }
}
