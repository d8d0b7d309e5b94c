import Voices
import Realtime

/// A chain of LV2 effects on a bus (a voice's, or the master's), run once per block in place.
///
/// A plugin with two audio inputs and outputs runs once on the stereo bus. A mono plugin (one in,
/// one out) runs as two instances, one per channel, so both keep their own state. A plugin with
/// one input and two outputs gets the bus summed to mono (half of each channel); one with two
/// inputs and one output feeds both channels. Control changes take effect at their frame: a CLAP
/// plugin gets each as a parameter event there; an LV2 plugin's run is split there, except for
/// plugins that declare `bufsz:coarseBlockLength`, whose changes all apply at the block's start.
package final class InsertChain {
    package enum Layout: Sendable { case stereo, dualMono, monoIn, monoOut }

    /// The instances one insert runs (two for a mono plugin on the stereo bus), as one object
    /// the control thread can hand to the process thread in a swap.
    package final class PluginSet {
        package let instances: [PluginInstance]
        /// The first instance and the second (a mono plugin's right channel), as the process path
        /// reads them: uncounted, which is safe while `instances` holds them.
        let first: Unmanaged<PluginInstance>
        let second: Unmanaged<PluginInstance>?
        package init(_ instances: [PluginInstance]) {
            self.instances = instances
            first = .passUnretained(instances[0])
            second = instances.count > 1 ? .passUnretained(instances[1]) : nil
        }

        /// Real-time safe. `body` given each instance, uncounted.
        @inline(__always)
        func forEachInstance(_ body: (PluginInstance) -> Void) {
            first._withUnsafeGuaranteedRef(body)
            second?._withUnsafeGuaranteedRef(body)
        }
    }

    package final class Stage {
        /// The instances running now (the process thread's, once active); replaced whole by
        /// `swap` when a state is loaded live.
        package var current: PluginSet { running.takeUnretainedValue() }
        /// `current`'s strong reference, held by hand (released in `deinit`) so the process path
        /// reads it without counting.
        private var running: Unmanaged<PluginSet>
        /// The control thread's view: the set it built last (saves, logs and routes read this
        /// one, never `current`, which the process thread may be swapping).
        package var published: PluginSet
        let layout: Layout
        package var bypass: Bool
        /// The plugin and how many instances it runs as: the same for every set.
        package let uri: String
        package let width: Int
        /// Its output checked and its time measured, across the sets it runs.
        package let pluginGuard = PluginGuard()
        package init(instances: [PluginInstance], layout: Layout, bypass: Bool) {
            let set = PluginSet(instances)
            running = .passRetained(set)
            published = set
            self.layout = layout
            self.bypass = bypass
            uri = instances[0].uri
            width = instances.count
        }
        deinit { running.release() }
        package var instances: [PluginInstance] { current.instances }
        var plugin: PluginInstance { current.instances[0] }
        /// The frames of latency this stage adds (0 while bypassed or benched: it is not running).
        var latency: Int { bypass || pluginGuard.benched ? 0 : withRunning { $0.first._withUnsafeGuaranteedRef { $0.latency } } }
        /// Real-time safe. Whether it runs now.
        var plays: Bool { !bypass && !pluginGuard.benched }

        /// Real-time safe. Runs `new` (its strong reference handed over) from now on; the set it
        /// replaces comes back with its strong reference handed over, for the control thread to
        /// free (deactivating its instances).
        func swap(_ new: Unmanaged<PluginSet>) -> Unmanaged<AnyObject> {
            let old = running
            running = new
            return Unmanaged<AnyObject>.fromOpaque(old.toOpaque())
        }

        /// Real-time safe. `body` given the running set, uncounted.
        @inline(__always)
        func withRunning<Result>(_ body: (PluginSet) -> Result) -> Result { running._withUnsafeGuaranteedRef(body) }
    }

    struct Change: BitwiseCopyable {
        var offset: Int
        var stage: Int
        /// A control port, `bypassPort`, or `swapPort` (then `set` holds the new instances).
        var port: UInt32
        var value: Float
        var set: UnsafeMutableRawPointer? = nil
    }

    package static let bypassPort = UInt32.max
    static let swapPort = UInt32.max - 1
    /// Where replaced instance sets go (the engine's retired ring, to be freed off the process thread).
    package var retire: ((Unmanaged<AnyObject>) -> Void)?
    /// The block's time for plugins that take it (set before the engine runs; nil: none does).
    package var time: PluginTime?

    package let stages: [Stage]
    /// The same stages as the process path reads them: uncounted, which is safe while `stages` holds them.
    private let stagesUncounted: FixedBuffer<Unmanaged<Stage>>
    let maxFrames: Int
    /// Stage output, left then right; and the mono sum.
    private let scratch: FixedBuffer<Float>
    /// This block's control changes, in time order: the first `changeCount`. (A `let` buffer and a
    /// count: a mutating call on a class's stored noncopyable value goes through an accessor that
    /// instantiates generic metadata, which allocates.)
    private let changes = FixedBuffer<Change>(capacity: 1024, repeating: Change(offset: 0, stage: 0, port: 0, value: 0))
    private var changeCount = 0
    /// Changes that did not fit this block's list: applied at once instead (counted).
    private(set) var lateChanges = 0

    /// Control thread. Each plugin with its layout on a stereo bus.
    package init(stages: [Stage], maxFrames: Int) {
        self.stages = stages
        stagesUncounted = FixedBuffer(uncounted: stages)
        self.maxFrames = maxFrames
        scratch = FixedBuffer(capacity: 3 * maxFrames, repeating: 0)
    }

    /// The layout a plugin with these audio ports takes on a stereo bus, or nil if it cannot be an insert.
    package static func layout(inputs: Int, outputs: Int) -> Layout? {
        switch (inputs, outputs) {
        case (2, 2): .stereo
        case (1, 1): .dualMono
        case (1, 2): .monoIn
        case (2, 1): .monoOut
        default: nil
        }
    }

    /// The chain's latency in frames: its running stages' sum.
    /// Real-time safe (an index loop: `reduce` over the array allocates in debug builds).
    package var latency: Int {
        var frames = 0
        for index in 0..<stagesUncounted.count { frames += stagesUncounted[index]._withUnsafeGuaranteedRef { $0.latency } }
        return frames
    }

    /// Control thread, neither chain running: each stage bypassed as `old`'s (the same chain at another rate).
    package func takeBypasses(of old: InsertChain) {
        for (stage, was) in zip(stages, old.stages) { stage.bypass = was.bypass }
    }

    /// Real-time safe. Control `port` of stage `stage` (or its bypass) becomes `value` at `offset`
    /// frames into the current block.
    package func change(stage: Int, port: UInt32, value: Float, atOffset offset: Int) {
        guard stage >= 0 && stage < stages.count else { return }
        enqueue(Change(offset: offset, stage: stage, port: port, value: value))
    }

    /// Real-time safe. Stage `stage` runs `set` (its strong reference handed over) from `offset`
    /// frames into the current block; the run is split there, as for a control change.
    package func swap(stage: Int, to set: Unmanaged<PluginSet>, atOffset offset: Int) {
        enqueue(Change(offset: offset, stage: stage, port: Self.swapPort, value: 0, set: set.toOpaque()))
    }

    /// Real-time safe. Into this block's list; when it is full, applied at once (counted).
    private func enqueue(_ change: Change) {
        guard changeCount < changes.capacity else {
            lateChanges += 1
            return apply(change)
        }
        changes[changeCount] = change
        changeCount += 1
    }

    /// Real-time safe.
    private func apply(_ change: Change) {
        stagesUncounted[change.stage]._withUnsafeGuaranteedRef { stage in
            if change.port == Self.swapPort, let set = change.set {
                let old = stage.swap(Unmanaged<PluginSet>.fromOpaque(set))
                if let retire { retire(old) } else { old.release() }
            } else if change.port == Self.bypassPort {
                stage.bypass = change.value >= 0.5
                // An explicit "play" puts a benched plugin back, as the performer asked.
                if !stage.bypass && stage.pluginGuard.benched { stage.pluginGuard.reinstate() }
            } else {
                stage.withRunning { $0.forEachInstance { $0.setControl(change.port, change.value) } }
            }
        }
    }

    /// Real-time safe. Runs every stage over `frames` frames of `left`/`right`, in place.
    package func process(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frames: Int) {
        for index in 0..<stagesUncounted.count {
            stagesUncounted[index]._withUnsafeGuaranteedRef { stage in process(stage, index, left: left, right: right, frames: frames) }
        }
        changeCount = 0
    }

    /// Real-time safe. One stage over the block: its runs split where its controls change, timed as one.
    @inline(__always)
    private func process(_ stage: Stage, _ index: Int, left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frames: Int) {
        if let fresh = stage.pluginGuard.takeReplacement() {
            let old = stage.swap(fresh)
            if let retire { retire(old) } else { old.release() }
        }
        var start = 0, timed = false
        let atFrames = stage.withRunning { $0.first._withUnsafeGuaranteedRef { $0.takesControlsAtFrames } }
        for changeIndex in 0..<changeCount where changes[changeIndex].stage == index {
            let change = changes[changeIndex]
            let offset = min(max(change.offset, 0), frames)
            // A CLAP plugin takes a control change as an event at its frame: no split.
            if atFrames && change.port < Self.swapPort && stage.plays {
                // Read into constants first: a closure capturing the `var` would box it on the heap.
                let (port, value, frame) = (change.port, change.value, min(offset - start, frames - start - 1))
                stage.withRunning { $0.forEachInstance { $0.queueControl(port, value, atFrame: frame) } }
                continue
            }
            if offset > start && stage.plays && !stage.withRunning({ $0.first._withUnsafeGuaranteedRef { $0.coarseBlockLength } }) {
                if !timed { stage.pluginGuard.startRun() }
                timed = true
                run(stage, left: left, right: right, from: start, to: offset)
                start = offset
            }
            apply(change)
        }
        if start < frames && stage.plays {
            if !timed { stage.pluginGuard.startRun() }
            timed = true
            run(stage, left: left, right: right, from: start, to: frames)
        }
        if timed { stage.pluginGuard.stopTiming() }
        // Not run (bypassed, benched): it missed the block's time; where the grid stands, at its next run.
        if !stage.plays, time != nil { stage.withRunning { $0.forEachInstance { $0.missedTime() } } }
    }

    /// Real-time safe. At the end of each period: every stage's guard counts it (`budgetNanoseconds`:
    /// a plugin's share of the period, 0: none). A stage benched now has its controls snapshot,
    /// for the fresh instance a control thread builds (true: a stage was benched now).
    @discardableResult
    package func closePeriod(budgetNanoseconds: Int) -> Bool {
        var benched = false
        for index in 0..<stagesUncounted.count {
            stagesUncounted[index]._withUnsafeGuaranteedRef { stage in
                stage.withRunning { set in
                    // An isolated plugin's time is bounded by its child's deadline: not an overrun to bench it for.
                    let budget = set.first._withUnsafeGuaranteedRef { $0.isolation == nil } ? budgetNanoseconds : 0
                    if stage.pluginGuard.closePeriod(budgetNanoseconds: budget) {
                        set.forEachInstance { $0.snapshotControls() }
                        benched = true
                    }
                }
            }
        }
        return benched
    }

    /// Real-time safe. One stage over frames `from..<to` (the caller times it), its output
    /// checked and copied back onto the bus.
    private func run(_ stage: Stage, left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, from: Int, to: Int) {
        let frames = to - from
        let inLeft = left + from, inRight = right + from
        let outLeft = scratch.pointer, outRight = scratch.pointer + maxFrames, mono = scratch.pointer + 2 * maxFrames
        // The set and its instances read uncounted: the set is this stage's until the next swap.
        stage.withRunning { set in
            if let time { set.forEachInstance { $0.queuePositions(time, from: from, to: to) } }
            set.first._withUnsafeGuaranteedRef { plugin in
                switch stage.layout {
                case .stereo:
                    plugin.run(inputs: inLeft, inRight, outputs: outLeft, outRight, frames: frames)
                case .dualMono:
                    plugin.run(inputs: inLeft, nil, outputs: outLeft, nil, frames: frames)
                    set.second?._withUnsafeGuaranteedRef { $0.run(inputs: inRight, nil, outputs: outRight, nil, frames: frames) }
                case .monoIn:
                    for frame in 0..<frames { mono[frame] = 0.5 * (inLeft[frame] + inRight[frame]) }
                    plugin.run(inputs: mono, nil, outputs: outLeft, outRight, frames: frames)
                case .monoOut:
                    plugin.run(inputs: inLeft, inRight, outputs: outLeft, nil, frames: frames)
                    outRight.update(from: outLeft, count: frames)
                }
            }
        }
        // Nothing non-finite or subnormal reaches the next stage.
        stage.pluginGuard.checkOutputs(outLeft, outRight, frames: frames)
        inLeft.update(from: outLeft, count: frames)
        inRight.update(from: outRight, count: frames)
    }
}
