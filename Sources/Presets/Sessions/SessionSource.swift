import BodySignals
import UserFiles
import Inputs
import Foundation
import Realtime

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

    /// No session: a render of a video's pose alone.
    public static var none: SessionSource { SessionSource(messages: [], endFrame: 0, rejections: []) }

    /// `signals`: the preset's signal names; a session log's signals are renumbered to them by
    /// name (one the preset does not read is left out).
    public static func load(path: String, sampleRate: Int, regions: [String] = [],
                            regionModel: RegionModel = RegionModel(), signals: [String] = []) throws -> SessionSource {
        if let data = try? UserFile.read(path, what: "session file"), let text = String(data: data, encoding: .utf8),
           SessionLog.isSessionLog(text) {
            let log = try SessionLog.parse(text, path: path)
            guard log.header.sample_rate == sampleRate else {
                throw InputError(file: path, line: 1, field: "sample_rate",
                                 "recorded at \(log.header.sample_rate) Hz: render it with --rate \(log.header.sample_rate)")
            }
            let logged = log.header.signals ?? []
            let messages = log.messages.compactMap { message -> ControlMessage? in
                guard case .signal(let index, let value) = message.event else { return message }
                guard Int(index) < logged.count, let renumbered = signals.firstIndex(of: logged[Int(index)]) else { return nil }
                var moved = message
                moved.event = .signal(index: Int32(renumbered), value)
                return moved
            }
            return SessionSource(messages: messages, endFrame: log.endFrame ?? (log.messages.last?.frame ?? 0),
                                 rejections: [], isSessionLog: true)
        }
        let session = try HeartSession.load(path: path)
        return SessionSource(messages: SessionSource.messages(for: session, sampleRate: sampleRate, regions: regions,
                                                                     regionModel: regionModel),
                             endFrame: Int64((session.duration * Double(sampleRate)).rounded()),
                             rejections: session.rejections, rejectedCount: session.rejectedCount)
    }

    /// The session's entries as messages at their frames (time × rate, rounded to the nearest
    /// frame). RR intervals become the tempo they imply (and go along for the variability); a pulse wave goes through the PPG beat
    /// detector, whose beats take its place as explicit beats.
    /// Pose samples also go through the region model: a hit, at its interpolated crossing frame,
    /// for every region named in `regions` (the preset's, in index order).
    public static func messages(for session: HeartSession, sampleRate: Int, regions: [String] = [],
                                regionModel model: RegionModel = RegionModel()) -> [ControlMessage] {
        var messages: [ControlMessage] = []
        // The pulse-wave detector's rate is the session's own sample spacing.
        let ppgTimes = session.entries.compactMap { entry -> Double? in
            if case .ppg = entry.event { return entry.time } else { return nil }
        }
        let spacing = ppgTimes.count > 1 ? (ppgTimes.last! - ppgTimes.first!) / Double(ppgTimes.count - 1) : 0.01
        var sensors = SensorInterpreter(regionNames: regions, regionModel: model,
                                        ppgRate: min(10_000, max(10, 1 / max(spacing, 1e-4))))
        for entry in session.entries {
            let frame = Int64((entry.time * Double(sampleRate)).rounded())
            switch entry.event {
            case .tempo(let bpm): messages.append(ControlMessage(frame: frame, .tempo(bpm: bpm)))
            case .beat(let strength): messages.append(ControlMessage(frame: frame, .heartbeat(strength: strength)))
            case .rr(let seconds):
                // The tempo the interval implies; the clock places the beats (a source drives
                // either the clock or explicit beats, never both, or every beat would sound twice).
                messages.append(ControlMessage(frame: frame, .tempo(bpm: 60 / seconds)))
                // The interval itself (in 1/1024 s, as a strap sends it), for the heart's variability.
                for interval in RRIntervals.chunks(seconds: [seconds]) { messages.append(ControlMessage(frame: frame, .rrIntervals(interval))) }
            case .ppg(let sample):
                if sensors.pulseWave(sample) { messages.append(ControlMessage(frame: frame, .heartbeat(strength: 1))) }
            case .pose(let lx, let ly, let rx, let ry):
                messages.append(ControlMessage(frame: frame, .pose(leftX: lx, leftY: ly, rightX: rx, rightY: ry)))
                for hit in sensors.pose(frame: frame, leftX: lx, leftY: ly, rightX: rx, rightY: ry) {
                    messages.append(ControlMessage(frame: hit.frame, .regionHit(region: hit.region, velocity: 1)))
                }
            case .bands(let alpha, let beta, let delta, let theta, let gamma):
                for (band, value) in zip(EEGBand.allCases, [alpha, beta, delta, theta, gamma]) {
                    messages.append(ControlMessage(frame: frame, .bandPower(band, value)))
                }
            }
        }
        return messages
    }
}
