import CJack
import Foundation
import JackPeers

/// Three hosts on this machine for the ensemble test and benchmark (root only): a studio
/// namespace with jackd (dummy driver), NetJACK2's netmanager (connections kept across a
/// slave's rejoin: `-s`) and a timebase pulsejack at 100 BPM; alice's and bob's namespaces each
/// with `pulsejack run --start-server net --follow-transport` replaying that performer's
/// session. Captures (JACK clients of this process on the studio's server — JACK's sockets are
/// files, which namespaces share) hear the studio's own beat and what each slave sends back.
public final class NetworkEnsemble {
    public struct Slave: CustomStringConvertible {
        public var name: String
        /// The performer's tempo course (frames from the replay's start).
        public var tempi: [(frame: Int64, bpm: Int)]
        /// At the studio, in JACK's frame time: the slave's shared-grid voice (right channel),
        /// its performer's voice (left) and its MIDI note-ons.
        public var gridBeats: [Int64] = []
        /// Where the studio's ear on the slave's grid channel was not run (JACK frame time).
        public var gridEarGaps: [Range<Int64>] = []
        public var performerBeats: [Int64] = []
        /// Where the studio's ears on its performer channel and its MIDI were not run.
        public var performerEarGaps: [Range<Int64>] = []
        public var midiNoteOns: [Int64] = []
        public var midiEarGaps: [Range<Int64>] = []
        /// Where the slave fired them, in its own engine frames (its --events-out).
        public var gridEvents: [Int64] = []
        public var performerEvents: [Int64] = []
        /// NetJACK2's latency for the slave at the studio, as JACK reports it for its ports
        /// (playback latency of midi_to_slave + capture latency of from_slave), in frames.
        public var reportedLatency = 0
        /// The cycles before the cut in which the studio's jackd found the slave's NetJACK2 client
        /// unfinished (its log: `client = alice was not finished`). The ears then read what that client had left
        /// in its ports: the cycle before's (under a CPU burner, a note heard twice, a cycle apart).
        public var unfinishedCycles = 0
        public var description: String {
            "\(name): \(gridBeats.count) grid beats, \(performerBeats.count) performer beats, \(midiNoteOns.count) notes heard; NetJACK2 reports \(reportedLatency) frames; \(unfinishedCycles) cycles its client left unfinished at the studio before the cut"
        }
    }

    public struct Report: CustomStringConvertible {
        /// The studio's own beats (its click on out_L), JACK frame time.
        public var studioBeats: [Int64] = []
        /// Where the ear on the studio's own click was not run, and what the studio's run printed.
        public var studioEarGaps: [Range<Int64>] = []
        public var studioLog = ""
        public var alice: Slave
        public var bob: Slave
        /// Both slaves joined and wired, a second later; alice's link cut; back.
        public var firstCommonFrame: Int64 = 0, cutFrame: Int64 = 0, mendFrame: Int64 = 0
        /// The studio's frame time just before the first process is stopped: after it, one slave
        /// may be gone while the other still plays.
        public var stopFrame: Int64 = 0
        /// From the link's return to alice's first grid beat again on bob's (the studio's) grid.
        public var rejoinSeconds: Double?
        public var aliceStatus = "", aliceLog = "", bobLog = ""
        public var description: String {
            "\(studioBeats.count) studio beats; \(alice); \(bob); rejoin " + (rejoinSeconds.map { String(format: "%.2f s", $0) } ?? "never")
        }
    }

    public static let sampleRate = 48_000, period = 256, bpm = 100, netLatency = 2
    public let prefix: String
    private let ip: String
    private let folder: URL
    private var processes: [Process] = []
    private var studioServer: Process?
    private var probe: OpaquePointer?
    private var ears: [AnyObject] = []
    public var studio: String { prefix + "-studio" }

