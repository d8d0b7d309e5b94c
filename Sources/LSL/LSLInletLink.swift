import CLSL
import Foundation
import Inputs
import Realtime
import BodySignals

/// One requested stream's life on the LSL input's thread (only there): its inlet, what the
/// stream said of itself, its clock correction, and the reader its samples go through.
final class LSLInletLink {
    let index: Int
    let query: LSLStreamQuery
    let configuration: LSLInput.Configuration
    let engineRate: Int
    private var inlet: lsl_inlet?
    /// Resolves the stream in liblsl's background (its answers read without waiting).
    private var resolver: lsl_continuous_resolver?
    private(set) var info: LSLStreamInfo?
    private var reader: LSLSampleReader?
    var retryAt = -Double.infinity
    var dropouts = 0
    var problem: String?
    /// What the stream's description lacks, found at its last opening (a channel a signal names).
    private(set) var openingProblem: String?
    private var pendingProblem: String?
    var statusChanged = false
    private var samples = 0, lost = 0
    /// Samples refused for their time stamp (no number, or far from now: `acceptsStamp`).
    private var badStamps = 0
    /// Beats and refused values of the readers before the last reconnect (each opening makes a new one).
    private var earlierBeats = 0, earlierBadValues = 0, earlierLate = 0
    private var correction = 0.0, correctionRead = -Double.infinity, correctionKnown = false
    private var lastStamp: Double?
    private var data: [Double] = [], stamps: [Double] = []

    /// How often the clock correction is asked for again (liblsl measures it in the background).
    static let correctionEvery = 5.0
    /// Seconds after which the resolver forgets a stream that stopped answering.
    static let forgetAfter = 3.0
    /// The longest any one liblsl call may wait: the input's thread stops within a second whatever
    /// its inlets are doing.
    static let longestWait = 0.3
    /// Values one pull reads at most (rows × channels): a wide stream is read in smaller chunks.
    static let pullElements = 262_144
    /// How far from the local clock a corrected time stamp may lie: a minute ahead (OSC's horizon)
    /// and an hour behind. Beyond, it is no stream's time, and the sample is refused.
    static let stampAhead = 60.0, stampBehind = 3600.0

    /// Whether a sample stamped `time` (on the local clock, corrected) at local time `now` is placed.
    static func acceptsStamp(_ time: Double, now: Double) -> Bool {
        time.isFinite && time - now <= stampAhead && now - time <= stampBehind
    }

    init(index: Int, query: LSLStreamQuery, configuration: LSLInput.Configuration, engineRate: Int) {
        (self.index, self.query, self.configuration, self.engineRate) = (index, query, configuration, engineRate)
    }

    var isOpen: Bool { inlet != nil }

    /// Opens an inlet on the stream once the resolver has found it (never waiting for the
    /// resolver, so the other streams are pulled meanwhile); false when none answered yet.
    /// Throws when one answers that cannot be read as asked.
    func open(stillRunning: () -> Bool) throws(LSLError) -> Bool {
        if resolver == nil { resolver = pj_lsl_create_continuous_resolver_bypred(query.predicate, Self.forgetAfter) }
        guard let resolver else { throw LSLError("could not look for \(query.description)") }
        var found = [lsl_streaminfo?](repeating: nil, count: 8)
        let count = Int(pj_lsl_resolver_results(resolver, &found, UInt32(found.count)))
        guard count > 0 else { return false }
        defer { for info in found.prefix(count) { if let info { pj_lsl_destroy_streaminfo(info) } } }
        // Of several (muse-lsl names its EEG and PPG streams alike), the first that can be read as
        // asked, judged on its full description (the resolver's answer carries no channels).
        var refusal: LSLError?
        for candidate in found.prefix(count) {
            guard let candidate, stillRunning() else { continue }
            guard let inlet = pj_lsl_create_inlet(candidate, 360, 0, 0) else { continue }
            var error: Int32 = 0
            pj_lsl_open_stream(inlet, Self.longestWait, &error)
            // The full description (the resolver's answer carries no desc/channels).
            let full = error == 0 ? pj_lsl_get_fullinfo(inlet, Self.longestWait, &error) : nil
            guard error == 0, let full else {
                pj_lsl_destroy_inlet(inlet)
                continue
            }
            let fullInfo = LSLStreamInfo(full)
            pj_lsl_destroy_streaminfo(full)
            let fresh: LSLSampleReader
            do {
                fresh = try LSLSampleReader(query: query, info: fullInfo, configuration: configuration, engineRate: engineRate)
            } catch {
                pj_lsl_destroy_inlet(inlet)
                refusal = error
                continue
            }
            if let reader = self.reader {
                (earlierBeats, earlierBadValues, earlierLate) = (earlierBeats + reader.beats, earlierBadValues + reader.badValues, earlierLate + reader.late)
            }
            reader = fresh
            self.inlet = inlet
            info = fullInfo
            correctionKnown = false
            readCorrection(inlet, waiting: Self.longestWait)
            lastStamp = nil
            (problem, openingProblem) = (nil, fresh.problem)
            let channels = max(1, fullInfo.channelCount)
            let rows = max(16, min(1024, Self.pullElements / channels))
            data = Array(repeating: 0, count: channels * rows)
            stamps = Array(repeating: 0, count: rows)
            return true
        }
        if let refusal { throw refusal }
        return false
    }

