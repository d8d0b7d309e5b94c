import Foundation
import Realtime

/// One mood model per performer over every EEG source: OSC's `/muse/elements/<band>_absolute`
/// and a Muse headband read directly report band powers here as they come; the mood each
/// performer's window says is kept for the mood DJ, the page and the status, and said when it
/// changes (at most once a second). Any thread reports and reads.
public final class MoodWatch: Sendable {
    private struct Performer: Sendable {
        var model: MoodModel
        var mood: String?
        /// The last band powers as they came (not averaged), for the page and the status.
        var latest: [EEGBand: Double] = [:]
    }

    private let performers: LockedBox<[Performer]>
    private let names: [String]
    private let started = MonotonicClock.seconds
    private let log: @Sendable (String) -> Void
    /// Mood changes said at most once a second (EEG flickering between two moods must not flood).
    private let lines = WarningLimiter()

    /// `names`: the preset's performers (empty: one unnamed performer).
    public init(model: MoodModel, performers names: [String] = [], log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.names = names
        self.log = log
        performers = LockedBox(Array(repeating: Performer(model: model), count: max(1, names.count)))
    }

    /// Any thread: a band power of `performer`'s EEG (a log10 absolute power, as the Muse SDK and
    /// Mind Monitor give it, or any value the preset's ranges are written for).
    public func observe(_ band: EEGBand, _ value: Double, performer: Int = 0) {
        guard value.isFinite else { return }
        let at = MonotonicClock.seconds - started
        let change = performers.withLockedValue { performers -> String?? in
            guard performer >= 0 && performer < performers.count else { return nil }
            performers[performer].latest[band] = value
            performers[performer].model.add(band, value, at: at)
            let mood = performers[performer].model.mood
            guard mood != performers[performer].mood else { return nil }
            performers[performer].mood = mood
            return .some(mood)
        }
        guard let change else { return }
        let whose = names.isEmpty ? "" : names[performer] + "'s "
        if let line = lines.admit("\(whose)mood: \(change ?? "undefined")", kind: "mood \(performer)") { log(line) }
    }

    /// Performer `index`'s current mood (nil: undefined, no EEG data).
    public func mood(of index: Int = 0) -> String? { performers.withLockedValue { index < $0.count ? $0[index].mood : nil } }

    /// Performer `index`'s band powers averaged over the mood window (bands not seen are absent).
    public func averages(of index: Int = 0) -> [EEGBand: Double] {
        performers.withLockedValue { performers in
            guard index < performers.count else { return [:] }
            return Dictionary(uniqueKeysWithValues: EEGBand.allCases.compactMap { band in performers[index].model.average(band).map { (band, $0) } })
        }
    }

    /// Performer `index`'s band powers as they last came.
    public func latest(of index: Int = 0) -> [EEGBand: Double] {
        performers.withLockedValue { index < $0.count ? $0[index].latest : [:] }
    }
}
