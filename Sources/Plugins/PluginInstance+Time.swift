import Realtime

/// The host's time into a plugin whose atom input takes `time:Position`: the block's changes
/// within each run, at their frames, and where the grid stands at its first run.
extension PluginInstance {
    /// Real-time safe. The positions for the run over the block's frames `from..<to`: each
    /// change in it, and — at its first run — where the grid stands at `from`. Before the run's
    /// MIDI; nothing for a plugin that takes no time.
    package func queuePositions(_ time: PluginTime, from: Int, to: Int) {
        guard takesTime else { return }
        resetQueue()
        var changesAtStart = false
        for index in 0..<time.count where time[index].offset == from { changesAtStart = true }
        let atStart = time.position(atOffset: from)
        if isolation != nil { setRunStart(atStart) }
        // A CLAP plugin is told the transport at every process's start.
        if (takeNeedsPosition() || clap != nil) && !changesAtStart { queuePosition(atStart, atFrame: 0) }
        for index in 0..<time.count {
            let change = time[index]
            if change.offset >= from && change.offset < to { queuePosition(change.position, atFrame: change.offset - from) }
        }
    }

    /// Real-time safe. In a plugin's child: the positions the engine wrote for this run, and
    /// where the grid stood at its start for a fresh instance that has been told nothing.
    func queuePositions(from region: PluginRegion) {
        guard takesTime else { return }
        resetQueue()
        let count = min(Int(region.positionCount.load(ordering: .relaxed)), PluginRegion.positionCapacity)
        guard count > 0 else { return }
        if (takeNeedsPosition() || clap != nil) && (count == 1 || region.position(1).frame != 0) {
            queuePosition(region.position(0).position, atFrame: 0)
        }
        for index in 1..<count {
            let change = region.position(index)
            queuePosition(change.position, atFrame: change.frame)
        }
    }
}
