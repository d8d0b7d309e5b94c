import Pose
import Renders
import OSC
import Foundation
import Inputs
import Realtime
import WebSurface
import Engine
import JackBackend
import Sensors
import LSL

extension LiveSession {
    /// What a live run is asked to do: `pulsejack run`'s options, parsed.
    public struct Configuration {
        public var preset: String
        /// A fixed tempo until a sensor says otherwise (else the preset's).
        public var bpm: Double?
        public var clientName = "pulsejack"
        /// Start a JACK server when none runs.
        public var startServer = false
        /// Seconds to wait for a JACK server to come up before giving up (0: none, fail at once).
        public var waitForServer = 0.0
        /// With `startServer`: a NetJACK2 slave joined to the studio's master instead of a local one.
        public var netSlave: JackServer.NetSlave?
        /// Asked while waiting (for a NetJACK2 master): true gives up.
        public var shouldStop: @Sendable () -> Bool = { false }
        /// nil: no OSC input.
        public var osc: OSCInput.Configuration? = OSCInput.Configuration()
        /// Record the output to this WAV file.
        public var record: String?
        /// Seconds of audio the recording's ring holds: a slow disk delays the file by up to this
        /// much before a period is lost (in freewheel, the process thread waits instead).
        public var recordBufferSeconds = 10.0
        public var timebase = JackClient.Timebase.off
        public var followTransport = false
        /// `--midi-clock`: 24 clocks a beat of the grid heart on `clock_out`.
        public var midiClock = false
        /// Ableton Link (`--link`, `--follow-link`, `--link-quantum`, `--link-start-stop`).
        public var link: LinkSession.Settings?
        /// Write every applied control message to this session log.
        public var recordSession: String?
        /// Write every fired voice as JSON lines.
        public var eventsOut: String?
        /// Replay these session files live, from now (`[PERFORMER=]FILE` each).
        public var replay: [String] = []
        /// Connect out_L/out_R to the system playback ports.
        public var connectToPlayback = false
        public var connections: [ConnectRequest] = []
        /// Under a session manager (it restores connections itself).
        public var sessionManager: SessionManagerLink?
        /// Keep a live picture (`view`) for the web page.
        public var liveView = false
        /// Serve the live page at this address (a live picture is kept), with this token.
        public var web: WebAddress?
        public var webToken: String?
        /// Seconds per revolution of the live picture's radial trace.
        public var secondsPerRevolution = 10.0
        /// Ports per voice or group (`run --outputs`), and per voice MIDI (`run --midi-out`);
        /// nil: as the preset says.
        public var outputs: OutputLayout.Mode?
        public var midiOut: OutputLayout.MIDIMode?
        /// The first performer's heart and EEG sensors (`--heart ble[:…]`, `--eeg muse[:…]`), over the preset's.
        public var heart: String?
        public var eeg: String?
        /// The Bluetooth adapter the sensors are read through (nil: the first).
        public var bleAdapter: String?
        /// Schedule a sensor's next beats from its RR intervals.
        public var predictBeats = false
        /// Seconds from a Polar ECG's R-peak to its beat (without prediction).
        public var ecgDelay = 1.0
        /// A hosted plugin's share of the period, in percent: one that takes longer in
        /// `PluginGuard.overrunTrip` periods of `overrunWindow` is bypassed (0: never).
        public var pluginShare = 50
        /// Every hosted plugin in a process of its own (`--isolate-plugins`).
        public var isolatePlugins = false
        /// Open the LSL outlets (`--lsl`): markers, hearts, modulation sources.
        public var lsl = false
        /// LSL marker streams whose `voice/NAME` and `region/NAME` play (`--lsl-markers`).
        public var lslMarkers: [String] = []
        /// Seconds from an LSL marker's or signal's time stamp to its frame (`--lsl-delay`).
        public var lslDelay = 0.05
        /// Camera pose (`--pose camera[:/dev/videoN]|video:FILE`), over the preset's `sensors.pose`.
        public var pose: String?
        /// Seconds from a camera frame's capture to its sound (`--pose-delay`).
        public var poseDelay = PoseInput.defaultDelay
        /// Inference threads for the pose models (`--pose-threads`).
        public var poseThreads = 1

        public init(preset: String) { self.preset = preset }

