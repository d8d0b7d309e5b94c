import Realtime
import Plugins

extension RealtimeEngine {
    /// Control thread, neither engine running: the process thread stopped running `old` when
    /// the server changed its sample rate, and has not run this one — the same preset built at
    /// the new rate with `old`'s handle. This engine goes on where `old` stopped, counted in
    /// seconds: the frame timeline continues from `old`'s last frame; each heart keeps its tempo
    /// and beat phase; voices keep their settings (on, gain, pan, rate), the plugins their
    /// controls and bypasses; the Tambour mode and pattern go on; events and MIDI notes still
    /// to come keep their distance in seconds. Sounding tails are not carried (new voices).
    /// Each hosted plugin takes its predecessor's state through a folder of its own under
    /// `stateFolder` (kept: a state may name files there); what could not be carried, said once each.
    public func takeOver(from old: RealtimeEngine, stateFolder: String) -> [String] {
        ProcessThread.assertOutside("carrying an engine over to a new rate")
        precondition(old.handle === handle && old.slots.count == slots.count, "an engine rebuilt from the same preset")
        let frame = old.framePosition
        let ratio = Double(sampleRate) / Double(old.sampleRate)
        func moved(_ at: Int64) -> Int64 { frame + Int64((Double(at - frame) * ratio).rounded()) }
        framePosition = frame
        periodStart = frame
        blockStart = frame
        hearts.takeOver(old.hearts, at: frame)
        for index in 0..<slots.count {
            let was = old.slots[index], slot = slots[index]
            (slot.enabled, slot.gain, slot.pan, slot.rate) = (was.enabled, was.gain, was.pan, was.rate)
            (slot.heartLevel, slot.appliedLeft, slot.appliedRight) = (was.heartLevel, was.appliedLeft, was.appliedRight)
            (slot.modulatedGain, slot.modulatedPan, slot.modulatedVelocity) = (was.modulatedGain, was.modulatedPan, was.modulatedVelocity)
            slot.togetherUsed = (was.togetherUsed.first < 0 ? -1 : moved(was.togetherUsed.first),
                                 was.togetherUsed.second < 0 ? -1 : moved(was.togetherUsed.second))
            if slot.performer >= 0, let bpm = handle.publishedTempo(of: slot.performer) { slot.tempoVoice?.follow(bpm: bpm) }
        }
        if let modulations, let played = old.modulations { modulations.takeOver(played, at: frame) }
        for index in 0..<slots.count { slots[index].inserts.map { chain in old.slots[index].inserts.map { chain.takeBypasses(of: $0) } } }
        if let masterInserts, let played = old.masterInserts { masterInserts.takeBypasses(of: played) }
        var problems: [String] = []
        for (plugins, played) in zip(graph.hostedPlugins(), old.graph.hostedPlugins()) {
            for (number, (instance, playing)) in zip(plugins.instances, played.instances).enumerated() {
                do {
                    try instance.takeState(of: playing, through: "\(stateFolder)/\(plugins.place)/\(number + 1)")
                } catch {
                    instance.takeControls(of: playing)
                    problems.append("\(plugins.place): its state did not carry over to the new rate (\(error)); its controls did")
                }
            }
        }
        performance.takeOver(old.performance)
        while let pending = old.queue.popEarliest() {
            let at = pending.frame <= frame ? frame : moved(pending.frame)
            if !queue.insert(frame: at, pending.event, performer: pending.performer) {
                handle.counters.add(.queueOverflows)
            }
        }
        firing.takeOver(old.firing, moved: { $0 <= frame ? $0 : moved($0) })
        return problems
    }
}
