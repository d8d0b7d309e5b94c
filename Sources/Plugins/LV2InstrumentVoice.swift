import Voices
import Realtime

/// A hosted LV2 instrument as a voice (`kind: lv2`). Each firing is a MIDI note-on in the
/// plugin's atom sequence at its frame within the period, and a note-off `length` later; the
/// plugin runs once per block (not split at notes), its events in time order — split only where
/// a modulation changes one of its controls.
package final class LV2InstrumentVoice: BlockVoice, NoteSink {
    /// The instance the process thread runs: its set's, replaced whole when its guard hands a
    /// fresh one over.
    private var current: InsertChain.PluginSet
    /// The instance itself, held beside its set: a period reaches it without going through the
    /// set and its array (two objects fewer touched).
    package private(set) var plugin: PluginInstance
    /// Its audio outputs: how many, and the first two ports (read here rather than from the
    /// instance's array each period).
    private var outputs: (count: Int, left: UInt32, right: UInt32)
    /// The control thread's view: the instance it built last (saves and logs read this one).
    package var published: PluginInstance
    /// Its output checked and its time measured; benched, the voice is silent.
    package let pluginGuard = PluginGuard()
    /// Where a replaced instance goes (the engine's retired ring, to be freed off the process thread).
    package var retire: ((Unmanaged<AnyObject>) -> Void)?
    /// The block's time, if the plugin takes it (set before the engine runs).
    package var time: PluginTime?
    /// The note a firing plays, its length in seconds, and the MIDI channel (0…15).
    package let note: Int
    package let lengthSeconds: Double
    package let channel: UInt8

    private struct NoteEvent: BitwiseCopyable {
        var frame: Int
        var status: UInt8
        var key: UInt8
        var velocity: UInt8
    }

    /// This block's events, in arrival order (sorted when the block runs): the first `eventCount`.
    /// (`let` buffers with counts beside them, as `InsertChain` explains.)
    private let events = FixedBuffer<NoteEvent>(capacity: 256, repeating: NoteEvent(frame: 0, status: 0, key: 0, velocity: 0))
    private var eventCount = 0
    /// Note-offs still to come: `frame` counts from the current block's start.
    private let pendingOffs = FixedBuffer<NoteEvent>(capacity: 256, repeating: NoteEvent(frame: 0, status: 0, key: 0, velocity: 0))
    private var pendingCount = 0
    /// Frames of the current block already passed (sub-blocks rendered).
    private var cursor = 0
    private var lengthFrames = 4800
    /// Events that did not fit (this block's list, or the plugin's sequence).
    private(set) var droppedEvents = 0
    /// This block's control changes (a modulation's), in time order, and those that did not fit.
    private let controlChanges = FixedBuffer<(offset: Int, port: UInt32, value: Float)>(capacity: 256, repeating: (0, 0, 0))
    private var controlChangeCount = 0
    private(set) var lateControlChanges = 0

    package init(plugin: PluginInstance, note: Int, lengthSeconds: Double, channel: UInt8) {
        current = InsertChain.PluginSet([plugin])
        self.plugin = plugin
        outputs = Self.outputs(of: plugin)
        published = plugin
        self.note = note
        self.lengthSeconds = lengthSeconds
        self.channel = channel
    }

    package func prepare(sampleRate: Int, maxFrames: Int) {
        lengthFrames = max(1, Int((lengthSeconds * Double(sampleRate)).rounded()))
    }

    /// Real-time safe.
    package func trigger(atFrame offset: Int, velocity: Float) {
        start(key: note, velocity: velocity, lengthFrames: lengthFrames, at: cursor + offset)
    }

    /// Real-time safe. A figure (arpeggio, tap) playing this instrument.
    package func play(key: Int, velocity: Float, lengthFrames: Int) {
        start(key: key, velocity: velocity, lengthFrames: lengthFrames, at: cursor)
    }

    /// Real-time safe. A note still held by an earlier firing ends where the new one starts, so
    /// its pending note-off cannot cut the new note short.
    private func start(key: Int, velocity: Float, lengthFrames: Int, at frame: Int) {
        // One that plays from the host's time alone has no note to play.
        guard plugin.hasMIDIInput else { return }
        let key = UInt8(clamping: min(max(key, 0), 127))
        var index = 0
        while index < pendingCount {
            if pendingOffs[index].key == key {
                removePending(at: index)
                add(NoteEvent(frame: frame, status: 0x80 | channel, key: key, velocity: 64))
            } else {
                index += 1
            }
        }
        let level = UInt8(min(127, max(1, (velocity * 127).rounded())))
        add(NoteEvent(frame: frame, status: 0x90 | channel, key: key, velocity: level))
        guard pendingCount < pendingOffs.capacity else {
            droppedEvents += 1
            return
        }
        pendingOffs[pendingCount] = NoteEvent(frame: frame + lengthFrames, status: 0x80 | channel, key: key, velocity: 64)
        pendingCount += 1
    }

    /// Real-time safe.
    private func add(_ event: NoteEvent) {
        guard eventCount < events.capacity else {
            droppedEvents += 1
            return
        }
        events[eventCount] = event
        eventCount += 1
    }

    /// Real-time safe.
    private func removePending(at index: Int) {
        pendingCount -= 1
        pendingOffs[index] = pendingOffs[pendingCount]
    }

    /// Real-time safe. Control `port` takes `value` from the next run (the plugin runs once a period).
    /// Real-time safe. Control `port` takes `value` at the current frame of the block: the
    /// plugin's run is split there (a full list applies it at once, counted).
    package func setControl(_ port: UInt32, _ value: Float) {
        guard Int(port) < plugin.ports.count else { return }
        guard controlChangeCount < controlChanges.capacity else {
            lateControlChanges += 1
            return plugin.setControl(port, value)
        }
        controlChanges[controlChangeCount] = (cursor, port, value)
        controlChangeCount += 1
    }

    /// Real-time safe. Counts the sub-block's frames; the sound comes in `renderBlock`.
    package func render(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frames: Int) {
        cursor += frames
    }

    /// Real-time safe. Bounded by the two event lists' capacities.
    package func renderBlock(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frames: Int) {
        var index = 0
        while index < pendingCount {
            if pendingOffs[index].frame < frames {
                add(pendingOffs[index])
                removePending(at: index)
            } else {
                pendingOffs[index].frame -= frames
                index += 1
            }
        }
        if let fresh = pluginGuard.takeReplacement() {
            let old = Unmanaged.passRetained(current as AnyObject)
            current = fresh.takeRetainedValue()
            plugin = current.instances[0]
            outputs = Self.outputs(of: plugin)
            if let retire { retire(old) } else { old.release() }
        }
        guard !pluginGuard.benched else {
            for index in 0..<controlChangeCount { plugin.setControl(controlChanges[index].port, controlChanges[index].value) }
            controlChangeCount = 0
            eventCount = 0
            cursor = 0
            if time != nil { plugin.missedTime() }
            left.update(repeating: 0, count: frames)
            right.update(repeating: 0, count: frames)
            return
        }
        sortEvents()
        if plugin.takesControlsAtFrames {
            // A CLAP plugin: each change an event at its frame, and one run.
            for index in 0..<controlChangeCount {
                plugin.queueControl(controlChanges[index].port, controlChanges[index].value, atFrame: min(max(controlChanges[index].offset, 0), frames - 1))
            }
            controlChangeCount = 0
        }
        pluginGuard.startRun()
        runSplitAtControlChanges(left: left, right: right, frames: frames)
        // The block is overwritten whatever the plugin's outputs (`BlockVoice`).
        if outputs.count == 0 { left.update(repeating: 0, count: frames) }
        if outputs.count <= 1 { right.update(from: left, count: frames) }
        // Nothing non-finite or subnormal reaches the voice's gain, inserts or the mix.
        pluginGuard.endRun(left, right, frames: frames)
        cursor = 0
    }

    /// Real-time safe. The plugin over the block, its run split where a control changes; each
    /// part gets the notes due in it. Bounded by the change list's capacity.
    private func runSplitAtControlChanges(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frames: Int) {
        var start = 0, nextEvent = 0, nextChange = 0
        repeat {
            while nextChange < controlChangeCount && controlChanges[nextChange].offset <= start {
                plugin.setControl(controlChanges[nextChange].port, controlChanges[nextChange].value)
                nextChange += 1
            }
            let end = nextChange < controlChangeCount ? min(controlChanges[nextChange].offset, frames) : frames
            if let time { plugin.queuePositions(time, from: start, to: end) }
            while nextEvent < eventCount && (events[nextEvent].frame < end || end == frames) {
                let event = events[nextEvent]
                if !plugin.addMIDI(frame: min(event.frame, frames - 1) - start, (event.status, event.key, event.velocity)) { droppedEvents += 1 }
                nextEvent += 1
            }
            if outputs.count >= 1 { plugin.connect(port: outputs.left, to: left + start) }
            if outputs.count >= 2 { plugin.connect(port: outputs.right, to: right + start) }
            plugin.run(frames: end - start)
            start = end
        } while start < frames
        for index in nextChange..<controlChangeCount { plugin.setControl(controlChanges[index].port, controlChanges[index].value) }
        controlChangeCount = 0
        eventCount = 0
    }

    /// Real-time safe (at a swap, as well as at setup): reads the instance's port list.
    private static func outputs(of plugin: PluginInstance) -> (count: Int, left: UInt32, right: UInt32) {
        let ports = plugin.audioOutputs
        return (ports.count, ports.first ?? 0, ports.count >= 2 ? ports[1] : 0)
    }

    /// Real-time safe. At the end of each period (see `InsertChain.closePeriod`); true: benched now.
    @discardableResult
    package func closePeriod(budgetNanoseconds: Int) -> Bool {
        // An isolated plugin's time is bounded by its child's deadline: not an overrun to bench it for.
        guard pluginGuard.closePeriod(budgetNanoseconds: plugin.isolation == nil ? budgetNanoseconds : 0) else { return false }
        plugin.snapshotControls()
        return true
    }

    /// Real-time safe. The frames of latency it adds (0 while benched: it is not running).
    package var latency: Int { pluginGuard.benched ? 0 : plugin.latency }

    /// Real-time safe. In time order; at one frame a note-off before a note-on (a retrigger).
    private func sortEvents() {
        guard eventCount > 1 else { return }
        for index in 1..<eventCount {
            let event = events[index]
            var slot = index
            while slot > 0 && Self.precedes(event, events[slot - 1]) {
                events[slot] = events[slot - 1]
                slot -= 1
            }
            events[slot] = event
        }
    }

    @inline(__always)
    private static func precedes(_ a: NoteEvent, _ b: NoteEvent) -> Bool {
        a.frame < b.frame || (a.frame == b.frame && a.status & 0xF0 == 0x80 && b.status & 0xF0 == 0x90)
    }

    /// Real-time safe. Every held note ends now, and "all notes off" for what the plugin still holds.
    package func silence() {
        for index in 0..<pendingCount {
            var off = pendingOffs[index]
            off.frame = cursor
            add(off)
        }
        pendingCount = 0
        add(NoteEvent(frame: cursor, status: 0xB0 | channel, key: 123, velocity: 0))
    }

    /// Real-time safe. The plugin's own release does the fading.
    package func choke() { silence() }

    package var isSounding: Bool { true }
}