        /// `--pose` and its delay and threads: a source pulsejack can name, and LiteRT and the
        /// models where a run needs them (without them: EX_UNAVAILABLE, as without liblsl).
        func checkPose() throws {
            if !(poseDelay.isFinite && (0.01...2).contains(poseDelay)) {
                throw OptionProblem("--pose-delay \(poseDelay) is outside 0.01…2 s")
            }
            if !(1...8).contains(poseThreads) { throw OptionProblem("--pose-threads \(poseThreads) is outside 1…8") }
            guard let pose else { return }
            do { _ = try PoseSourceSpec.parse(pose) } catch { throw OptionProblem("--pose: \(error)") }
            do {
                try LiteRTLibrary.load()
                _ = try PoseModelFiles.find()
            } catch {
                throw OptionProblem("--pose: \(error)", unavailable: true)
            }
        }

        /// Throws the first value a run cannot play with.
        public func check() throws {
            if let bpm, !HeartbeatClock.accepts(bpm: bpm) { throw OptionProblem("--bpm \(bpm) is not a heart rate (above 0, at most 300)") }
            if followTransport && timebase != .off {
                throw OptionProblem("--follow-transport and --timebase exclude each other: follow the transport, or lead it")
            }
            if let link {
                if link.follows && followTransport {
                    throw OptionProblem("--follow-link and --follow-transport exclude each other: the grid follows one tempo")
                }
                if !(link.quantum.isFinite && (1...16).contains(link.quantum)) {
                    throw OptionProblem("--link-quantum \(link.quantum) is outside 1…16 (beats in the bar peers share)")
                }
            }
            if let latency = osc?.detectionLatency, !(latency.isFinite && (0...0.5).contains(latency)) {
                throw OptionProblem("--beat-latency \(latency) is outside 0…0.5 s")
            }
            if let webToken, webToken.isEmpty || webToken.contains(where: { !$0.isASCII || $0.isWhitespace || $0 == "&" || $0 == "#" }) {
                throw OptionProblem("--web-token must be non-empty ASCII without spaces, & or #")
            }
            try OptionProblem.checkRevolution(secondsPerRevolution)
            if !(0...100).contains(pluginShare) {
                throw OptionProblem("--plugin-share \(pluginShare) is outside 0…100 (percent of the period; 0: no limit)")
            }
            try checkPose()
            if !(ecgDelay.isFinite && (0.3...3).contains(ecgDelay)) {
                throw OptionProblem("--ecg-delay \(ecgDelay) is outside 0.3…3 s (an H10 sends half a second of ECG at a time)")
            }
            for (option, spec, role) in [("--heart", heart, SensorRole.heart), ("--eeg", eeg, .eeg)] {
                guard let spec else { continue }
                do {
                    if LSLStreamQuery.names(spec) {
                        _ = try LSLStreamQuery(parsing: spec, role: role == .heart ? .heart : .eeg)
                    } else {
                        _ = try SensorRequest(parsing: spec, kinds: SensorKinds.kinds(role))
                    }
                } catch {
                    throw OptionProblem(option + ": \(error)")
                }
            }
            for name in lslMarkers where name.isEmpty || name.contains("'") {
                throw OptionProblem("--lsl-markers '\(name)' is not a stream's name")
            }
            if !(lslDelay.isFinite && (0...2).contains(lslDelay)) {
                throw OptionProblem("--lsl-delay \(lslDelay) is outside 0…2 s")
            }
            if lsl || !lslMarkers.isEmpty || [heart, eeg].contains(where: { $0.map(LSLStreamQuery.names) ?? false }) {
                do { try LSLLibrary.load() } catch { throw OptionProblem("LSL: \(error)", unavailable: true) }
            }
            guard recordBufferSeconds.isFinite, (0.05...600).contains(recordBufferSeconds) else {
                throw OptionProblem("--record-buffer \(recordBufferSeconds) is outside 0.05…600 s")
            }
            if let netSlave {
                guard (1...10).contains(netSlave.latency) else { throw OptionProblem("--net-latency \(netSlave.latency) is outside 1…10 periods") }
                if let master = netSlave.master, master.isEmpty || master.contains(where: { $0.isWhitespace }) {
                    throw OptionProblem("--net-master '\(master)' is not an address")
                }
            }
        }

        /// Whether the run keeps a live picture (for the page, here or in a test).
        var keepsView: Bool { liveView || web != nil || lsl }

        /// Whether this engine leads the shared grid or follows it.
        /// Where the grid heart's tempo comes from: `link` (`--follow-link`), `transport`
        /// (`--follow-transport`), else `heart`.
        var tempoSource: String { link?.follows == true ? "link" : followTransport ? "transport" : "heart" }
        var gridRole: LiveStatus.GridRole { followTransport ? .following : timebase != .off ? .leading : .none }
    }
}
