import ArgumentParser
import SoundFiles

struct Library: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List a folder of tracks with the tags and bpm in their comment metadata (#happy, #sad, bpm=N).")

    @Option(help: "The folder to scan.") var scan: String
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let library: TrackLibrary
        do { library = try TrackLibrary.scan(folder: scan) } catch { throw fail(error) }
        if json { try printJSON(library.tracks) } else { library.tracks.forEach { print($0.listing) } }
    }
}
