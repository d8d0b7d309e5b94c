import Foundation
import Inputs
import Engine
import Realtime

/// What the page's state fields are read from, once per frame.
struct PageFrame {
    let handle: EngineHandle
    /// The engine's copy of its settings, when one came with this frame.
    let picture: EngineView.Picture?
    /// The performers' hearts, and the ensemble's after them.
    let heartCount: Int
    let hearts: HeartWatch?
    let moods: MoodWatch?
    let regionNames: [String]
    let track: String?
    /// The camera's skeleton over the regions (`PoseSkeleton`'s JSON), when a camera plays.
    let pose: String?
    /// The status counters as JSON (`LiveView.paceStatus`).
    let status: String
}

/// One field of the page's state (`state` in the snapshot, the fields that changed in each
/// delta): its name and how it is read, as JSON. A numbered field is one per item (`voice.0`,
/// `voice.1` …); a field read from the picture is absent from a frame without one.
struct PageStateField: Sendable {
    let entries: @Sendable (PageFrame) -> [(String, String)]

    static func one(_ name: String, _ value: @escaping @Sendable (PageFrame) -> String?) -> Self {
        Self { frame in value(frame).map { [(name, $0)] } ?? [] }
    }

    static func numbered(_ name: String, _ values: @escaping @Sendable (PageFrame) -> [String]?) -> Self {
        Self { frame in (values(frame) ?? []).enumerated().map { ("\(name).\($0.offset)", $0.element) } }
    }

    /// Every field, in the order the page receives them: a new field is one more line here (and
    /// its reading in page.js).
    static let all: [PageStateField] = [
        .one("bpm") { JSONText.number($0.handle.publishedTempo) },
        .one("performers") { frame in JSONText.array((0..<frame.heartCount).map { JSONText.number(frame.handle.publishedTempo(of: $0)) }) },
        .one("dropout") { JSONText.bool($0.hearts?.inDropout(performer: 0) ?? false) },
        .one("mode") { $0.picture.map { JSONText.string("\($0.mode)") } },
        .one("pattern") { frame in frame.picture.map { JSONText.array($0.pattern.map { regionName($0, frame.regionNames) }) } },
        .numbered("voice") { $0.picture?.voices.map(voiceSettings) },
        .one("controls") { $0.picture.map { JSONText.array($0.insertValues.map { JSONText.number($0) }) } },
        .one("variability") { frame in JSONText.array((0..<frame.heartCount).map { variability(frame.handle, heart: $0) }) },
        .one("mood") { JSONText.string($0.moods?.mood()) },
        .one("bands") { bands($0.moods) },
        .one("track") { JSONText.string($0.track.map { ($0 as NSString).lastPathComponent }) },
        .one("pose") { $0.pose ?? "null" },
        .one("status") { $0.status },
    ]

    /// All the fields' entries this frame.
    static func entries(_ frame: PageFrame) -> [(String, String)] { all.flatMap { $0.entries(frame) } }

    private static func regionName(_ step: PatternStep, _ names: [String]) -> String {
        if case .region(let region) = step, Int(region) < names.count { return JSONText.string(names[Int(region)]) }
        return "null"
    }

    private static func voiceSettings(_ voice: VoiceState) -> String {
        JSONText.object([
            ("enabled", JSONText.bool(voice.enabled)), ("gain", JSONText.number(voice.gain)), ("pan", JSONText.number(voice.pan)),
            ("every", String(voice.rate.everyNthBeat)), ("subdivision", String(voice.rate.subdivision)),
        ])
    }

    /// RMSSD, SDNN and breathing rate of one heart.
    private static func variability(_ handle: EngineHandle, heart: Int) -> String {
        let reading = handle.variability.reading(heart)
        return JSONText.array([reading.rmssd, reading.sdnn, reading.breathRate].map { JSONText.number($0) })
    }

    private static func bands(_ moods: MoodWatch?) -> String {
        let averages = moods?.averages() ?? [:]
        return JSONText.object(EEGBand.allCases.compactMap { band in averages[band].map { (band.name, JSONText.number($0)) } })
    }
}
