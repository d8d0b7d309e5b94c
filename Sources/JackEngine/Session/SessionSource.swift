import Control
import Foundation

/// A session file of any kind pulsejack reads, as control messages at frames: a HealthKit JSON
/// export, a CSV (bpm, beat, rr, ppg, pose or EEG bands), or pulsejack's own session log.
/// Control thread.
public struct SessionSource {
    public var messages: [ControlMessage]
    /// Where the recording ended (session logs), or the last entry's frame.
    public var endFrame: Int64
    /// Entries read but rejected (impossible heart rates), to report.
    public var rejections: [HeartSession.Rejection]
    /// All entries rejected (only the first ones are kept in `rejections`).
    public var rejectedCount = 0
    /// A session log: it carries the live run's own tempo and length.
    public var isSessionLog = false

    public static func load(path: String, sampleRate: Int, regions: [String] = [],
                            regionModel: RegionModel = RegionModel()) throws -> SessionSource {
        if let data = try? UserFile.read(path, what: "session file"), let text = String(data: data, encoding: .utf8),
           SessionLog.isSessionLog(text) {
            let log = try SessionLog.parse(text, path: path)
            guard log.header.sample_rate == sampleRate else {
                throw InputError(file: path, line: 1, field: "sample_rate",
                                 "recorded at \(log.header.sample_rate) Hz: render it with --rate \(log.header.sample_rate)")
            }
            return SessionSource(messages: log.messages, endFrame: log.endFrame ?? (log.messages.last?.frame ?? 0),
                                 rejections: [], isSessionLog: true)
        }
        let session = try HeartSession.load(path: path)
        return SessionSource(messages: OfflineRenderer.messages(for: session, sampleRate: sampleRate, regions: regions,
                                                                     regionModel: regionModel),
                             endFrame: Int64((session.duration * Double(sampleRate)).rounded()),
                             rejections: session.rejections, rejectedCount: session.rejectedCount)
    }
}
