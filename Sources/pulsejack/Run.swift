import Renders
import OSC
import Runs
import ArgumentParser
import Pose
import Presets
import WebSurface
import Engine
import JackBackend

struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play live as a JACK client until SIGINT, SIGTERM or SIGHUP.",
        discussion: """
            Joins the running JACK server (the one JACK_DEFAULT_SERVER names). Ports: out_L, out_R, midi_out, midi_in, in_L, in_R; \
            with --outputs voices|groups a pair per voice or group, with --midi-out voices a MIDI port per voice.
            When the server stops, pulsejack keeps its state and reconnects when one is back. Under a session manager \
            (NSM_URL set) it waits for the manager's open, takes its client id as the JACK name, saves there, and \
            leaves connections to the manager. SIGINT, SIGTERM and SIGHUP (a closed terminal) all stop it the same way: \
            the recording is finished and closed, and the summary printed.
            """)

    @Option(help: presetHelp, completion: Completions.presets) var preset: String = ShippedPresets.defaultPreset
    @Option(help: "A fixed tempo until a sensor says otherwise (above 0, at most 300).") var bpm: Double?
    @Option(help: "The JACK client name.") var name: String = "pulsejack"
    @Flag(help: "Connect out_L/out_R to the system playback ports.") var connect = false
    @Option(name: .customLong("connect-port"), help: "Connect one of our ports to another's, as OURS=THEIRS (e.g. midi_out=Hydrogen:midi_in); repeatable.") var connectPorts: [String] = []
    @Flag(name: .customLong("start-server"), help: ArgumentHelp("Start a JACK server when none runs (a sound card's driver, else the dummy driver); `--start-server net`: a NetJACK2 slave server joined to the studio's master (see --net-master), stopped on exit.", valueName: "net")) var startServer = false
    /// `--start-server net`, as `PulseJack.main` rewrites it.
    @Flag(name: .customLong("start-net-server"), help: .hidden) var startNetServer = false
    @Option(name: .customLong("wait-for-server"), help: ArgumentHelp("Wait this long for a JACK server (jackd or PipeWire) to come up, as at boot, before giving up (0: fail at once when none runs).", valueName: "SECONDS")) var waitForServer = 0.0
    @Option(name: .customLong("net-master"), help: "With --start-server net: the NetJACK2 master's address (default: found by multicast, 225.3.19.154).") var netMaster: String?
    @Option(name: .customLong("net-latency"), help: "With --start-server net: NetJACK2's network latency in periods, 1…10.") var netLatency = 2
    @Option(name: .customLong("osc-port"), help: "UDP port for OSC input (0: any free port, printed at start).") var oscPort: UInt16 = 9000
    @Option(name: .customLong("osc-bind"), help: "Address the OSC port listens on; 0.0.0.0 (or ::) opens it to the network.") var oscBind = "127.0.0.1"
    @Option(name: .customLong("osc-allow"), help: "Who gets OSC replies (/pulse/status) and meters (/meter/subscribe), as a CIDR range (192.168.1.0/24) or one address; repeatable. Default: loopback only.") var oscAllow: [String] = []
    @Flag(name: .customLong("no-osc"), help: "Do not listen for OSC.") var noOSC = false
    @Option(help: "Record the output to this WAV file (32-bit float), every frame of the run.") var record: String?
    @Option(name: .customLong("record-buffer"), help: "Seconds of audio the recording's ring holds between the process thread and the disk (0.05…600).") var recordBuffer: Double = 10
    @Flag(help: "Be the JACK transport's timebase master: the heart's BPM and bar/beat/tick, unless another master exists.") var timebase = false
    @Flag(name: .customLong("timebase-force"), help: "Be the timebase master even if another client is.") var timebaseForce = false
    @Flag(name: .customLong("follow-transport"), help: "Take the tempo from the JACK transport's master instead of the heart.") var followTransport = false
    @Flag(help: "Join an Ableton Link session (on every network interface that is up) and lead its tempo with the grid heart, whose beats fall on the session's.") var link = false
    @Flag(name: .customLong("follow-link"), help: "Join an Ableton Link session and take its tempo and beats for the grid heart (heartbeat voices still fire on the hearts).") var followLink = false
    @Option(name: .customLong("link-quantum"), help: "With --link or --follow-link: beats in the bar the session's peers share, 1…16 (a peer's downbeat is pulsejack's bar).") var linkQuantum = 4.0
    @Flag(name: .customLong("link-start-stop"), help: "With --link or --follow-link: start and stop the JACK transport with the session, and the session with it.") var linkStartStop = false
    @Flag(name: .customLong("midi-clock"), help: "Send MIDI clock on clock_out: 24 clocks a beat of the grid heart, each at its frame, following whichever tempo leads (heart, transport or Link), with Start, Stop, Continue and Song Position Pointer at the transport's changes.") var midiClock = false
    @Option(name: .customLong("record-session"), help: "Write every control message the engine applies, with its frame, to this session log (re-render it with render --session).") var recordSession: String?
    @Option(name: .customLong("events-out"), help: "Write every fired voice as one JSON object per line.") var eventsOut: String?
    @Option(help: ArgumentHelp("Replay a session (HealthKit JSON, CSV, or a session log) live, from now; with the preset's performers one per performer as NAME=FILE (repeatable).", valueName: "[PERFORMER=]FILE")) var replay: [String] = []
    @Option(help: ArgumentHelp("Read the heart from a Bluetooth LE strap or watch (ble: the Heart Rate Service's RR intervals) or a Polar H10's ECG (polar-ecg: its R-peaks): the first one found, or the one with that address or name; or from a Lab Streaming Layer stream (lsl:NAME or lsl:type=ECG: an ECG at any rate, a PPG, or RR/IBI intervals). Over the preset's sensors:.", valueName: "ble|polar-ecg[:ADDRESS|NAME]|lsl:NAME")) var heart: String?
    @Option(name: .customLong("ecg-delay"), help: ArgumentHelp("With --heart polar-ecg (no --predict-beats) or lsl:…: seconds from each R-peak (or upstroke, or interval's end) to its beat, 0.3…3.", valueName: "SECONDS")) var ecgDelay: Double = 1.0
    @Option(help: ArgumentHelp("Read the EEG from a Muse 2 or S headband over Bluetooth LE, or raw EEG from a Lab Streaming Layer stream (lsl:Muse is muse-lsl's): band powers computed from it feed the mood as /muse/elements/<band>_absolute does (over the preset's sensors:).", valueName: "muse[:ADDRESS|NAME]|lsl:NAME")) var eeg: String?
    @Flag(help: "Open Lab Streaming Layer outlets named after the client: Markers (beat/…, voice/…, region/…, mood/…, track/…) stamped with when each is heard, a heart stream per performer (bpm, rr_ms, rmssd_ms, sdnn_ms) and the modulation sources. Needs liblsl (make deps).") var lsl = false
    @Option(name: .customLong("lsl-markers"), help: ArgumentHelp("Play an LSL marker stream: its voice/NAME and region/NAME strings fire at their time stamps' frames; repeatable.", valueName: "NAME")) var lslMarkers: [String] = []
    @Option(name: .customLong("lsl-delay"), help: ArgumentHelp("Seconds from an LSL marker's or modulation sample's time stamp to its sound, 0…2: their spacing is kept while the network's jitter stays under it.", valueName: "SECONDS")) var lslDelay: Double = 0.05
    @Option(help: ArgumentHelp("Play Tambour's drum regions with a body seen by a camera (camera: /dev/video0) or in a video file played at its own rate: BlazePose finds the fists, relative to the hip, in process (needs LiteRT and the models: make deps). Over the preset's sensors.pose.", valueName: "camera[:/dev/videoN]|video:FILE")) var pose: String?
    @Option(name: .customLong("pose-delay"), help: ArgumentHelp("Seconds from a camera frame's capture to its sound, 0.01…2: inference's jitter never reaches the beat; a hit known later plays at once and is counted late.", valueName: "SECONDS")) var poseDelay: Double = PoseInput.defaultDelay
    @Option(name: .customLong("pose-threads"), help: "Inference threads for the pose models, 1…8.") var poseThreads = 1
    @Option(name: .customLong("ble-adapter"), help: ArgumentHelp("The Bluetooth adapter the sensors are read through (default: the first).", valueName: "NAME|ADDRESS")) var bleAdapter: String?
    @Option(name: .customLong("plugin-share"), help: ArgumentHelp("A hosted plugin's share of the period in percent: one that takes longer in 3 periods of 256 is bypassed and named (0: no limit).", valueName: "PERCENT")) var pluginShare = 50
    @Flag(name: .customLong("isolate-plugins"), help: "Host every LV2 plugin in a process of its own: a crash or a hang silences that plugin until its process restarts (within a second), and nothing else.") var isolatePlugins = false
    @Flag(name: .customLong("predict-beats"), help: "Schedule each detected beat's successor from recent intervals (PPG, /pulse/beat, a strap's RR intervals), so sound lands on the beat.") var predictBeats = false
    @Option(name: .customLong("beat-latency"), help: "With --predict-beats: seconds between a beat and its detection (sensor, radio, detector), 0…0.5.") var beatLatency: Double = 0.06
    @Option(help: ArgumentHelp("Serve the live page (heart, radial meters, voice switches and faders, regions, mood, status) at [ADDR:]PORT; ADDR defaults to 127.0.0.1, port 0 picks one. Beyond loopback the page needs a token (printed).", valueName: "[ADDR:]PORT")) var web: String?
    @Option(name: .customLong("web-token"), help: "The token the page needs (default: a random one when --web is beyond loopback; none on loopback).") var webToken: String?
    @Option(name: .customLong("plot-revolution"), help: "Seconds per revolution of the page's radial trace.") var plotRevolution: Double = 10
    @Option(help: ArgumentHelp("Ports besides out_L/out_R, for a DAW: master (none), voices (<voice>_L/<voice>_R per voice) or groups (<group>_L/<group>_R per group: of the voices); each carries its voices after their gain, pan and inserts, and the master still carries the sum. Default: the preset's outputs:, else master.", valueName: "master|voices|groups")) var outputs: String?
    @Option(name: .customLong("midi-out"), help: ArgumentHelp("combined (midi_out only) or voices (also a MIDI port <voice>_midi per voice). Default: the preset's midi_out:, else combined.", valueName: "combined|voices")) var midiOut: String?

    func validate() throws {
        do { try configuration().check() } catch let problem as OptionProblem { throw refusal(problem) }
    }

    /// The run these options ask for; a value that does not parse is refused by its option.
    func configuration() throws -> LiveSession.Configuration {
        func parsed<T>(_ text: String, _ parse: (String) -> T?, _ refusal: String) throws -> T {
            guard let value = parse(text) else { throw ValidationError(refusal) }
            return value
        }
        if !startNetServer && (netMaster != nil || netLatency != 2) {
            throw ValidationError("--net-master and --net-latency go with --start-server net")
        }
        var configuration = LiveSession.Configuration(preset: preset)
        (configuration.bpm, configuration.clientName, configuration.startServer) = (bpm, name, startServer || startNetServer)
        guard waitForServer >= 0, waitForServer <= 86_400 else { throw ValidationError("--wait-for-server takes 0 to 86400 seconds") }
        configuration.waitForServer = waitForServer
        if startNetServer { configuration.netSlave = JackServer.NetSlave(master: netMaster, latency: netLatency, name: name) }
        if noOSC {
            configuration.osc = nil
        } else if var osc = configuration.osc {
            (osc.port, osc.bind, osc.predictBeats, osc.detectionLatency) = (oscPort, oscBind, predictBeats, beatLatency)
            osc.replyTo = try AddressRange.loopback + oscAllow.map {
                try parsed($0, AddressRange.init, "--osc-allow \($0) is not an address or CIDR range (e.g. 192.168.1.0/24, ::1)")
            }
            configuration.osc = osc
        }
        (configuration.heart, configuration.eeg, configuration.bleAdapter, configuration.ecgDelay) = (heart, eeg, bleAdapter, ecgDelay)
        (configuration.lsl, configuration.lslMarkers, configuration.lslDelay) = (lsl, lslMarkers, lslDelay)
        (configuration.pose, configuration.poseDelay, configuration.poseThreads) = (pose, poseDelay, poseThreads)
        (configuration.pluginShare, configuration.isolatePlugins, configuration.predictBeats) = (pluginShare, isolatePlugins, predictBeats)
        (configuration.record, configuration.recordBufferSeconds) = (record, recordBuffer)
        configuration.timebase = timebaseForce ? .takeOver : timebase ? .conditional : .off
        (configuration.followTransport, configuration.recordSession, configuration.eventsOut) = (followTransport, recordSession, eventsOut)
        (configuration.replay, configuration.connectToPlayback, configuration.midiClock) = (replay, connect, midiClock)
        if link || followLink {
            configuration.link = LinkSession.Settings(follows: followLink, quantum: linkQuantum, startStop: linkStartStop)
        } else if linkStartStop || linkQuantum != 4 {
            throw ValidationError("--link-start-stop and --link-quantum need --link or --follow-link")
        }
        configuration.connections = try connectPorts.map {
            try parsed($0, ConnectRequest.init, "--connect-port \($0) is not OURS=THEIRS (e.g. out_L=system:playback_1)")
        }
        configuration.web = try web.map { try parsed($0, WebAddress.init, "--web \($0) is not [ADDR:]PORT (e.g. 8080, 0.0.0.0:8080, [::1]:8080)") }
        (configuration.webToken, configuration.secondsPerRevolution) = (webToken, plotRevolution)
        configuration.outputs = try outputs.map { try parsed($0, OutputLayout.Mode.init, "--outputs \($0) is not master, voices or groups") }
        configuration.midiOut = try midiOut.map { try parsed($0, OutputLayout.MIDIMode.init, "--midi-out \($0) is not combined or voices") }
        return configuration
    }

    func run() throws {
        StandardOutput.lineBuffered()
        let signals = StopSignals()
        let outcome: LivePerformance.Outcome
        do {
            outcome = try LivePerformance.run(try configuration(), signals: signals, say: { print($0) }, warn: { warn($0) },
                                              rejections: { warn(rejections: $0, total: $1) })
        } catch let refusal as ValidationError {
            throw refusal
        } catch {
            throw fail(error)
        }
        guard case .played(_, let closeAbandoned) = outcome else { return }
        reportHeldBackWarnings()
        if closeAbandoned { LiveSession.exitLeavingTheClient() }
    }
}
