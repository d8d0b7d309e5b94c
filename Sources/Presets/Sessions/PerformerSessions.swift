import UserFiles
import Inputs
import Foundation
import Realtime

/// `--session [PERFORMER=]FILE` (render) and `--replay [PERFORMER=]FILE` (run), repeatable: each
/// performer's session, read as any session file, its messages marked as that performer's, all
/// merged in frame order. Without a name a session is the first performer's; a session log
/// carries every performer itself and takes no name. Control thread.
public enum PerformerSessions {
    public struct Spec: Equatable, Sendable {
        public var performer: String?
        public var path: String

        /// `alice=a.csv` or `a.csv`: a name before the first `=` only when it is a name
        /// (letters, digits, - and _), so a path with `=` in it still reads as a path.
        public init(_ argument: String) {
            if let equals = argument.firstIndex(of: "="), equals != argument.startIndex,
               argument[..<equals].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) {
                performer = String(argument[..<equals])
                path = String(argument[argument.index(after: equals)...])
            } else {
                performer = nil
                path = argument
            }
        }
    }

    /// The sessions as one. `presetTempo` (rendering): every performer without a tempo at frame 0
    /// starts at the preset's `bpm` (a session log holds the live run's own tempo and takes none).
    public static func load(_ specs: [Spec], preset loaded: LoadedPreset, sampleRate: Int,
                            presetTempo: Bool = true) throws -> SessionSource {
        precondition(!specs.isEmpty)
        let names = loaded.performerNames
        var merged = SessionSource(messages: [], endFrame: 0, rejections: [])
        var claimed = Set<Int>()
        for spec in specs {
            let performer: Int
            if let name = spec.performer {
                guard let index = names.firstIndex(of: name) else {
                    throw InputError(file: spec.path, names.isEmpty
                        ? "\(name)=: the preset names no performers (performers: [\(name), …])"
                        : "\(name)=: not one of the preset's performers (\(names.joined(separator: ", ")))")
                }
                performer = index
            } else {
                performer = 0
            }
            guard claimed.insert(performer).inserted else {
                throw InputError(file: spec.path, "a second session for performer '\(names.isEmpty ? "the heart" : names[performer])'")
            }
            var source = try SessionSource.load(path: spec.path, sampleRate: sampleRate, regions: try loaded.regionTable().names,
                                                regionModel: loaded.preset.regionModel, signals: ModulationTable.signalNames(loaded.preset))
            if source.isSessionLog {
                guard spec.performer == nil, specs.count == 1 else {
                    throw InputError(file: spec.path, "a session log holds every performer itself: give it alone, without a name")
                }
                return source
            }
            for index in source.messages.indices { source.messages[index].performer = UInt8(performer) }
            merged.messages += source.messages
            merged.endFrame = max(merged.endFrame, source.endFrame)
            merged.rejections += source.rejections
            merged.rejectedCount += source.rejectedCount
        }
        if presetTempo, let bpm = loaded.preset.bpm {
            for performer in 0..<max(1, names.count) {
                let tempoAtStart = merged.messages.contains { message in
                    guard case .tempo = message.event else { return false }
                    return message.frame == 0 && Int(message.performer) == performer
                }
                if !tempoAtStart { merged.messages.insert(ControlMessage(frame: 0, performer: UInt8(performer), .tempo(bpm: bpm)), at: 0) }
            }
        }
        // Stable: each session's own order is kept at equal frames.
        merged.messages = merged.messages.enumerated()
            .sorted { ($0.element.frame, $0.offset) < ($1.element.frame, $1.offset) }.map(\.element)
        return merged
    }
}
