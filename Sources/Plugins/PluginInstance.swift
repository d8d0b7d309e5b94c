import Atomics
import CCLAP
import CLV2
import CLilv
import Foundation
import Voices
import Realtime

/// One hosted plugin, LV2 or CLAP (`PluginInstance+CLAP`): its instance, its host features, and a
/// buffer for every port.
///
/// Instantiated, restored, activated and freed off the real-time thread (`init`, `deinit`);
/// between those the process thread alone connects its audio and runs it, so `run` never meets
/// `deactivate` (lv2core's threading classes). The owner publishes it to the process thread by
/// building the engine before activation or through a swap message.
///
/// An isolated instance (`isolate`) runs no plugin code here: a child process hosts the plugin
/// (`PluginProcess`), and `connect`, `run` and `addMIDI` hand the buffers to it and back. Its
/// controls stay here, the engine's truth, sent with every run.
package final class PluginInstance {
    package let uri: String
    package let name: String
    package let ports: [PluginPort]
    /// Audio ports' indices, in port order.
    package let audioInputs: [UInt32]
    package let audioOutputs: [UInt32]
    /// Whether the plugin declares `bufsz:coarseBlockLength`: its run is never split for controls.
    let coarseBlockLength: Bool
    /// The port that reports latency, if any.
    let latencyPort: UInt32?
    /// `run` calls so far (process thread; tests read it while the engine is stopped).
    private(set) var runs = 0
    /// Frames of latency it reports: read after a run on silence at activation, then after
    /// every run (process thread). A report that is not a number of frames from 0 to one second
    /// (`latencyBound`) is refused: the plugin counts as latency-free, and the value is kept in
    /// `refusedLatency` for a control thread to name once.
    package private(set) var latency = 0
    package var latencyBound: Int { sampleRate }
    /// The first refused latency report's float bits (0: none), and whether a control thread has
    /// named it (that thread's own).
    package let refusedLatency = ManagedAtomic<UInt32>(0)
    package var refusedLatencySaid = false
    let sampleRate: Int
    let offline: Bool
    let stateFolder: String?
    /// What was wrong with the plugin's data (defaults outside their range, non-finite values),
    /// said once through `drainLog`.
    var warnings: [String]

    /// The plugin in this process; nil when a child hosts it (`isolation`) or it is a CLAP plugin.
    let instance: UnsafeMutablePointer<LilvInstance>?
    /// A CLAP plugin in this process (`PluginInstance+CLAP`); nil for LV2 or when a child hosts it.
    let clap: OpaquePointer?
    /// A CLAP plugin's parameters: their count and the first one's port (0 for LV2).
    let clapParameters: Int
    let clapParameterBase: Int
    /// A CLAP plugin's parameter values as last sent to it (each port's; a moved control is sent).
    let sentValues: FixedBuffer<Float>
    /// Whether it takes MIDI (an LV2 atom input that carries it, a CLAP note input).
    package let hasMIDIInput: Bool
    /// A CLAP plugin in this process: a control change is an event at its frame, and its run
    /// is never split for one (`InsertChain`).
    package var takesControlsAtFrames: Bool { clap != nil }
    /// The child process hosting it, when isolated.
    package let isolation: PluginProcess?
    /// The buffer each port is connected to: for the child when isolated; in this process, so
    /// that a port already connected to the period's buffer is not connected again (the buffers
    /// rarely move, and each connection is a call into the plugin's code).
    let connected: FixedBuffer<UnsafeMutablePointer<Float>?>
    private let isolatedMIDI = FixedBuffer<UInt64>(capacity: PluginRegion.midiCapacity, repeating: 0)
    private var isolatedMIDICount = 0
    let host: OpaquePointer
    private(set) var activated = false
    /// One value per port index (control ports are connected here).
    package let controlValues: FixedBuffer<Float>
    /// The values as the process thread last copied them for a save (`snapshotControls`).
    let controlSnapshot: FixedBuffer<Float>
    /// The MIDI input, and every other atom port's buffer.
    private let midiInput: AtomSequence.Box?
    private let otherAtoms: [AtomSequence.Box]
    /// The atom input that takes the host's time (`time:Position`), in this process: the MIDI
    /// input's box when that port takes both, one of `otherAtoms` otherwise.
    private let timeInput: AtomSequence.Box?
    /// Whether an atom input takes the host's time (here or in the child).
    package let takesTime: Bool
    /// No position told yet: the first run gets where the grid stands at its start.
    private var needsPosition = true
    /// This run's positions (frames from its start, in order), written before the run — those
    /// at or before a MIDI message before it when both share the port. The first `queuedCount`;
    /// the first `queuedWritten` of them are in the sequence.
    let queuedPositions = FixedBuffer<TimePosition>(capacity: PluginRegion.positionCapacity, repeating: PluginTime.idle)
    let queuedFrames = FixedBuffer<Int>(capacity: PluginRegion.positionCapacity, repeating: 0)
    private(set) var queuedCount = 0
    private var queuedWritten = 0
    /// Isolated: where the grid stands at this run's start (the child's fresh instance needs it).
    private var runStartPosition = PluginTime.idle
    private let scratch: FixedBuffer<Float>
    let maxFrames: Int
    private let midiType: UInt32

    static let sequenceBytes = 16_384

    /// Control thread. `controls`: values by symbol (checked against the plugin's ranges).
    /// `offline`: the worker runs synchronously, so renders are deterministic.
    /// `isolate`: hosted by a child process, started at `activate`.
    init(uri: String, sampleRate: Int, maxFrames: Int, controls: [String: Float] = [:], stateFolder: String? = nil,
         offline: Bool, isolate: Bool = false) throws {
        (self.uri, self.maxFrames, self.sampleRate, self.offline, self.stateFolder) = (uri, maxFrames, sampleRate, offline, stateFolder)
        let sequenceType = pj_urid_map(pj_lv2_atom_sequence()), chunkType = pj_urid_map(pj_lv2_atom_chunk())
        midiType = pj_urid_map(pj_lv2_midi_event())
        guard let host = pj_host_new(Double(sampleRate), Int32(maxFrames), Int32(maxFrames), Int32(Self.sequenceBytes),
                                     stateFolder, offline ? 1 : 0) else { throw PluginError("\(uri): out of memory") }
        self.host = host
        let made: Made
        do {
            made = try Self.made(uri, controls: controls, sampleRate: sampleRate, maxFrames: maxFrames, offline: offline,
                                 stateFolder: stateFolder, isolate: isolate, host: host)
        } catch {
            pj_host_free(host)
            throw error
        }
        let described = made.described
        (name, ports, instance, isolation, clap) = (described.name, described.ports, made.instance, made.isolation, made.clap)
        (clapParameters, clapParameterBase) = (made.parameters, made.parameterBase)
        sentValues = FixedBuffer(capacity: made.parameters > 0 ? ports.count : 1, repeating: .nan)
        connected = FixedBuffer(capacity: ports.count, repeating: nil)
        (coarseBlockLength, latencyPort) = (described.coarse, described.latency)
        audioInputs = ports.filter { $0.kind == .audio && $0.isInput }.map(\.index)
        audioOutputs = ports.filter { $0.kind == .audio && !$0.isInput }.map(\.index)
        controlValues = FixedBuffer(capacity: ports.count, repeating: 0)
        warnings = Self.setStartingControls(controlValues, of: ports, given: controls, name: described.name)
        controlSnapshot = FixedBuffer(capacity: ports.count, repeating: 0)
        for index in 0..<ports.count { controlSnapshot[index] = controlValues[index] }
        scratch = FixedBuffer(capacity: maxFrames, repeating: 0)
        let midiPort = ports.first { $0.kind == .atom && $0.isInput && $0.carriesMIDI }
        hasMIDIInput = midiPort != nil
        midiInput = midiPort.map { _ in
            AtomSequence.Box(AtomSequence(capacityBytes: Self.sequenceBytes, sequenceType: sequenceType, chunkType: chunkType), isInput: true)
        }
        let timePort = ports.first { $0.kind == .atom && $0.isInput && $0.takesTime }
        // A CLAP plugin takes the transport in every process.
        takesTime = timePort != nil || made.isCLAP
        if takesTime { pj_time_prepare() }
        let atoms = isolate || made.isCLAP ? (others: [], time: nil) : Self.connectInProcess(
            ports, of: instance, controls: controlValues, scratch: scratch, midiPort: midiPort?.index, midiInput: midiInput,
            timePort: timePort?.index, sequenceType: sequenceType, chunkType: chunkType)
        (otherAtoms, timeInput) = (atoms.others, atoms.time)
        if let made = instance { pj_host_attach_worker(host, Self.workerInterface(made), lilv_instance_get_handle(made)) }
    }

    /// Control thread, after any state restore and before the process thread runs it.
    func activate() {
        guard !activated else { return }
        activated = true
        if let isolation {
            // Its process says which plugin it loads, before it runs the plugin's code.
            if let problem = isolation.start(waiting: 10) {
                warnings.append("\(name) (\(uri)), isolated: \(problem); silent until its process restarts")
            } else if let latencyPort {
                noteLatency(isolation.region.controls[Int(latencyPort)])
            }
            return
        }
        if let clap { return activateCLAP(clap) }
        lilv_instance_activate(instance)
        if latencyPort != nil {
            // A run on silence, as Ardour does, so the latency port holds the plugin's value.
            scratch.pointer.update(repeating: 0, count: maxFrames)
            for port in ports where port.kind == .audio { connect(port: port.index, to: scratch.pointer) }
            run(frames: min(maxFrames, 256))
        }
    }

    deinit {
        if let instance {
            if activated { lilv_instance_deactivate(instance) }
            lilv_instance_free(instance)
        }
        if let clap { pj_clap_free(clap) }
        pj_host_free(host)
    }

    /// Real-time safe. Any thread reads it: work the plugin has scheduled so far.
    var workerRequests: UInt64 { pj_host_worker_requests(host) }

    /// The port for `symbol` among the input controls.
    func controlPort(_ symbol: String) -> PluginPort? {
        ports.first { $0.symbol == symbol && $0.kind == .control && $0.isInput }
    }

    /// Control thread. Every plugin's logged line, from any thread, rings `bell`, so the thread
    /// that drains the logs (`drainLog`) sleeps until one comes; `stopRinging` before it closes.
    package static func ringOnLog(_ bell: Doorbell) { pj_host_ring_on_log(bell.descriptor) }
    package static func stopRinging(_ bell: Doorbell) { pj_host_stop_ringing(bell.descriptor) }

    /// Control thread. What the plugin logged since the last call.
    package func drainLog() -> [String] {
        var lines = warnings
        warnings = []
        var buffer = [CChar](repeating: 0, count: 512)
        while pj_host_next_log(host, &buffer, buffer.count) != 0 {
            lines.append(buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
        }
        return lines
    }

    // MARK: - The process path

    /// Real-time safe.
    @inline(__always)
    package func connect(port: UInt32, to buffer: UnsafeMutablePointer<Float>) {
        guard connected[Int(port)] != buffer else { return }
        connected[Int(port)] = buffer
        if isolation == nil && clap == nil { lilv_instance_connect_port(instance, port, buffer) }
    }

    /// Real-time safe. The value of control port `port`.
    @inline(__always)
    func control(_ port: UInt32) -> Float { controlValues[Int(port)] }

    /// Real-time safe. Copies the control values for a save (see `VoiceStateSnapshot`).
    package func snapshotControls() {
        controlSnapshot.pointer.update(from: controlValues.pointer, count: ports.count)
    }

    /// Control thread, neither instance running: the input controls of `playing` (the same
    /// plugin, instantiated at another rate).
    package func takeControls(of playing: PluginInstance) {
        guard playing.uri == uri else { return }
        for port in ports where port.kind == .control && port.isInput && Int(port.index) < playing.ports.count {
            controlValues[Int(port.index)] = playing.controlValues[Int(port.index)]
        }
    }

    /// Real-time safe. Sets control port `port` for the next run.
    @inline(__always)
    func setControl(_ port: UInt32, _ value: Float) { controlValues[Int(port)] = value }

    /// Real-time safe. A MIDI message at `frame` of the next run (frames in order); false when
    /// the sequence is full or the plugin takes no MIDI.
    package func addMIDI(frame: Int, _ bytes: (UInt8, UInt8, UInt8)) -> Bool {
        if let clap { return pj_clap_add_midi(clap, UInt32(max(frame, 0)), bytes.0, bytes.1, bytes.2) != 0 }
        guard isolation != nil else {
            guard let midiInput else { return false }
            if timeInput === midiInput { writePositions(through: frame) }
            return midiInput.sequence.append(frame: Int64(frame), type: midiType, bytes: bytes, count: 3)
        }
        guard hasMIDIInput, isolatedMIDICount < isolatedMIDI.capacity else { return false }
        isolatedMIDI[isolatedMIDICount] = PluginRegion.packMIDI(frame: frame, bytes)
        isolatedMIDICount += 1
        return true
    }

    /// Real-time safe. Its first audio inputs and outputs connected to these buffers (nil: a
    /// second port it does not have), then run over `frames`.
    @inline(__always)
    func run(inputs first: UnsafeMutablePointer<Float>, _ second: UnsafeMutablePointer<Float>?,
             outputs firstOut: UnsafeMutablePointer<Float>, _ secondOut: UnsafeMutablePointer<Float>?, frames: Int) {
        connect(port: audioInputs[0], to: first)
        if let second { connect(port: audioInputs[1], to: second) }
        connect(port: audioOutputs[0], to: firstOut)
        if let secondOut { connect(port: audioOutputs[1], to: secondOut) }
        run(frames: frames)
    }

    /// Real-time safe. Runs the plugin for `frames` frames on the connected buffers, delivers the
    /// worker's responses and ends the run, then empties the MIDI input for the next.
    package func run(frames: Int) {
        if let isolation { return runIsolated(isolation, frames: frames) }
        if let clap {
            runCLAP(clap, frames: frames)
        } else {
            writePositions(through: nil)
            lilv_instance_run(instance, UInt32(frames))
        }
        runs &+= 1
        pj_host_after_run(host)
        // Re-read after every run: a plugin may change its latency with its controls.
        if let latencyPort { noteLatency(controlValues[Int(latencyPort)]) }
        // Emptied after the run, not before: the next run's positions go in before it.
        for index in 0..<otherAtoms.count { otherAtoms[index].reset() }
        midiInput?.reset()
        queuedCount = 0
        queuedWritten = 0
    }

    /// Real-time safe. Whether no position has been told yet; true once (the caller queues one).
    func takeNeedsPosition() -> Bool {
        defer { needsPosition = false }
        return needsPosition
    }

    /// Real-time safe. A block passed without this plugin running (bypassed, benched): where
    /// the grid stands is told again at its next run.
    package func missedTime() { needsPosition = true }

    /// Real-time safe. No positions queued for the coming run.
    func resetQueue() {
        queuedCount = 0
        queuedWritten = 0
    }

    /// Real-time safe. Isolated: where the grid stands at the coming run's start.
    func setRunStart(_ position: TimePosition) { runStartPosition = position }

    /// Real-time safe. A position at `frame` of the coming run (frames in order); one past the
    /// queue's room replaces the last, so the newest is told.
    func queuePosition(_ position: TimePosition, atFrame frame: Int) {
        let slot = min(queuedCount, queuedPositions.capacity - 1)
        queuedPositions[slot] = position
        queuedFrames[slot] = frame
        queuedCount = slot + 1
    }

    /// Real-time safe. The queued positions at frames up to `frame` (nil: all) into the time
    /// input, in order.
    private func writePositions(through frame: Int?) {
        guard let timeInput else { return }
        while queuedWritten < queuedCount {
            if let frame, queuedFrames[queuedWritten] > frame { return }
            _ = timeInput.sequence.append(frame: Int64(queuedFrames[queuedWritten]), position: queuedPositions[queuedWritten])
            queuedWritten += 1
        }
    }

    /// Real-time safe. The latency the plugin reports, checked.
    func noteLatency(_ reported: Float) {
        if reported.isFinite && reported >= 0 && reported <= Float(latencyBound) {
            latency = Int(reported.rounded())
        } else {
            latency = 0
            if refusedLatency.load(ordering: .relaxed) == 0 {
                refusedLatency.store(reported.bitPattern == 0 ? 1 : reported.bitPattern, ordering: .relaxed)
            }
        }
    }

    /// Real-time safe. A run in the child: the connected inputs, the controls and the MIDI into
    /// the region, the outputs back. When the child is not there or misses its deadline, the
    /// outputs are the inputs (an effect passes its input dry) or silence (an instrument).
    private func runIsolated(_ isolation: PluginProcess, frames: Int) {
        let region = isolation.region
        let frames = min(frames, region.maxFrames)
        let inputs = min(audioInputs.count, 2), outputs = min(audioOutputs.count, 2)
        let claimed = isolation.claim()
        if claimed {
            for slot in 0..<inputs {
                if let buffer = connected[Int(audioInputs[slot])] { region.audio(slot).update(from: buffer, count: frames) }
            }
            region.controls.update(from: controlValues.pointer, count: ports.count)
            region.midi.update(from: isolatedMIDI.pointer, count: isolatedMIDICount)
            region.midiCount.store(UInt32(isolatedMIDICount), ordering: .relaxed)
            if takesTime {
                region.setPosition(0, runStartPosition, atFrame: 0)
                for index in 0..<queuedCount { region.setPosition(index + 1, queuedPositions[index], atFrame: queuedFrames[index]) }
            }
            region.positionCount.store(takesTime ? UInt32(queuedCount + 1) : 0, ordering: .relaxed)
        }
        isolatedMIDICount = 0
        queuedCount = 0
        runs &+= 1
        let answered = claimed && isolation.run(frames: frames)
        for slot in 0..<outputs {
            guard let buffer = connected[Int(audioOutputs[slot])] else { continue }
            if answered {
                buffer.update(from: region.audio(2 + slot), count: frames)
            } else if inputs > 0, let input = connected[Int(audioInputs[min(slot, inputs - 1)])] {
                if input != buffer { buffer.update(from: input, count: frames) }
            } else {
                buffer.update(repeating: 0, count: frames)
            }
        }
        if answered, let latencyPort { noteLatency(region.controls[Int(latencyPort)]) }
    }

    /// Control thread. A fresh instance of the same plugin with this one's controls and state
    /// (saved through `folder`), activated: what a benched plugin comes back as. This instance
    /// must not be running (benched), and its controls must have been snapshot.
    package func renewed(through folder: String) throws -> PluginInstance {
        let fresh = try PluginInstance(uri: uri, sampleRate: sampleRate, maxFrames: maxFrames, stateFolder: stateFolder, offline: offline,
                                       isolate: isolation != nil)
        do {
            try saveState(to: folder)
            try fresh.restoreState(from: folder)
        } catch {
            for port in ports where port.kind == .control && port.isInput { fresh.controlValues[Int(port.index)] = controlSnapshot[Int(port.index)] }
        }
        fresh.warnings = []
        fresh.activate()
        return fresh
    }
}

extension AtomSequence {
    /// An atom port's buffer in a class, so an array of them can be kept.
    final class Box {
        let sequence: AtomSequence
        let isInput: Bool
        init(_ sequence: consuming AtomSequence, isInput: Bool) {
            self.sequence = sequence
            self.isInput = isInput
        }

        /// Real-time safe.
        func reset() { if isInput { sequence.resetAsInput() } else { sequence.resetAsOutput() } }
    }
}
