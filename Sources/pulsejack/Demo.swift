import Renders
import UserFiles
import ArgumentParser
import Foundation
import Presets

struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render the shipped demo session with the shipped default preset to a WAV file (no sound card needed).")

    @Option(help: "The WAV file to write.") var out: String = "pulsejack-demo.wav"

    func run() throws {
        do {
            let shipped = try ShippedPresets.demo()
            var job = RenderJob(preset: shipped.preset, sessions: [shipped.session], out: out)
            job.say = { FileHandle.standardError.write(Data("pulsejack: \($0)\n".utf8)) }
            let summary = try job.run()
            print(summary)
            print("The demo is at \(URL(fileURLWithPath: out).standardizedFileURL.path): play it with `play \(out)` (sox) or any audio player.")
        } catch let error as InputError {
            throw fail(error)
        }
    }
}
