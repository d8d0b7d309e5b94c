import UserFiles
import Foundation
import Realtime

/// pulsejack's own session log: every control message the engine applied, with its frame, as
/// JSON lines after a header, so a live performance re-renders offline identically.
///
///     {"pulsejack_session":1,"sample_rate":48000,"voices":["heart","tick"],"performers":["alice","bob"]}
///     {"frame":0,"event":"tempo","bpm":72}
///     {"frame":0,"event":"tempo","bpm":64,"performer":1}
///     {"frame":52224,"event":"voice_trigger","voice":1,"velocity":0.5}
///     {"frame":60000,"event":"rr","values":[0.8125,0.796875]}
///     {"end_frame":480000}
public enum SessionLog {
    public struct Header: Codable, Equatable {
        public var pulsejack_session: Int
        public var sample_rate: Int
        public var voices: [String]
        /// The preset's performers, when it names them (`performer` in a line indexes these).
        public var performers: [String]?
        /// The signals the preset's modulations read, when any (`signal` in a line indexes these).
        public var signals: [String]?

        public init(pulsejack_session: Int = 1, sample_rate: Int, voices: [String], performers: [String]? = nil, signals: [String]? = nil) {
            self.pulsejack_session = pulsejack_session
            self.sample_rate = sample_rate
            self.voices = voices
            self.performers = performers
            self.signals = signals
        }
    }

    struct Line: Codable {
        var frame: Int64?
        var event: String?
        var bpm: Double?
        var strength: Float?
        var voice: Int32?
        var region: Int32?
        var velocity: Float?
        var enable: Bool?
        var gain: Float?
        var pan: Float?
        var every: UInt8?
        var subdivide: UInt8?
        var mode: String?
        /// Numbers in decimal as written: a `Float` with its own shortest digits (`decimal`), RR
        /// intervals exactly (k/1024 s).
        var values: [Double]?
        var band: String?
        var end_frame: Int64?
        /// A lost cycle's frames (negative: a skip taken back).
        var frames: Int32?
        var stage: UInt16?
        var port: UInt32?
        /// Whose heart (tempo, heartbeat, heart presence), when not the first performer's.
        var performer: UInt8?
        /// A signal (by the header's `signals`), a MIDI controller, a modulation (by the preset's order).
        var signal: Int32?
        var controller: UInt8?
        var modulation: Int32?
    }

    public struct Contents {
        public var header: Header
        public var messages: [ControlMessage]
        public var endFrame: Int64?
    }

    /// One line for `message`, or nil for messages that cannot be replayed (a clip swap).
    public static func line(for message: ControlMessage) -> String? {
        var line = Line(frame: message.frame)
        if message.performer != 0 { line.performer = message.performer }
        switch message.event {
        case .tempo(let bpm): line.event = "tempo"; line.bpm = bpm
        case .heartbeat(let strength): line.event = "heartbeat"; line.strength = strength
        case .voiceTrigger(let voice, let velocity): line.event = "voice_trigger"; line.voice = voice; line.velocity = velocity
        case .voiceParameter(let voice, let parameter):
            line.event = "voice_parameter"
            line.voice = voice
            switch parameter {
            case .enable(let on): line.enable = on
            case .gain(let gain): line.gain = gain
            case .pan(let pan): line.pan = pan
            case .rate(let rate): line.every = rate.everyNthBeat; line.subdivide = rate.subdivision
            }
        case .regionHit(let region, let velocity): line.event = "region_hit"; line.region = region; line.velocity = velocity
        case .modeChange(let mode): line.event = "mode"; line.mode = "\(mode)"
        case .pose(let lx, let ly, let rx, let ry): line.event = "pose"; line.values = [lx, ly, rx, ry].map(decimal)
        case .bandPower(let band, let value): line.event = "band_power"; line.band = band.name; line.values = [decimal(value)]
        case .heartPresence(let present): line.event = "heart_presence"; line.enable = present
        case .rrIntervals(let intervals): line.event = "rr"; line.values = intervals.seconds
        case .insertControl(let address, let value):
            line.event = "insert_control"; line.voice = address.chain; line.stage = address.stage; line.port = address.port
            line.values = [decimal(value)]
        case .framesSkipped(let frames): line.event = "frames_skipped"; line.frames = frames
        case .signal(let index, let value): line.event = "signal"; line.signal = index; line.values = [decimal(value)]
        case .controller(let number, let value): line.event = "controller"; line.controller = number; line.values = [Double(value)]
        case .modulationEnable(let index, let on): line.event = "modulation"; line.modulation = index; line.enable = on
        case .swapClip, .swapInsert: return nil
        }
        return encode(line)
    }