    func close() {
        if let inlet { pj_lsl_destroy_inlet(inlet) }
        inlet = nil
    }

    /// At the thread's end: the inlet and the resolver go.
    func finish() {
        close()
        if let resolver { pj_lsl_destroy_continuous_resolver(resolver) }
        resolver = nil
    }

    enum Outcome {
        case samples([ControlMessage], beats: Int, bands: [(EEGBand, Double)])
        case lost
        case nothing
    }

    /// What arrived since the last pull (never waits).
    func pull(clock: LabClock) -> Outcome {
        guard let inlet, let reader, let info else { return .nothing }
        var error: Int32 = 0
        if !correctionKnown || MonotonicClock.seconds - correctionRead > Self.correctionEvery {
            readCorrection(inlet, waiting: correctionKnown ? 0.05 : 0.01)
        }
        var rows: [[Double]] = [], texts: [String] = [], times: [Double] = []
        let (now, pulledBefore) = (MonotonicClock.seconds, samples)
        // Each sample's stamp is the peer's word: one that is no time near now is refused, counted.
        func keep(_ stamp: Double) -> Bool {
            let time = stamp + correction
            guard Self.acceptsStamp(time, now: now) else {
                badStamps += 1
                pendingProblem = "a sample stamped \(stamp) s (the local clock reads \(now.formatted(.number.precision(.fractionLength(3)))) s) was refused"
                return false
            }
            times.append(time)
            return true
        }
        if info.isText {
            for _ in 0..<stamps.count {
                var text: UnsafeMutablePointer<CChar>?
                let stamp = pj_lsl_pull_sample_str(inlet, &text, 1, 0.0, &error)
                if error == lsl_lost_error.rawValue { return .lost }
                guard stamp != 0, error == 0 else { break }
                samples += 1
                if keep(stamp) { texts.append(text.map { String(cString: $0) } ?? "") }
                if let text { pj_lsl_destroy_string(text) }
            }
        } else {
            let channels = max(1, info.channelCount)
            let elements = Int(pj_lsl_pull_chunk_d(inlet, &data, &stamps, UInt(data.count), UInt(stamps.count), 0.0, &error))
            if error == lsl_lost_error.rawValue { return .lost }
            let count = elements / channels
            samples += count
            for row in 0..<count where keep(stamps[row]) {
                rows.append(Array(data[(row * channels)..<((row + 1) * channels)]))
            }
        }
        if samples > pulledBefore { statusChanged = true }
        guard !times.isEmpty else { return .nothing }
        if info.rate > 0 { countLost(times, rate: info.rate) }
        let frames = times.map { clock.frame(atSeconds: $0) }
        let made = reader.read(rows: rows, texts: texts, frames: frames, now: clock.currentFrame)
        if let problem = made.problem { pendingProblem = problem }
        return .samples(made.messages, beats: made.beats, bands: made.bands)
    }

    /// Samples missing between `times` (a regular stream's gaps). A gap longer than a minute is
    /// the peer's clock jumping (a restart), not samples lost.
    private func countLost(_ times: [Double], rate: Double) {
        for time in times {
            if let lastStamp, let gap = Int(checkedRounding: (time - lastStamp) * rate), gap > 1, Double(gap) <= 60 * rate {
                lost += gap - 1
            }
            lastStamp = time
        }
    }

    /// The inlet's clock correction, waiting at most `waiting` seconds (liblsl measures it in the
    /// background once asked; until it answers, the stream's own clock is taken as ours).
    private func readCorrection(_ inlet: lsl_inlet, waiting: Double) {
        var error: Int32 = 0
        let fresh = pj_lsl_time_correction(inlet, waiting, &error)
        if error == 0, fresh.isFinite, abs(fresh) < 1e9 {
            (correction, correctionKnown, statusChanged) = (fresh, true, true)
        }
        correctionRead = MonotonicClock.seconds
    }

    func takeProblem() -> String? {
        defer { pendingProblem = nil }
        return pendingProblem
    }

    var status: LSLStreamStatus {
        var status = LSLStreamStatus(direction: "in", name: info?.name ?? query.description, type: info?.type ?? "", rate: info?.rate ?? 0,
                                     problem: problem)
        status.role = query.role.rawValue
        status.state = isOpen ? "streaming" : (dropouts > 0 ? "lost" : "resolving")
        status.samples = samples
        status.timeCorrection = isOpen ? correction : nil
        status.lost = lost
        status.dropouts = dropouts
        status.late = earlierLate + (reader?.late ?? 0)
        status.beats = earlierBeats + (reader?.beats ?? 0)
        status.badStamps = badStamps
        status.badValues = earlierBadValues + (reader?.badValues ?? 0)
        return status
    }
}
