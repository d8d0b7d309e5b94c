import CLSL
import Foundation
import Inputs
import Realtime
import Sensors

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
    private var pendingProblem: String?
    var statusChanged = false
    private var samples = 0, lost = 0
    private var correction = 0.0, correctionRead = -Double.infinity
    private var lastStamp: Double?
    private var data: [Double] = [], stamps: [Double] = []

    /// How often the clock correction is asked for again (liblsl measures it in the background).
    static let correctionEvery = 5.0
    /// Seconds after which the resolver forgets a stream that stopped answering.
    static let forgetAfter = 3.0

    init(index: Int, query: LSLStreamQuery, configuration: LSLInput.Configuration, engineRate: Int) {
        (self.index, self.query, self.configuration, self.engineRate) = (index, query, configuration, engineRate)
    }

    var isOpen: Bool { inlet != nil }

    /// Opens an inlet on the stream once the resolver has found it (never waiting for the
    /// resolver, so the other streams are pulled meanwhile); false when none answered yet.
    /// Throws when one answers that cannot be read as asked.
    func open() throws(LSLError) -> Bool {
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
            guard let candidate else { continue }
            guard let inlet = pj_lsl_create_inlet(candidate, 360, 0, 0) else { continue }
            var error: Int32 = 0
            pj_lsl_open_stream(inlet, 1.0, &error)
            // The full description (the resolver's answer carries no desc/channels).
            let full = error == 0 ? pj_lsl_get_fullinfo(inlet, 2.0, &error) : nil
            guard error == 0, let full else {
                pj_lsl_destroy_inlet(inlet)
                continue
            }
            let fullInfo = LSLStreamInfo(full)
            pj_lsl_destroy_streaminfo(full)
            do {
                reader = try LSLSampleReader(query: query, info: fullInfo, configuration: configuration, engineRate: engineRate)
            } catch {
                pj_lsl_destroy_inlet(inlet)
                refusal = error
                continue
            }
            self.inlet = inlet
            info = fullInfo
            correction = pj_lsl_time_correction(inlet, 2.0, &error)
            if error != 0 { correction = 0 }
            correctionRead = MonotonicClock.seconds
            lastStamp = nil
            problem = reader?.problem
            let channels = max(1, fullInfo.channelCount)
            data = Array(repeating: 0, count: channels * 1024)
            stamps = Array(repeating: 0, count: 1024)
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
        if MonotonicClock.seconds - correctionRead > Self.correctionEvery {
            let fresh = pj_lsl_time_correction(inlet, 0.05, &error)
            if error == 0 { correction = fresh; statusChanged = true }
            correctionRead = MonotonicClock.seconds
            error = 0
        }
        var rows: [[Double]] = [], texts: [String] = [], times: [Double] = []
        if info.isText {
            while true {
                var text: UnsafeMutablePointer<CChar>?
                let stamp = pj_lsl_pull_sample_str(inlet, &text, 1, 0.0, &error)
                if error == lsl_lost_error.rawValue { return .lost }
                guard stamp != 0, error == 0 else { break }
                texts.append(text.map { String(cString: $0) } ?? "")
                if let text { pj_lsl_destroy_string(text) }
                times.append(stamp + correction)
            }
        } else {
            let channels = max(1, info.channelCount)
            let elements = Int(pj_lsl_pull_chunk_d(inlet, &data, &stamps, UInt(data.count), UInt(stamps.count), 0.0, &error))
            if error == lsl_lost_error.rawValue { return .lost }
            let count = elements / channels
            for row in 0..<count {
                rows.append(Array(data[(row * channels)..<((row + 1) * channels)]))
                times.append(stamps[row] + correction)
            }
        }
        guard !times.isEmpty else { return .nothing }
        samples += times.count
        statusChanged = true
        if info.rate > 0 {
            for time in times {
                if let lastStamp, (time - lastStamp) * info.rate > 1.5 { lost += Int(((time - lastStamp) * info.rate).rounded()) - 1 }
                lastStamp = time
            }
        }
        let frames = times.map { clock.frame(atSeconds: $0) }
        let made = reader.read(rows: rows, texts: texts, frames: frames, now: clock.currentFrame)
        if let problem = made.problem { pendingProblem = problem }
        return .samples(made.messages, beats: made.beats, bands: made.bands)
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
        status.late = reader?.late ?? 0
        status.beats = reader?.beats ?? 0
        return status
    }
}
