import Realtime

/// The hosted plugins' time in the current block: where the grid stands at its start, and each
/// change within it (a tempo change, the grid's first tempo or a jump of its beats, the
/// transport's start or stop) at its offset. The engine writes it as it renders the block;
/// every plugin whose atom input takes `time:Position` gets the changes within each run, and
/// its first run where the grid stands at that run's start. The process thread's alone.
package final class PluginTime {
    /// Changes kept a block: more than any block has (a tempo change is an event, events are
    /// bounded); past it the last one is replaced, so the newest always arrives.
    package static let capacity = 32
    let offsets = FixedBuffer<Int>(capacity: capacity, repeating: 0)
    let positions = FixedBuffer<TimePosition>(capacity: capacity, repeating: PluginTime.idle)
    package private(set) var count = 0
    /// Where the grid stood at the block's start.
    package private(set) var opening = PluginTime.idle

    /// Before the grid has a tempo: beat 0 at 120 BPM, standing.
    package static let idle = TimePosition(frame: 0, beat: 0, beatsPerMinute: 120, beatsPerBar: 4, speed: 0, beatsPerFrame: 0)

    package init() {}

    /// Real-time safe. A block begins where the grid stands at `opening`; no change yet.
    package func beginBlock(_ opening: TimePosition) {
        self.opening = opening
        count = 0
    }

    /// Real-time safe. The grid changed at `offset` frames into the block (offsets in order).
    package func record(_ position: TimePosition, atOffset offset: Int) {
        if count > 0 && offsets[count - 1] == offset {
            positions[count - 1] = position
            return
        }
        let slot = min(count, Self.capacity - 1)
        offsets[slot] = offset
        positions[slot] = position
        count = slot + 1
    }

    /// Real-time safe. Where the grid stands `offset` frames into the block: the last change
    /// at or before it (or the opening), moved on.
    package func position(atOffset offset: Int) -> TimePosition {
        var index = count - 1
        while index >= 0 && offsets[index] > offset { index -= 1 }
        return index >= 0 ? positions[index].movedOn(by: Int64(offset - offsets[index])) : opening.movedOn(by: Int64(offset))
    }

    /// The change `index` (below `count`): its offset and position.
    package subscript(index: Int) -> (offset: Int, position: TimePosition) { (offsets[index], positions[index]) }
}
