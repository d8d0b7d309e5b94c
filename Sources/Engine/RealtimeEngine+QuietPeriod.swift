/// The quiet period of a hosted instrument: most of its periods have nothing due in them.
extension RealtimeEngine {
    /// Real-time safe. With `playsQuietPeriods`, a period (one chunk) in which nothing is due: no
    /// message or MIDI note in the queue, no pulse of any heart, no early firing, no modulation. The one voice
    /// renders straight into the output (`Mixer.renderSoleBlockVoice`), as the sub-block pass
    /// would have after finding nothing to split at and no other voice to render, without that
    /// pass: a period touches little more code than a bare host's. The chunk is begun
    /// (`beginChunk`) whatever the answer. False: something is due, or the voice does not qualify
    /// now (gains slewing, silenced); nothing was rendered and `processChunk` takes the period.
    func playQuietPeriod(frames: Int, left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>) -> Bool {
        let end = beginChunk(frames: frames)
        if let due = queue.earliestFrame, due < end { return false }
        if let due = firing.nextEarlyFrame, due < end { return false }
        if let modulations, modulations.nextDue < end { return false }
        guard hearts.nextPulse(from: framePosition, before: end).frame == end,
              mixer.renderSoleBlockVoice(frames: frames, left: left, right: right) else { return false }
        if let midiClock { midiClock.collect(hearts.clock(hearts.gridHeart), from: framePosition, to: end) }
        endChunk(at: end)
        quietPeriods &+= 1
        return true
    }
}
