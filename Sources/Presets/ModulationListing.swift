import Engine

/// What `pulsejack voices --modulations` lists: every source and destination a preset offers
/// (the destinations read from its voices, inserts and instruments as built), and its own
/// modulations. Encodable for `--json`.
public struct ModulationListing: Encodable, Sendable {
    public struct Source: Encodable, Sendable {
        public var name: String
        public var unit: String
        /// The range a modulation maps from when it gives no `from_range`.
        public var range: [Double]
        public var what: String
    }

    public struct Destination: Encodable, Sendable {
        public var name: String
        public var range: [Float]
        /// "any", "integer", "toggled" or "one of …".
        public var takes: String
        /// Its value without a modulation.
        public var value: Float
    }

    public var sources: [Source]
    public var destinations: [Destination]
    /// The preset's own: "heart.bpm → voice.pad.insert.1.cutoff", numbered from 1 as `/modulation/N/enable` counts.
    public var modulations: [String]

    /// Control thread. Builds the preset's engine setup (its plugins instantiated) to read its destinations.
    public static func of(_ loaded: LoadedPreset) throws -> ModulationListing {
        let setup = try EngineGraph.setup(preset: loaded, sampleRate: 48_000, maxFrames: 256, offline: true)
        let prefixes = [""] + loaded.performerNames.map { "performer.\($0)." }
        let sources = prefixes.flatMap { prefix in
            ModulationTable.bodySources.map { Source(name: prefix + $0.name, unit: $0.unit, range: [$0.range.low, $0.range.high], what: $0.what) }
        } + [
            Source(name: "signal.NAME", unit: "", range: [ModulationTable.signalRange.low, ModulationTable.signalRange.high],
                   what: "OSC /signal/NAME f (a timetagged bundle places it at its frame)"),
            Source(name: "midi.cc.N", unit: "", range: [ModulationTable.controllerRange.low, ModulationTable.controllerRange.high],
                   what: "controller N on midi_in"),
            Source(name: "lsl.STREAM.CHANNEL", unit: "", range: [ModulationTable.signalRange.low, ModulationTable.signalRange.high],
                   what: "channel CHANNEL (a label or a number) of the LSL stream STREAM (pulsejack lsl lists them)"),
            Source(name: "performer.NAME.SOURCE", unit: "", range: [],
                   what: "any heart., beat., eeg. or pose. source above, of the preset's performer NAME (performers:)"),
        ]
        let destinations = setup.handle.modulationDestinations().map { named in
            Destination(name: named.name, range: [named.minimum, named.maximum], takes: describe(named.step), value: named.base)
        }
        return ModulationListing(sources: sources, destinations: destinations, modulations: setup.modulations.map(\.name))
    }

    private static func describe(_ step: ControlStep) -> String {
        switch step {
        case .continuous: "any"
        case .integer: "integer"
        case .toggled: "toggled"
        case .enumeration(let points): "one of " + points.map(short).joined(separator: ", ")
        }
    }

    /// A control's value with its own shortest digits (0.9, not 0.8999999761581421).
    private static func short(_ value: Float) -> String {
        abs(value) >= .greatestFiniteMagnitude ? "any" : value == value.rounded() && abs(value) < 1e9 ? "\(Int(value))" : "\(value)"
    }

    /// The listing as a person reads it.
    public var text: [String] {
        var lines = ["Sources (from:)"]
        for source in sources {
            lines.append("  \(source.name.padding(toLength: 34, withPad: " ", startingAt: 0)) \(source.range.map(\.plainText).joined(separator: "…")) \(source.unit)  \(source.what)")
        }
        lines.append("Destinations (to:)")
        for destination in destinations {
            let range = destination.range.map(Self.short).joined(separator: "…")
            lines.append("  \(destination.name.padding(toLength: 34, withPad: " ", startingAt: 0)) \(range), \(destination.takes); now \(Self.short(destination.value))")
        }
        lines.append(modulations.isEmpty ? "This preset has no modulations." : "This preset's modulations:")
        lines += modulations.enumerated().map { "  \($0 + 1). \($1)" }
        return lines
    }
}
