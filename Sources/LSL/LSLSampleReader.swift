import Foundation
import Inputs
import Realtime
import BodySignals

/// What one stream's samples mean to the engine, by what the run asked of it and what the stream
/// is (its type, rate and channels). Deterministic in the samples and their frames: the LSL
/// input's thread, or a test.
final class LSLSampleReader {
    enum Kind {
        /// R-peaks of an ECG channel, at the stream's rate.
        case ecg(ECGBeatTimeline, channel: Int)
        /// Pulse upstrokes of a PPG channel.
        case ppg(PPGBeatDetector, channel: Int, lastBeat: Double?)
        /// Intervals between beats (RR, IBI), in ms or s.
        case intervals(channel: Int, milliseconds: Bool?)
        /// Band powers of the EEG channels.
        case eeg(EEGBandPowers, channels: [Int])
        /// `voice/NAME`, `region/NAME`.
        case markers
        /// (channel, signal index) pairs, and the frame each was last sent at.
        case signals([(channel: Int, signal: Int32)], last: [Double])
    }

    private var kind: Kind
    let performer: UInt8
    /// Engine frames from a sample's time stamp to its sound (beats: `--ecg-delay`; markers and signals: `--lsl-delay`).
    private let delayFrames: Double
    private let engineRate: Int
    /// Beats or readings made, those too late for their delay, and samples refused for a value
    /// that is no number or an absurd one (`OutsideNumber`).
    private(set) var beats = 0, late = 0, badValues = 0
    /// The most a stream may declare (samples a second, channels), and the EEG channels × rate
    /// whose band powers are worked out.
    static let highestRate = 100_000.0
    static let mostChannels = 4096
    static let eegBudget = 16_384
    /// Something the stream's description lacks (a channel a signal names), said once at opening.
    private(set) var problem: String?
    private let voices: [String], regions: [String]

    /// Throws when the stream cannot be read as asked (text as a heart, too slow for EEG …).
    init(query: LSLStreamQuery, info: LSLStreamInfo, configuration: LSLInput.Configuration, engineRate: Int) throws(LSLError) {
        self.engineRate = engineRate
        performer = UInt8(clamping: query.performer)
        (voices, regions) = (configuration.voices, configuration.regions)
        let name = "'\(info.name)' (\(info.type.isEmpty ? "no type" : info.type))"
        // What the stream declares is the peer's word: checked before anything is sized by it.
        guard info.rate.isFinite, info.rate >= 0, info.rate <= Self.highestRate else {
            throw LSLError("\(name) declares a rate of \(info.rate) Hz (0, irregular, to \(Int(Self.highestRate)) Hz are read)")
        }
        guard info.channelCount >= 1, info.channelCount <= Self.mostChannels else {
            throw LSLError("\(name) declares \(info.channelCount) channels (1 to \(Self.mostChannels) are read)")
        }
        func channel() throws(LSLError) -> Int {
            guard let wanted = query.channel else { return 0 }
            guard let index = info.channel(wanted) else {
                throw LSLError("\(name) has no channel '\(wanted)' (channels: \(info.labels.filter { !$0.isEmpty }.joined(separator: ", ")))")
            }
            return index
        }
        switch query.role {
        case .heart:
            guard !info.isText, info.channelCount > 0 else { throw LSLError("\(name) carries text: a heart is an ECG, PPG or RR stream") }
            let type = info.type.lowercased()
            delayFrames = configuration.beatDelay * Double(engineRate)
            if ["rr", "ibi", "hrv", "rri"].contains(type) || (info.rate == 0 && type != "ecg" && type != "ppg") {
                let unit = info.units[try channel()].lowercased()
                kind = .intervals(channel: try channel(), milliseconds: unit == "ms" ? true : unit == "s" ? false : nil)
            } else if info.rate < 20 {
                throw LSLError("\(name) at \(LSLInput.rateText(info.rate)) is too slow for a heart's waveform (20 Hz at least; an interval stream is irregular)")
            } else if type == "ppg" {
                kind = .ppg(PPGBeatDetector(sampleRate: info.rate), channel: try channel(), lastBeat: nil)
            } else {
                kind = .ecg(ECGBeatTimeline(sampleRate: engineRate, predicts: false, delay: configuration.beatDelay, signalRate: info.rate), channel: try channel())
            }
        case .eeg:
            guard !info.isText, info.rate >= 90 else {
                throw LSLError("\(name) is not raw EEG at 90 Hz or more (\(info.isText ? "text" : LSLInput.rateText(info.rate)))")
            }
            var channels = Array(0..<info.channelCount).filter { !info.labels[$0].lowercased().contains("aux") }
            if query.channel != nil { channels = [try channel()] }
            guard !channels.isEmpty else { throw LSLError("\(name) has no EEG channel") }
            // A second's spectrum of each channel ten times a second: a budget keeps the inlet up with its stream.
            guard channels.count * Int(info.rate.rounded()) <= Self.eegBudget else {
                throw LSLError("\(name) is too wide for band powers: \(channels.count) EEG channels at \(LSLInput.rateText(info.rate)) "
                               + "(channels × rate at most \(Self.eegBudget), e.g. 64 at 256 Hz); name one with lsl:\(info.name),channel=LABEL")
            }
            kind = .eeg(EEGBandPowers(sensors: channels.count, sampleRate: Int(info.rate.rounded())), channels: channels)
            delayFrames = 0
        case .markers:
            guard info.isText else { throw LSLError("\(name) is not a string stream: markers are strings voice/NAME and region/NAME") }
            kind = .markers
            delayFrames = configuration.markerDelay * Double(engineRate)
        case .signals:
            let (pairs, missing) = try Self.signalChannels(query: query, info: info, name: name, signals: configuration.signals)
            if let missing { problem = missing }
            kind = .signals(pairs, last: Array(repeating: -.infinity, count: pairs.count))
            delayFrames = configuration.markerDelay * Double(engineRate)
        }
    }