    /// Makes the namespaces (scripts/ensemble-netns.sh up).
    public init(ip: String) throws {
        self.ip = ip
        // libjack's own lines while the probe waits for the studio's server.
        jack_set_error_function { _ in }
        jack_set_info_function { _ in }
        prefix = "pj\(getpid() % 100_000)"
        folder = try TemporaryFolder("ensemble").url
        let made = try Subprocess.run(Self.script, ["up", prefix])
        guard made.status == 0 else { throw Failure("ensemble-netns.sh up: \(made.stderr)") }
        network = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The studio's subnet, e.g. 10.77.0 (studio .1, alice .2, bob .3).
    public let network: String

    static var script: String { Subprocess.repository.appendingPathComponent("scripts/ensemble-netns.sh").path }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    private func write(_ text: String, _ name: String) throws -> String {
        let path = folder.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A process in namespace `space` (`ip netns exec` execs it: the pid is the program's). A
    /// performer's machine gets a /dev/shm of its own (`ip netns exec` gives it a mount namespace):
    /// its JACK server's registry and metadata store are its own, as on a machine of its own. (One
    /// store shared by three servers deadlocks jackd2 1.9.21: two servers deleting their clients'
    /// port properties at once wait on each other's Berkeley DB locks forever.)
    private func start(in space: String, _ arguments: [String], server: String, log: String? = nil) throws -> Process {
        let process = Process()
        Subprocess.keepForTheSuite(process)
        process.executableURL = URL(fileURLWithPath: ip)
        let ownShm = space == "studio" ? [] : ["/bin/sh", "-c", "mount -t tmpfs -o size=256m pulsejack-shm /dev/shm && exec \"$@\"", "sh"]
        process.arguments = ["netns", "exec", "\(prefix)-\(space)"] + ownShm + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["JACK_DEFAULT_SERVER": server]) { $1 }
        if let log {
            _ = FileManager.default.createFile(atPath: log, contents: nil)
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
            process.standardOutput = handle
            process.standardError = handle
        } else {
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
        }
        process.standardInput = FileHandle.nullDevice
        try process.run()
        processes.append(process)
        return process
    }

    private func waitFor(_ what: String, seconds: Double, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            guard Date() < deadline else { throw Failure("timed out waiting for \(what)") }
            usleep(100_000)
        }
    }

    private func portExists(_ name: String) -> Bool { probe.map { jack_port_by_name($0, name) != nil } ?? false }

    private func connect(_ source: String, _ destination: String) throws {
        let status = jack_connect(probe, source, destination)
        guard status == 0 || status == EEXIST else { throw Failure("cannot connect \(source) to \(destination)") }
    }

    private func latency(_ port: String, _ mode: jack_latency_callback_mode_t) -> Int {
        var range = jack_latency_range_t()
        guard let handle = jack_port_by_name(probe, port) else { return -1 }
        jack_port_get_latency_range(handle, mode, &range)
        return Int(range.max)
    }

    /// What listens on the studio's server to each performer's machine: their grid click, their
    /// own click, and their MIDI.
    private typealias Ears = [String: (grid: CaptureClient, performer: CaptureClient, midi: MidiCapture)]

    /// Plays `seconds` with everyone joined, then cuts alice's link for `cut` seconds and waits
    /// (up to 20 s) for her to be back on the grid.
    public func play(seconds: Double, cut: Double) throws -> Report {
        var report = Report(alice: Slave(name: "alice", tempi: [(0, 70), (960_000, 90), (1_920_000, 75), (2_880_000, 82)]),
                            bob: Slave(name: "bob", tempi: [(0, 64), (720_000, 100), (2_160_000, 80)]))
        let runs = try startEveryone(slaves: [report.alice, report.bob])
        let (studioEar, captures) = try listen()
        usleep(1_000_000)
        report.firstCommonFrame = studioEar.frameTime
        for name in ["alice", "bob"] {
            let reported = latency("\(name):midi_to_slave_1", JackPlaybackLatency) + latency("\(name):from_slave_2", JackCaptureLatency)
            if name == "alice" { report.alice.reportedLatency = reported } else { report.bob.reportedLatency = reported }
        }
        usleep(UInt32(seconds * 1_000_000))
        try cutAlicesLink(seconds: cut, studioEar: studioEar, captures: captures, into: &report)
        usleep(6_000_000)
        report.aliceStatus = try Subprocess.run(ip, ["netns", "exec", "\(prefix)-alice", Subprocess.pulsejack, "status", "--osc-port", "9200"]).stdout
        report.stopFrame = studioEar.frameTime
        for process in runs where process.isRunning {
            process.interrupt()
            process.waitUntilExit()
        }
        report.studioBeats = studioEar.onsetJackFrames
        report.studioEarGaps = studioEar.gaps
        report.studioLog = (try? String(contentsOf: folder.appendingPathComponent("studio.log"), encoding: .utf8)) ?? ""
        report.alice = try heard(report.alice, captures)
        report.bob = try heard(report.bob, captures)
        report.aliceLog = (try? String(contentsOf: folder.appendingPathComponent("alice.log"), encoding: .utf8)) ?? ""
        report.bobLog = (try? String(contentsOf: folder.appendingPathComponent("bob.log"), encoding: .utf8)) ?? ""
        return report
    }

    /// The studio's jackd with its netmanager and its pulsejack (the timebase), and each
    /// performer's machine (a net jackd and a pulsejack replaying their heart), all joined.
    /// The pulsejack runs, in the order they stop.
    private func startEveryone(slaves: [Slave]) throws -> [Process] {
        let pulsejack = Subprocess.pulsejack
        let studioPreset = try write("name: studio\nvoices:\n  - {name: click, kind: click, gain: 0.89}\n", "studio.yaml")
        // Each performer's machine: their own click on the left, the ensemble's (the studio's grid) on the right.
        let slavePreset = try write("""
            name: net-duo
            performers: [alice, bob]
            ensemble: {tempo: mean}
            voices:
              - {name: alice-click, kind: click, heart: alice, pan: -1, gain: 0.89}
              - {name: bob-click, kind: click, heart: bob, pan: -1, gain: 0.89}
              - {name: grid-click, kind: click, heart: ensemble, pan: 1, gain: 0.89}

            """, "slave.yaml")
        for slave in slaves {
            let rows = slave.tempi.map { "\(Double($0.frame) / Double(Self.sampleRate)),\($0.bpm)" }
            _ = try write("time,bpm\n" + rows.joined(separator: "\n") + "\n", "\(slave.name).csv")
        }
        studioServer = try start(in: "studio", ["/usr/bin/jackd", "-n", studio, "-d", "dummy", "-r", "\(Self.sampleRate)", "-p", "\(Self.period)"],
                                 server: studio, log: folder.appendingPathComponent("studio-jackd.log").path)
        try waitFor("the studio's jackd", seconds: 10) {
            var status = jack_status_t(rawValue: 0)
            probe = pj_client_open("ensemble-probe", JackNoStartServer, &status, studio)
            return probe != nil
        }
        let load = try Subprocess.run("/usr/bin/jack_load", ["-s", studio, "-i", "-s", "netmanager"], timeout: 10)
        guard load.status == 0 else { throw Failure("jack_load netmanager: \(load.stdout) \(load.stderr)") }
        let studioRun = try start(in: "studio", [pulsejack, "run", "--preset", studioPreset, "--bpm", "\(Self.bpm)", "--timebase", "--name", "studio",
                                                 "--no-osc"], server: studio, log: folder.appendingPathComponent("studio.log").path)
        var slaveRuns: [Process] = []
        for (name, extra) in [("alice", [String]()), ("bob", ["--net-master", network + ".1"])] {
            slaveRuns.append(try start(in: name, [pulsejack, "run", "--preset", slavePreset, "--start-server", "net", "--name", name,
                                             "--net-latency", "\(Self.netLatency)", "--follow-transport", "--osc-port", "9200",
                                             "--replay", "\(name)=" + folder.appendingPathComponent("\(name).csv").path,
                                             "--events-out", folder.appendingPathComponent("\(name).jsonl").path] + extra,
                                  server: "\(prefix)-\(name)", log: folder.appendingPathComponent("\(name).log").path))
        }
        do {
            try waitFor("both slaves and the studio's pulsejack", seconds: 30) {
                portExists("alice:from_slave_2") && portExists("bob:from_slave_2") && portExists("studio:grid_out")
            }
        } catch {
            let logs = ["alice", "bob"].map { name in
                "\(name): " + ((try? String(contentsOf: folder.appendingPathComponent("\(name).log"), encoding: .utf8)) ?? "no log")
            }
            throw Failure("\(error); " + logs.joined(separator: "; "))
        }
        // Stopped in this order: the performers' machines, then the studio.
        return slaveRuns + [studioRun]
    }

    /// Ears on the studio's server: its own output, and each performer's grid click, own click
    /// and MIDI; the studio's grid sent to each performer.
    private func listen() throws -> (studio: CaptureClient, performers: Ears) {
        let studioEar = try CaptureClient(name: "ear-studio", server: studio)
        try studioEar.connect(from: "studio:out_L")
        var captures: Ears = [:]
        for name in ["alice", "bob"] {
            let grid = try CaptureClient(name: "ear-\(name)-grid", server: studio)
            let performer = try CaptureClient(name: "ear-\(name)-own", server: studio)
            let midi = try MidiCapture(name: "midi-\(name)", server: studio)
            try performer.connect(from: "\(name):from_slave_1")
            try grid.connect(from: "\(name):from_slave_2")
            try midi.connect(from: "\(name):midi_from_slave_1")
            try connect("studio:grid_out", "\(name):midi_to_slave_1")
            captures[name] = (grid, performer, midi)
        }
        ears = [studioEar] + captures.values.flatMap { [$0.grid, $0.performer, $0.midi] as [AnyObject] }
        return (studioEar, captures)
    }

    /// Alice's link cut for `seconds` and mended; how long she took to be back on the grid
    /// (her grid beats again where bob's are), waiting up to 20 s.
    private func cutAlicesLink(seconds: Double, studioEar: CaptureClient, captures: Ears, into report: inout Report) throws {
        report.cutFrame = studioEar.frameTime
        let studioJackd = (try? String(contentsOf: folder.appendingPathComponent("studio-jackd.log"), encoding: .utf8)) ?? ""
        report.alice.unfinishedCycles = studioJackd.components(separatedBy: "client = alice was not finished").count - 1
        report.bob.unfinishedCycles = studioJackd.components(separatedBy: "client = bob was not finished").count - 1
        _ = try Subprocess.run(Self.script, ["cut", prefix, "alice"])
        usleep(UInt32(seconds * 1_000_000))
        _ = try Subprocess.run(Self.script, ["mend", prefix, "alice"])
        report.mendFrame = studioEar.frameTime
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            let bob = Set(captures["bob"]!.grid.onsetJackFrames)
            if let back = captures["alice"]!.grid.onsetJackFrames.first(where: { $0 > report.mendFrame && bob.contains($0) }) {
                report.rejoinSeconds = Double(back - report.mendFrame) / Double(Self.sampleRate)
                return
            }
            usleep(200_000)
        }
    }

