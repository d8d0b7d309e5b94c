import Atomics
import Foundation
import Voices
import Realtime
import Plugins

/// A voice's settings as the engine holds them now: what a session save keeps.
public struct VoiceState: Sendable, Equatable, BitwiseCopyable {
    public var enabled: Bool
    public var gain: Float
    public var pan: Float
    public var rate: BeatRate
}

/// Copies of the voices' settings (and hosted plugins' controls) taken on the process thread,
/// which alone writes them, at a control thread's request: a save never reads a setting while
/// the process thread changes it. When the process thread does not answer, the request is
/// withdrawn before the control thread copies for itself (`SnapshotHandshake`).
package final class VoiceStateSnapshot {
    private let states: FixedBuffer<VoiceState>
    let count: Int
    private let handshake = SnapshotHandshake()

    init(count: Int) {
        self.count = count
        states = FixedBuffer(capacity: count, repeating: VoiceState(enabled: false, gain: 0, pan: 0, rate: .everyBeat))
    }

    /// Real-time safe. Takes the copy when one was asked for.
    @inline(__always)
    func serve(_ slots: ContiguousArray<VoiceSlot>, master: InsertChain?) {
        guard handshake.begin() else { return }
        copy(slots, master: master)
        handshake.finish()
    }

    /// Real-time safe. Also each hosted plugin's controls (into its own snapshot). On the control
    /// thread only while no request is outstanding (`request` returned).
    func copy(_ slots: ContiguousArray<VoiceSlot>, master: InsertChain?) {
        for index in 0..<min(count, slots.count) {
            let slot = slots[index]
            states[index] = VoiceState(enabled: slot.enabled, gain: slot.gain, pan: slot.pan, rate: slot.rate)
        }
        for index in 0..<slots.count {
            slots[index].instrument?.snapshotControls()
            if let inserts = slots[index].inserts { Self.snapshot(inserts) }
        }
        if let master { Self.snapshot(master) }
    }

    /// Real-time safe.
    private static func snapshot(_ chain: InsertChain) {
        for stage in 0..<chain.stages.count {
            let instances = chain.stages[stage].instances
            for index in 0..<instances.count { instances[index].snapshotControls() }
        }
    }

    /// Control thread. Asks the process thread for a copy and waits up to `timeout` seconds.
    /// False when it did not answer (not running): the request is withdrawn, and nothing will
    /// write the copy until the next request.
    func request(timeout: Double) -> Bool {
        handshake.requestAndWait(timeout: timeout)
    }

    /// Control thread, after `copy` made here (the request withdrawn): the copy is ordered
    /// before the process thread's next period.
    func copiedHere() { handshake.copiedForItself() }

    /// Real-time safe. At each period's start.
    @inline(__always)
    func periodBegins() { handshake.periodBegins() }

    var values: [VoiceState] { Array(UnsafeBufferPointer(start: states.pointer, count: count)) }
}