    /// The stream's channels the preset's `lsl.STREAM.CHANNEL` sources read, each with its
    /// signal's index, and what the stream lacks of them (a problem to say, unless it has none).
    private static func signalChannels(query: LSLStreamQuery, info: LSLStreamInfo, name: String,
                                       signals: [String]) throws(LSLError) -> (pairs: [(channel: Int, signal: Int32)], missing: String?) {
        guard !info.isText else { throw LSLError("\(name) carries text: a modulation reads a numeric channel") }
        var pairs: [(channel: Int, signal: Int32)] = [], missing: [String] = []
        let stream = query.match.first?.1 ?? info.name
        for (index, signal) in signals.enumerated() {
            let parts = signal.split(separator: ".")
            guard parts.count == 3, parts[0] == "lsl", parts[1] == stream else { continue }
            if let channel = info.channel(String(parts[2])) { pairs.append((channel, Int32(index))) } else { missing.append(String(parts[2])) }
        }
        let labels = info.labels.filter { !$0.isEmpty }.joined(separator: ", ")
        if pairs.isEmpty { throw LSLError("\(name) has none of the channels \(missing.joined(separator: ", ")) (channels: \(labels))") }
        return (pairs, missing.isEmpty ? nil : "\(name) has no channel \(missing.joined(separator: ", ")) (channels: \(labels))")
    }

    struct Made {
        var messages: [ControlMessage] = []
        var beats = 0
        var bands: [(EEGBand, Double)] = []
        var problem: String?
    }

    /// The channels this reader reads.
    private var usedChannels: [Int] {
        switch kind {
        case .ecg(_, let channel), .ppg(_, let channel, _), .intervals(let channel, _): [channel]
        case .eeg(_, let channels): channels
        case .markers: []
        case .signals(let pairs, _): pairs.map(\.channel)
        }
    }

    /// A signal is sent at most this often (frames apart, at the stream's time stamps): 200 a second.
    private var signalSpacing: Double { Double(engineRate) / 200 }

    /// A frame `delayFrames` after a sample's, or at once (counted late) when that has passed.
    private func due(_ frame: Double, now: Int64) -> Int64 {
        // The inlet refuses stamps far from now (`LSLInletLink.acceptsStamp`); a frame that is no
        // number still plays at once rather than trapping.
        guard let at = Int64(checkedRounding: frame + delayFrames), at > now else {
            late += 1
            return ControlMessage.immediate
        }
        return at
    }

