import ArgumentParser
import Control
import Foundation

struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render the shipped demo session with the default preset to a WAV file (no sound card needed).")

    @Option(help: "The WAV file to write.")
    var out: String = "pulsejack-demo.wav"

    func run() throws {
        do {
            let summary = try RenderJob(preset: ShippedPresets.defaultPreset, sessions: [ShippedPresets.demoSession],
                                        out: out, eventsOut: nil, rate: 48000, duration: nil, solo: nil,
                                        period: 256, input: nil).run()
            print(summary)
            print("The demo is at \(URL(fileURLWithPath: out).standardizedFileURL.path): play it with `play \(out)` (sox) or any audio player.")
        } catch let error as InputError {
            throw fail(error)
        }
    }
}
