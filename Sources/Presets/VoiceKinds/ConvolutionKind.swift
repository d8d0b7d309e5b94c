import Inputs
import Voices

extension Preset.VoiceKind {
    public static let convolution = Preset.VoiceKind("convolution")
}

/// PulSonify's "uke" and "singing": the heartbeat as an impulse train convolved with a clip
/// (sparse path), or the audio input convolved with it (dense path, zita-convolver).
package struct ConvolutionKind: VoiceKindDescriptor {
    package let kind = Preset.VoiceKind.convolution
    package let summary = "the heartbeat's impulses (or the audio input) convolved with a recorded clip"
    package let fields = [
        VoiceField("file", .sound, "the clip (the impulse response)"),
        VoiceField("input", .flag, default: .flag(false), "convolve the audio input instead of the heartbeat (not fired by beats)"),
        VoiceField("shape", .choice(["single", "lub-dub"]), default: .text("single"), "one impulse per beat, or a lub-dub pair"),
        VoiceField("lub_dub_delay", .number(0.02...1.5), default: .number(0.3), "seconds from lub to dub"),
        VoiceField("lub_dub_gain", .number(0...1), default: .number(0.6), "the dub's level"),
        VoiceField("polyphony", .whole(1...256), default: .whole(SparseConvolutionVoice.defaultCopies), "copies of the clip in flight at once (sparse path)"),
    ]

    package func followsHeartbeat(_ voice: Preset.VoiceDefinition) -> Bool { voice.option("input")?.flag != true }

    package func build(_ voice: LoadedVoice, in context: VoiceBuildContext) throws -> any Voice {
        let clip = try context.sample(voice, "file")
        if flag("input", of: voice) {
            do {
                return try DenseConvolutionVoice(clip: clip, quantum: context.maxFrames, waitsForWorkers: context.offline)
            } catch {
                throw voice.error("input", "\(error)")
            }
        }
        let shape: HeartbeatShape = text("shape", of: voice) == "lub-dub"
            ? .lubDub(delayFrames: Int((number("lub_dub_delay", of: voice) * Double(context.sampleRate)).rounded()),
                      gain: Float(number("lub_dub_gain", of: voice)))
            : .single
        return SparseConvolutionVoice(clip: clip, shape: shape, maxCopies: whole("polyphony", of: voice))
    }

    package var workouts: [[String: VoiceOption]] {
        [["shape": .text("lub-dub"), "lub_dub_delay": .number(0.1875)], ["input": .flag(true)]]
    }

    package func parameters(of voice: any Voice) -> [String: VoiceOption] {
        if voice is DenseConvolutionVoice { return ["input": .flag(true)] }
        guard let sparse = voice as? SparseConvolutionVoice else { return [:] }
        var parameters: [String: VoiceOption] = ["input": .flag(false), "polyphony": .whole(sparse.copies.maxPolyphony)]
        switch sparse.shape {
        case .single: parameters["shape"] = .text("single")
        case .lubDub(_, let gain): parameters["shape"] = .text("lub-dub"); parameters["lub_dub_gain"] = .number(Double(gain))
        }
        return parameters
    }
}
