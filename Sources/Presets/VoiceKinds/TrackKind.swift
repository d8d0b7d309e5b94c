import Foundation
import Voices
import SoundFiles

extension Preset.VoiceKind {
    public static let track = Preset.VoiceKind("track")
}

/// A track that follows the heart's tempo (Rubber Band), or MusicMood's tagged library.
package struct TrackKind: VoiceKindDescriptor {
    package let kind = Preset.VoiceKind.track
    package let summary = "a track time-stretched to the heart's tempo, or the next track of a library by mood"
    package let fields = [
        VoiceField("file", .sound, "the track (or give a library)"),
        VoiceField("library", .folder, "a folder of tracks tagged #happy, #sad … in their comments"),
        VoiceField("track_bpm", .number(20...300), "the track's own tempo (else read from its tags)"),
        VoiceField("stretch_range", .numbers, default: .numbers([TrackPlayerVoice.defaultRatioRange.lowerBound, TrackPlayerVoice.defaultRatioRange.upperBound]), "the time-stretch ratios allowed, [least, most]"),
    ]

    package func requiredSounds(_ voice: Preset.VoiceDefinition) -> [String] { voice.option("library") == nil ? ["file"] : [] }

    package func check(_ voice: LoadedVoice) throws {
        if let library = voice.libraryPath {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: library, isDirectory: &isFolder), isFolder.boolValue else {
                throw voice.error("library", "no such folder: \(library)")
            }
        }
        if let range = voice.definition.option("stretch_range")?.numbers {
            guard range.count == 2, range.allSatisfy({ $0.isFinite && (0.1...10).contains($0) }), range[0] <= 1, range[1] >= 1,
                  range[0] < range[1] else {
                throw voice.error("stretch_range", "\(range) is not [least, most] with 0.1 ≤ least ≤ 1 ≤ most ≤ 10")
            }
        }
    }

    package func build(_ voice: LoadedVoice, in context: VoiceBuildContext) throws -> any Voice {
        let definition = voice.definition
        let range = numbers("stretch_range", of: voice)
        let stretch = range[0]...range[1]
        let trackBPM = definition.option("track_bpm")?.number
        guard let library = voice.libraryPath else {
            return TrackPlayerVoice(track: try context.sample(voice, "file"), trackBPM: trackBPM, ratioRange: stretch)
        }
        // The first track of the library starts; the mood picks the ones after it.
        guard let first = try (context.libraries[library] ?? TrackLibrary.scan(folder: library)).tracks.first else {
            throw voice.error("library", "no sound files in \(library)")
        }
        return TrackPlayerVoice(track: try SampleFile.load(path: first.path, sampleRate: context.sampleRate),
                                trackBPM: first.bpm ?? trackBPM, ratioRange: stretch)
    }

    package var workouts: [[String: VoiceOption]] { [["track_bpm": .number(90)]] }

    package func parameters(of voice: any Voice) -> [String: VoiceOption] {
        (voice as? TrackPlayerVoice).map { ["stretch_range": .numbers([$0.ratioRange.lowerBound, $0.ratioRange.upperBound])] } ?? [:]
    }
}