    /// Samples (`rows` of numbers, or `texts`) at engine frames `frames` (fractional), read at frame `now`.
    func read(rows allRows: [[Double]], texts: [String], frames allFrames: [Double], now: Int64) -> Made {
        var made = Made()
        let rate = Double(engineRate)
        let (rows, frames) = plausible(rows: allRows, frames: allFrames, made: &made)
        switch kind {
        case .ecg(var timeline, let channel):
            let (before, lateBefore) = (timeline.beats, timeline.late)
            made.messages = timeline.messages(microvolts: rows.map { $0[channel] }, times: frames.map { $0 / rate }, offset: 0, at: now, performer: performer)
            made.beats = timeline.beats - before
            late += timeline.late - lateBefore
            kind = .ecg(timeline, channel: channel)
        case .ppg(var detector, let channel, var lastBeat):
            for (row, frame) in zip(rows, frames) where detector.process(row[channel]) {
                if let lastBeat, let interval = RRIntervals.chunks(seconds: [(frame - lastBeat) / rate]).first {
                    made.messages.append(ControlMessage(performer: performer, .rrIntervals(interval)))
                }
                lastBeat = frame
                made.messages.append(ControlMessage(frame: due(frame, now: now), performer: performer, .heartbeat(strength: 1)))
                made.beats += 1
            }
            kind = .ppg(detector, channel: channel, lastBeat: lastBeat)
        case .intervals(let channel, let milliseconds):
            readIntervals(rows: rows, frames: frames, channel: channel, milliseconds: milliseconds, now: now, made: &made)
        case .eeg(var powers, let channels):
            for (slot, channel) in channels.enumerated() {
                guard let reading = powers.add(rows.map { $0[channel] }, channel: slot) else { continue }
                for band in EEGBand.allCases {
                    guard let value = reading.absolute[band] else { continue }
                    made.messages.append(ControlMessage(performer: performer, .bandPower(band, Float(value))))
                    made.bands.append((band, value))
                }
                made.beats += 1
            }
            kind = .eeg(powers, channels: channels)
        case .markers:
            readMarkers(texts: texts, frames: frames, now: now, made: &made)
        case .signals(let pairs, var last):
            for (row, frame) in zip(rows, frames) {
                for (slot, pair) in pairs.enumerated() where frame - last[slot] >= signalSpacing {
                    let value = row[pair.channel]
                    last[slot] = frame
                    made.messages.append(ControlMessage(frame: due(frame, now: now), .signal(index: pair.signal, Float(value))))
                }
            }
            kind = .signals(pairs, last: last)
        }
        beats += made.beats
        return made
    }

    /// The rows whose channels in use all carry a plausible number, and their frames. A row
    /// that does not is refused whole (counted): a NaN would poison a filter's state for good, an
    /// absurd value overflow it.
    private func plausible(rows: [[Double]], frames: [Double], made: inout Made) -> (rows: [[Double]], frames: [Double]) {
        guard !rows.isEmpty else { return (rows, frames) }
        let used = usedChannels
        let good = rows.indices.filter { row in used.allSatisfy { OutsideNumber.isPlausible(rows[row][$0]) } }
        guard good.count < rows.count else { return (rows, frames) }
        badValues += rows.count - good.count
        made.problem = "\(rows.count - good.count) sample(s) carried a value that is no number or an absurd one (refused)"
        return (good.map { rows[$0] }, good.map { frames[$0] })
    }

    /// An interval stream's samples: each a beat `delayFrames` after its stamp, and its interval.
    private func readIntervals(rows: [[Double]], frames: [Double], channel: Int, milliseconds: Bool?, now: Int64, made: inout Made) {
        for (row, frame) in zip(rows, frames) {
            let value = row[channel]
            let seconds = (milliseconds ?? (value > 10)) ? value / 1000 : value
            guard PlausibleHeart.accepts(rr: seconds) else {
                made.problem = "an interval of \(value) is not a heart's (\(milliseconds == true ? "ms" : milliseconds == false ? "s" : "ms or s"))"
                continue
            }
            if let interval = RRIntervals.chunks(seconds: [seconds]).first {
                made.messages.append(ControlMessage(performer: performer, .rrIntervals(interval)))
            }
            made.messages.append(ControlMessage(frame: due(frame, now: now), performer: performer, .heartbeat(strength: 1)))
            made.beats += 1
        }
    }

    /// A marker stream's strings: `voice/NAME` and `region/NAME` played at their frames.
    private func readMarkers(texts: [String], frames: [Double], now: Int64, made: inout Made) {
        for (text, frame) in zip(texts, frames) {
            let parts = text.split(separator: "/", maxSplits: 1).map(String.init)
            if parts.count == 2, parts[0] == "voice", let voice = voices.firstIndex(of: parts[1]) {
                made.messages.append(ControlMessage(frame: due(frame, now: now), .voiceTrigger(voice: Int32(voice), velocity: 1)))
            } else if parts.count == 2, parts[0] == "region", let region = regions.firstIndex(of: parts[1]) {
                made.messages.append(ControlMessage(frame: due(frame, now: now), .regionHit(region: Int32(region), velocity: 1)))
            } else {
                made.problem = "marker '\(text)' names no voice or region of the preset (voice/NAME, region/NAME)"
            }
        }
    }
}
