import Engine
import Realtime

extension LiveSession {
    /// What a run did, for its last line.
    public struct Summary: CustomStringConvertible {
        public var counts: EngineCounters.Snapshot
        public var reconnects: Int
        /// "; recorded N frames to PATH" (and its losses), or empty.
        public var recorded: String

        public init(counts: EngineCounters.Snapshot, reconnects: Int, recorded: String) {
            (self.counts, self.reconnects, self.recorded) = (counts, reconnects, recorded)
        }

        public var description: String {
            "\(counts[.framesProcessed] + counts[.framesSkipped]) frames: \(counts.summary)"
                + (reconnects > 0 ? ", \(reconnects) reconnects" : "") + recorded
        }
    }
}
