import UserFiles
import Inputs
import Foundation
import Voices
import Realtime
import Engine
import SoundFiles

/// Replaces a convolution voice's clip while the engine plays. Control thread: it decodes,
/// resamples (and for the dense path partitions) the new clip here, sends it to the process
/// thread in a control message, and releases what the engine hands back.
public final class ClipSwapper {
    public let handle: EngineHandle
    private let preset: LoadedPreset
    private let offline: Bool

    public init(handle: EngineHandle, preset: LoadedPreset, offline: Bool) {
        self.handle = handle
        self.preset = preset
        self.offline = offline
    }

    /// Control thread. A message that swaps `voice`'s clip for the sound file at `path`, at
    /// `frame`. Send it through one of the engine's rings.
    public func message(voice name: String, clip path: String, frame: Int64 = ControlMessage.immediate) throws -> ControlMessage {
        guard let index = handle.voiceIndex(named: name), let voice = preset.voices.first(where: { $0.definition.name == name }),
              voice.definition.kind == .convolution else {
            throw InputError(file: preset.file, field: "voices", "no convolution voice named '\(name)'")
        }
        let buffer = try SampleFile.load(path: path, sampleRate: handle.sampleRate)
        let object: AnyObject = voice.definition.option("input")?.flag == true
            ? try DenseConvolutionVoice(clip: buffer, quantum: handle.maxFrames, waitsForWorkers: offline) : buffer
        return ControlMessage(frame: frame, .swapClip(voice: Int32(index), clip: RetainedObject(retaining: object)))
    }

    /// Control thread. Releases every object the engine has handed back; call it now and then.
    public func releaseRetired() {
        let consumer = handle.retiredClips.consumer
        while let retired = consumer.pop() { retired.release() }
    }
}
