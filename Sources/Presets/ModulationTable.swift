import UserFiles
import Realtime
import Engine
import Plugins

/// The names a preset's `modulations:` use, and how an entry becomes the engine's
/// `Modulation`: its source by name (a performer's body, a named signal, a MIDI controller), its
/// destination among the engine's `NamedDestination`s, the ranges, curve, smoothing and dropout
/// checked. Errors name the file, line and field, and for a name it does not know, the closest
/// it does. Control thread.
public enum ModulationTable {
    /// A source as the listing shows it: its name (without a performer), unit, the range a
    /// modulation maps from when the preset gives none, and what it is.
    public struct SourceKind: Sendable {
        public let name: String
        public let unit: String
        public let range: (low: Double, high: Double)
        public let what: String
        let make: @Sendable (UInt8) -> ModulationSource
    }

    /// Every source of a performer's body.
    public static let bodySources: [SourceKind] = [
        SourceKind(name: "heart.bpm", unit: "bpm", range: (40, 180), what: "the tempo in force") { .heart(performer: $0, .bpm) },
        SourceKind(name: "heart.rr", unit: "s", range: (0.33, 1.5), what: "the last beat-to-beat interval") { .heart(performer: $0, .rr) },
        SourceKind(name: "heart.rmssd", unit: "ms", range: (0, 120), what: "RMSSD over hrv_window (calm: high)") { .heart(performer: $0, .rmssd) },
        SourceKind(name: "heart.sdnn", unit: "ms", range: (0, 120), what: "SDNN over hrv_window") { .heart(performer: $0, .sdnn) },
        SourceKind(name: "heart.breath_rate", unit: "breaths/min", range: (6, 30), what: "breathing, from the heart's rhythm (RSA)") {
            .heart(performer: $0, .breathRate)
        },
        SourceKind(name: "beat.phase", unit: "", range: (0, 1), what: "0 at each beat, rising to 1 at the next") { .beatPhase(performer: $0) },
    ] + EEGBand.allCases.map { band in
        SourceKind(name: "eeg.\(band.name)", unit: "", range: (0, 1), what: "the \(band.name) band power") { .eeg(performer: $0, band) }
    } + [
        SourceKind(name: "eeg.relaxation", unit: "", range: (0, 1), what: "alpha / (alpha + beta): relaxed 1, alert 0") { .relaxation(performer: $0) },
        SourceKind(name: "pose.left.x", unit: "", range: (-1, 1), what: "the left hand across, from the hip") { .pose(performer: $0, .leftX) },
        SourceKind(name: "pose.left.y", unit: "", range: (-1, 1), what: "the left hand up, from the hip") { .pose(performer: $0, .leftY) },
        SourceKind(name: "pose.right.x", unit: "", range: (-1, 1), what: "the right hand across, from the hip") { .pose(performer: $0, .rightX) },
        SourceKind(name: "pose.right.y", unit: "", range: (-1, 1), what: "the right hand up, from the hip") { .pose(performer: $0, .rightY) },
        SourceKind(name: "pose.spread", unit: "", range: (0, 2), what: "the distance between the hands") { .pose(performer: $0, .spread) },
    ]
    /// `signal.NAME` (OSC `/signal/NAME f`) and `midi.cc.N` (a controller on `midi_in`).
    public static let signalRange = (low: 0.0, high: 1.0)
    public static let controllerRange = (low: 0.0, high: 127.0)
    public static let most = 256

    /// Every source name a preset with these performers offers (signals and controllers as patterns).
    public static func sourceNames(performers: [String]) -> [String] {
        bodySources.map(\.name) + performers.flatMap { name in bodySources.map { "performer.\(name).\($0.name)" } }
            + ["signal.NAME", "lsl.STREAM.CHANNEL", "midi.cc.N"]
    }

