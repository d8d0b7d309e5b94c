import Inputs
import Voices

extension Preset.VoiceKind {
    public static let convolution = Preset.VoiceKind("convolution")
}

/// PulSonify's "uke" and "singing": the heartbeat as an impulse train convolved with a clip
/// (sparse path), or the audio input convolved with it (dense path, zita-convolver).
struct ConvolutionKind: VoiceKindDescriptor {
    let kind = Preset.VoiceKind.convolution
    let summary = "the heartbeat's impulses (or the audio input) convolved with a recorded clip"
    let fields = [
        VoiceField("file", .sound, "the clip (the impulse response)"),
        VoiceField("input", .flag, default: "false", "convolve the audio input instead of the heartbeat (not fired by beats)"),
        VoiceField("shape", .choice(["single", "lub-dub"]), default: "single", "one impulse per beat, or a lub-dub pair"),
        VoiceField("lub_dub_delay", .number(0.02...1.5), default: "0.3", "seconds from lub to dub"),
        VoiceField("lub_dub_gain", .number(0...1), default: "0.6", "the dub's level"),
        VoiceField("polyphony", .whole(1...256), default: "64", "copies of the clip in flight at once (sparse path)"),
    ]

    func followsHeartbeat(_ voice: Preset.VoiceDefinition) -> Bool { voice.option("input")?.flag != true }

    func build(_ voice: LoadedVoice, in context: VoiceBuildContext) throws -> any Voice {
        let definition = voice.definition
        let clip = try context.sample(voice, "file")
        if definition.option("input")?.flag == true {
            do {
                return try DenseConvolutionVoice(clip: clip, quantum: context.maxFrames, waitsForWorkers: context.offline)
            } catch {
                throw voice.error("input", "\(error)")
            }
        }
        let shape: HeartbeatShape = definition.option("shape")?.text == "lub-dub"
            ? .lubDub(delayFrames: Int(((definition.option("lub_dub_delay")?.number ?? 0.3) * Double(context.sampleRate)).rounded()),
                      gain: Float(definition.option("lub_dub_gain")?.number ?? 0.6))
            : .single
        return SparseConvolutionVoice(clip: clip, shape: shape, maxCopies: definition.option("polyphony")?.whole ?? 64)
    }

    var workouts: [[String: VoiceOption]] {
        [["shape": .text("lub-dub"), "lub_dub_delay": .number(0.1875)], ["input": .flag(true)]]
    }
}
