import UserFiles
import CSndfile
import Foundation

/// A folder of audio files and their tags, read from each file's comment metadata with
/// libsndfile: `#happy`, `#sad`, any `#word`, and an optional `bpm=N`. Control thread.
public struct TrackLibrary: Sendable {
    public struct Track: Sendable, Codable, Equatable {
        public var path: String
        public var tags: [String]
        public var bpm: Double?
        public var seconds: Double

        /// `pulsejack library` as text: the path, its tags (or none), its bpm.
        public var listing: String {
            let tags = tags.map { "#\($0)" }.joined(separator: " ")
            return "\(path)  \(tags.isEmpty ? "(no tags)" : tags)\(bpm.map { "  bpm=\($0)" } ?? "")"
        }
    }

    public var tracks: [Track]

    /// Reads every sound file in `folder` (not recursing); a file libsndfile cannot open is
    /// skipped, one with no comment is listed with no tags.
    public static func scan(folder: String) throws -> TrackLibrary {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else {
            throw InputError(file: folder, "cannot read the library folder")
        }
        var tracks: [Track] = []
        for name in names.sorted() {
            let path = URL(fileURLWithPath: folder).appendingPathComponent(name).standardizedFileURL.path
            var info = SF_INFO()
            guard (try? UserFile.requireRegular(path, what: "track")) != nil,
                  let file = sf_open(path, Int32(SFM_READ), &info) else { continue }
            defer { sf_close(file) }
            let comment = sf_get_string(file, Int32(SF_STR_COMMENT)).map { String(cString: $0) } ?? ""
            let (tags, bpm) = parse(comment: comment)
            tracks.append(Track(path: path, tags: tags, bpm: bpm,
                                seconds: info.samplerate > 0 ? Double(info.frames) / Double(info.samplerate) : 0))
        }
        return TrackLibrary(tracks: tracks)
    }

    /// `#word` tags (lower-cased, in order, once each) and `bpm=N` from a comment.
    public static func parse(comment: String) -> (tags: [String], bpm: Double?) {
        var tags: [String] = []
        var bpm: Double?
        // Vorbis comments (FLAC, OGG) arrive as "Comment=#sad": a tag may follow a "key=".
        for token in comment.split(whereSeparator: { $0.isWhitespace || $0 == "," || $0 == ";" }) {
            let word = token.lowercased()
            if let hash = word.firstIndex(of: "#") {
                let tag = String(word[word.index(after: hash)...])
                if !tag.isEmpty, !tags.contains(tag) { tags.append(tag) }
            } else if let range = word.range(of: "bpm="), let value = Double(word[range.upperBound...]), value.isFinite,
                      (20...300).contains(value) {
                bpm = value
            }
        }
        return (tags, bpm)
    }

    /// The tracks tagged with `mood`.
    public func matching(mood: String) -> [Track] { tracks.filter { $0.tags.contains(mood.lowercased()) } }
}