    /// The source `name` means, its default range, and the signal it names if it is one; or why not.
    static func source(_ name: String, performers: [String]) -> Result<(ModulationSource, range: (low: Double, high: Double), signal: String?), ModulationNameError> {
        var rest = Substring(name), performer: UInt8 = 0
        if rest.hasPrefix("performer.") {
            let parts = rest.dropFirst("performer.".count)
            guard let dot = parts.firstIndex(of: "."), let index = performers.firstIndex(of: String(parts[..<dot])) else {
                return .failure(ModulationNameError(message: "no performer in '\(name)' (performers: \(performers.isEmpty ? "none named" : performers.joined(separator: ", ")))",
                                                    closest: PluginCatalog.closest(to: name, among: sourceNames(performers: performers))))
            }
            performer = UInt8(index)
            rest = parts[parts.index(after: dot)...]
        }
        if let kind = bodySources.first(where: { $0.name == rest }) { return .success((kind.make(performer), kind.range, nil)) }
        if performer == 0 && !name.hasPrefix("performer.") {
            if rest.hasPrefix("signal.") {
                let signal = String(rest.dropFirst("signal.".count))
                guard !signal.isEmpty, signal.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }), signal.count <= 64 else {
                    return .failure(ModulationNameError(message: "a signal's name is letters, digits, _ and - (signal.breath_belt)", closest: []))
                }
                return .success((.signal(0), signalRange, signal))
            }
            // An LSL stream's channel is a signal named after it: the LSL input sends it, a
            // session log carries it, and OSC's /signal/lsl.STREAM.CHANNEL may too.
            if rest.hasPrefix("lsl.") {
                let parts = rest.split(separator: ".", omittingEmptySubsequences: false)
                let word = { (part: Substring) in !part.isEmpty && part.count <= 64 && part.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" } }
                guard parts.count == 3, word(parts[1]), word(parts[2]) else {
                    return .failure(ModulationNameError(message: "an LSL source is lsl.STREAM.CHANNEL: the stream's name and a channel's label or number (lsl.Muse.AF7)", closest: []))
                }
                return .success((.signal(0), signalRange, String(rest)))
            }
            if rest.hasPrefix("midi.cc.") {
                guard let number = UInt8(rest.dropFirst("midi.cc.".count)), number < 128 else {
                    return .failure(ModulationNameError(message: "a MIDI controller is midi.cc.0 … midi.cc.127", closest: []))
                }
                return .success((.controller(number), controllerRange, nil))
            }
        }
        return .failure(ModulationNameError(message: "unknown source '\(name)'",
                                            closest: PluginCatalog.closest(to: name, among: sourceNames(performers: performers))))
    }

    struct ModulationNameError: Error {
        var message: String
        var closest: [String]
        var text: String { closest.isEmpty ? message : "\(message) (closest: \(closest.joined(separator: ", ")))" }
    }

    /// The signals the preset's modulations read, in order of first use: `resolve`, the OSC routes
    /// and a replayed session log number them so.
    public static func signalNames(_ preset: Preset) -> [String] {
        var names: [String] = []
        for entry in preset.modulations ?? [] {
            if case .success((_, _, let signal?)) = source(entry.from, performers: preset.performers ?? []), !names.contains(signal) {
                names.append(signal)
            }
        }
        return names
    }

    /// Control thread. The preset's modulations resolved against the engine's `destinations`, and the
    /// signal names their sources read (by index).
    public static func resolve(_ loaded: LoadedPreset, destinations: [NamedDestination]) throws -> (modulations: [Modulation], signals: [String]) {
        let entries = loaded.preset.modulations ?? []
        let signals = signalNames(loaded.preset)
        var modulations: [Modulation] = [], owners: [ModulationDestination: Int] = [:]
        for (index, entry) in entries.enumerated() {
            func fail(_ field: String?, _ message: String) -> InputError {
                let item = "modulations[\(index)]", path = item + (field.map { ".\($0)" } ?? "")
                let parent = field.flatMap { $0.split(separator: ".").first }.map { "\(item).\($0)" } ?? item
                return InputError(file: loaded.file, line: loaded.line(path) ?? loaded.line(parent) ?? loaded.line(item) ?? loaded.line("modulations"),
                                  field: path, message)
            }
            var (source, sourceRange, signal): (ModulationSource, (low: Double, high: Double), String?)
            switch Self.source(entry.from, performers: loaded.performerNames) {
            case .success(let found): (source, sourceRange, signal) = found
            case .failure(let error): throw fail("from", error.text)
            }
            if let signal {
                source = .signal(Int32(signals.firstIndex(of: signal)!))
            }
            guard let named = destinations.first(where: { $0.name == entry.to }) else {
                let closest = PluginCatalog.closest(to: entry.to, among: destinations.map(\.name))
                throw fail("to", "unknown destination '\(entry.to)' (closest: \(closest.joined(separator: ", ")); `pulsejack voices --modulations` lists them all)")
            }
            if let other = owners[named.destination] {
                throw fail("to", "\(entry.to) is already modulated by modulations[\(other)]: one modulation per destination")
            }
            owners[named.destination] = index
            let mapping = try self.mapping(entry, sourceRange: sourceRange, destination: named, fail: fail)
            let smooth = entry.smooth ?? 0
            guard smooth.isFinite, (0...60).contains(smooth) else { throw fail("smooth", "\(smooth) is outside 0…60 s") }
            let dropout = try entry.onDropout.map { try self.dropout($0, fail: fail) }
            modulations.append(Modulation(from: entry.from, to: entry.to, source: source, destination: named.destination,
                                          mapping: mapping, smoothSeconds: smooth, dropout: dropout, minimum: named.minimum,
                                          maximum: named.maximum, step: named.step, base: named.base, enabled: entry.enabled ?? true))
        }
        guard modulations.count <= most else {
            throw InputError(file: loaded.file, line: loaded.line("modulations"), field: "modulations", "\(modulations.count) modulations (at most \(most))")
        }
        return (modulations, signals)
    }

    /// An `on_dropout:`, checked: a finite value, `seconds` 0…600 (default 2), `after` 0.05…600 (default 2).
    private static func dropout(_ given: ModulationEntry.OnDropout, fail: (String?, String) -> InputError) throws -> Modulation.Dropout {
        let seconds = given.seconds ?? 2, after = given.after ?? 2
        guard given.value.isFinite else { throw fail("on_dropout.value", "not a number") }
        guard seconds.isFinite, (0...600).contains(seconds) else { throw fail("on_dropout.seconds", "\(seconds) is outside 0…600 s") }
        guard after.isFinite, (0.05...600).contains(after) else { throw fail("on_dropout.after", "\(after) is outside 0.05…600 s") }
        return Modulation.Dropout(value: given.value, seconds: seconds, after: after)
    }

    /// The entry's ranges and curve, checked: the source's and the destination's own ranges where it gives none.
    private static func mapping(_ entry: ModulationEntry, sourceRange: (low: Double, high: Double), destination: NamedDestination,
                                fail: (String?, String) -> InputError) throws -> ModulationMapping {
        func pair(_ values: [Double]?, _ field: String) throws -> (Double, Double)? {
            guard let values else { return nil }
            guard values.count == 2, values.allSatisfy(\.isFinite) else { throw fail(field, "\(values) is not [low, high]: two numbers") }
            return (values[0], values[1])
        }
        let from = try pair(entry.fromRange, "from_range") ?? sourceRange
        guard let to = try pair(entry.toRange, "to_range") ?? destination.defaultRange.map({ (Double($0.low), Double($0.high)) }) else {
            throw fail("to_range", "\(entry.to) gives no range of its own: say to_range: [low, high]")
        }
        guard let curve = ModulationMapping.Curve(rawValue: entry.curve ?? "linear") else {
            throw fail("curve", "'\(entry.curve ?? "")' is not \(ModulationMapping.Curve.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let mapping = ModulationMapping(from: from, to: to, curve: curve)
        if let problem = mapping.problem { throw fail(entry.curve != nil && problem.hasPrefix("curve") ? "curve" : "from_range", problem) }
        return mapping
    }
}