    /// What the studio heard from `slave`'s machine, and what its pulsejack says it fired.
    private func heard(_ slave: Slave, _ captures: Ears) throws -> Slave {
        let capture = captures[slave.name]!
        var slave = slave
        slave.gridBeats = capture.grid.onsetJackFrames
        slave.gridEarGaps = capture.grid.gaps
        slave.performerBeats = capture.performer.onsetJackFrames
        slave.performerEarGaps = capture.performer.gaps
        slave.midiNoteOns = capture.midi.received.filter(\.isNoteOn).map(\.frame)
        slave.midiEarGaps = capture.midi.gaps
        let events = try String(contentsOf: folder.appendingPathComponent("\(slave.name).jsonl"), encoding: .utf8).split(separator: "\n")
        func frames(_ voice: String) -> [Int64] {
            events.filter { $0.contains("\"voice\":\"\(voice)\"") }.compactMap { line in
                line.split(separator: ",").first { $0.contains("\"frame\":") }.flatMap { Int64($0.split(separator: ":")[1]) }
            }
        }
        slave.gridEvents = frames("grid-click")
        slave.performerEvents = frames("\(slave.name)-click")
        return slave
    }

    /// What is left of the ensemble on this machine: its namespaces and processes (none after `tearDown`).
    public func leftovers() throws -> String {
        let spaces = try Subprocess.run(ip, ["netns", "list"]).stdout.split(separator: "\n").filter { $0.hasPrefix(prefix + "-") }
        let running = try Subprocess.run("/usr/bin/pgrep", ["-a", "-f", prefix + "-"]).stdout.split(separator: "\n")
            .filter { !$0.contains("pgrep") }
        return (spaces + running).joined(separator: "; ")
    }

    /// Stops everything, removes the namespaces (and any process left in them) and the files.
    public func tearDown() {
        for ear in ears {
            (ear as? CaptureClient)?.close()
            (ear as? MidiCapture)?.close()
        }
        ears = []
        if let probe { jack_client_close(probe) }
        probe = nil
        for process in processes where process.isRunning { process.terminate() }
        for process in processes { process.waitUntilExit() }
        processes = []
        _ = try? Subprocess.run(Self.script, ["down", prefix])
        if let keep = ProcessInfo.processInfo.environment["PULSEJACK_KEEP_ENSEMBLE"] {
            try? FileManager.default.copyItem(at: folder, to: URL(fileURLWithPath: keep).appendingPathComponent(folder.lastPathComponent))
        }
        try? FileManager.default.removeItem(at: folder)
    }
}
