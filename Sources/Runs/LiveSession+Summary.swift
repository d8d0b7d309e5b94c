import Engine

extension LiveSession {
    /// What a run did, for its last line.
    public struct Summary: CustomStringConvertible {
        public var counts: EngineCounters.Snapshot
        public var reconnects: Int
        /// "; recorded N frames to PATH" (and its losses), or empty.
        public var recorded: String

        public var description: String {
            "\(counts.framesProcessed + counts.framesSkipped) frames: \(counts.beats) beats, \(counts.voicesFired) voices fired, \(counts.xruns) xruns (\(counts.framesSkipped) frames skipped), \(counts.rejectedTempos) tempo updates rejected, \(counts.lateMessages) late messages, \(counts.clippedSamples) clipped samples" + (counts.recordingOverruns > 0 ? ", \(counts.recordingOverruns) messages lost to a full recording ring" : "") + (reconnects > 0 ? ", \(reconnects) reconnects" : "") + recorded
        }
    }
}