    /// A `Float` as the `Double` with the same shortest decimal digits (0.8, not 0.800000011920929).
    private static func decimal(_ value: Float) -> Double { Double("\(value)") ?? Double(value) }

    public static func headerLine(_ header: Header) -> String { encode(header) }
    public static func endLine(frame: Int64) -> String { encode(Line(end_frame: frame)) }

    private static func encode<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try! encoder.encode(value), as: UTF8.self)
    }

    /// Whether the text is a session log (its first line is the header).
    public static func isSessionLog(_ text: String) -> Bool {
        text.prefix(200).contains("\"pulsejack_session\"")
    }

    public static func parse(_ text: String, path: String) throws -> Contents {
        let decoder = JSONDecoder()
        var header: Header?
        var messages: [ControlMessage] = []
        var endFrame: Int64?
        // Any line ending (LF, CRLF, CR): "\r\n" is one Character, so splitting on "\n" would miss it.
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let lineNumber = index + 1
            let text = raw.trimmingCharacters(in: .whitespaces)
            if text.isEmpty { continue }
            guard header != nil else {
                guard let decoded = try? decoder.decode(Header.self, from: Data(text.utf8)), decoded.pulsejack_session == 1 else {
                    throw InputError(file: path, line: lineNumber, "expected the session log header {\"pulsejack_session\":1,…}")
                }
                guard (1...768_000).contains(decoded.sample_rate) else {
                    throw InputError(file: path, line: lineNumber, field: "sample_rate", "\(decoded.sample_rate) is not a sample rate")
                }
                header = decoded
                continue
            }
            guard let line = try? decoder.decode(Line.self, from: Data(text.utf8)) else {
                throw InputError(file: path, line: lineNumber, "not a JSON object")
            }
            let lastFrame = Int64(HeartSession.maximumSeconds) * Int64(header!.sample_rate)
            if let end = line.end_frame {
                guard end >= 0, end <= lastFrame else {
                    throw InputError(file: path, line: lineNumber, field: "end_frame", "\(end) is past the 24 h a session may last")
                }
                endFrame = end
                continue
            }
            guard let frame = line.frame, frame >= 0, let kind = line.event else {
                throw InputError(file: path, line: lineNumber, "a line needs \"frame\" ≥ 0 and \"event\"")
            }
            guard frame <= lastFrame else {
                throw InputError(file: path, line: lineNumber, field: "frame", "\(frame) is past the 24 h a session may last")
            }
            let event = try self.event(of: line, kind: kind, sampleRate: header!.sample_rate, at: InputError(file: path, line: lineNumber, ""))
            let performer = line.performer ?? 0
            if performer != 0 {
                guard let names = header?.performers, Int(performer) < names.count else {
                    throw InputError(file: path, line: lineNumber, field: "performer",
                                     "\(performer) names no performer of the header's \(header?.performers ?? [])")
                }
            }
            messages.append(ControlMessage(frame: frame, performer: performer, event))
        }
        guard let header else { throw InputError(file: path, "the session log is empty") }
        return Contents(header: header, messages: messages, endFrame: endFrame)
    }

    /// The event a log line of `kind` describes; errors at `place` (the file and line).
    private static func event(of line: Line, kind: String, sampleRate: Int, at place: InputError) throws -> ControlMessage.Event {
        guard let read = events[kind] else { throw place.with(field: "event", "unknown event '\(kind)'") }
        return try read(Reading(line: line, kind: kind, sampleRate: sampleRate, place: place))
    }

    /// One log line being read: its fields, and the file and line an error names.
    private struct Reading {
        let line: Line, kind: String, sampleRate: Int, place: InputError

        func need<T>(_ value: T?, _ field: String) throws -> T {
            guard let value else { throw place.with(field: field, "missing for event '\(kind)'") }
            return value
        }

        /// A number that is no number, or an absurd one, is refused here, where the line is named.
        func plausible(_ values: [Double], _ field: String) throws -> [Double] {
            guard values.allSatisfy(OutsideNumber.isPlausible) else {
                throw place.with(field: field, "\(values.map(\.plainText).joined(separator: ", ")): not a finite number of sensible size")
            }
            return values
        }

        func plausible(_ value: Float?, _ field: String) throws -> Float? {
            try value.map { Float(try plausible([Double($0)], field)[0]) }
        }

        /// The first of `values`, there and plausible.
        func firstValue() throws -> Float { Float(try plausible([try need(line.values?.first, "values")], "values")[0]) }
    }

    /// Every event a log line may hold, by its `event` word: how its fields make the message.
    private static let events: [String: @Sendable (Reading) throws -> ControlMessage.Event] = [
        "tempo": { .tempo(bpm: try $0.plausible([try $0.need($0.line.bpm, "bpm")], "bpm")[0]) },
        "heartbeat": { .heartbeat(strength: try $0.plausible($0.line.strength, "strength") ?? 1) },
        "insert_control": { reading in
            let value = try reading.firstValue()
            return .insertControl(InsertAddress(chain: try reading.need(reading.line.voice, "voice"), stage: try reading.need(reading.line.stage, "stage"),
                                                port: try reading.need(reading.line.port, "port")), value)
        },
        "voice_trigger": { .voiceTrigger(voice: try $0.need($0.line.voice, "voice"), velocity: try $0.plausible($0.line.velocity, "velocity") ?? 1) },
        "voice_parameter": { reading in
            let (line, voice) = (reading.line, try reading.need(reading.line.voice, "voice"))
            if let on = line.enable { return .voiceParameter(voice: voice, .enable(on)) }
            if let gain = try reading.plausible(line.gain, "gain") { return .voiceParameter(voice: voice, .gain(gain)) }
            if let pan = try reading.plausible(line.pan, "pan") { return .voiceParameter(voice: voice, .pan(pan)) }
            if let every = line.every { return .voiceParameter(voice: voice, .rate(BeatRate(everyNthBeat: every, subdivision: line.subdivide ?? 1))) }
            throw reading.place.with(field: nil, "a voice_parameter needs enable, gain, pan or every")
        },
        "region_hit": { .regionHit(region: try $0.need($0.line.region, "region"), velocity: try $0.plausible($0.line.velocity, "velocity") ?? 1) },
        "mode": { reading in
            let name = try reading.need(reading.line.mode, "mode")
            guard let mode = PerformanceMode.allCases.first(where: { "\($0)" == name }) else {
                throw reading.place.with(field: "mode", "'\(name)' is not freestyle, recording or playing")
            }
            return .modeChange(mode)
        },
        "pose": { reading in
            let values = try reading.plausible(try reading.need(reading.line.values, "values"), "values")
            guard values.count == 4 else { throw reading.place.with(field: "values", "a pose has 4 values") }
            return .pose(leftX: Float(values[0]), leftY: Float(values[1]), rightX: Float(values[2]), rightY: Float(values[3]))
        },
        "band_power": { reading in
            let name = try reading.need(reading.line.band, "band")
            guard let band = EEGBand.allCases.first(where: { $0.name == name }), let value = reading.line.values?.first else {
                throw reading.place.with(field: "band", "'\(name)' is not alpha, beta, delta, theta or gamma")
            }
            return .bandPower(band, Float(try reading.plausible([value], "values")[0]))
        },
        "heart_presence": { .heartPresence(try $0.need($0.line.enable, "enable")) },
        "rr": { reading in
            // Seconds, each a whole number of 1/1024 s as the sensor sent it.
            let values = try reading.need(reading.line.values, "values")
            let units = values.map { ($0 * 1024).rounded() }
            guard units.allSatisfy({ $0 >= 0 && $0 <= Double(UInt16.max) }), zip(units, values).allSatisfy({ $0 / 1024 == $1 }),
                  let intervals = RRIntervals(units.map { UInt16($0) }) else {
                throw reading.place.with(field: "values", "RR intervals are at most \(RRIntervals.capacity) values in seconds, each k/1024 (0…64 s)")
            }
            return .rrIntervals(intervals)
        },
        "signal": { reading in
            let index = try reading.need(reading.line.signal, "signal")
            guard let value = reading.line.values?.first, value.isFinite else { throw reading.place.with(field: "values", "a signal has one finite value") }
            return .signal(index: index, Float(try reading.plausible([value], "values")[0]))
        },
        "controller": { reading in
            let number = try reading.need(reading.line.controller, "controller")
            guard number < 128, let value = reading.line.values?.first, value >= 0, value < 128, value == value.rounded() else {
                throw reading.place.with(field: "values", "a controller is 0…127 with one value 0…127")
            }
            return .controller(number: number, value: UInt8(value))
        },
        "modulation": { .modulationEnable(index: try $0.need($0.line.modulation, "modulation"), try $0.need($0.line.enable, "enable")) },
        "frames_skipped": { reading in
            let frames = try reading.need(reading.line.frames, "frames")
            // Lost cycles are bounded by a second (a longer jump is a new clock, not a loss).
            guard frames != 0, abs(Int(frames)) <= reading.sampleRate else {
                throw reading.place.with(field: "frames", "\(frames) is not a lost cycle (1 s at most, not 0)")
            }
            return .framesSkipped(frames)
        },
    ]
}
