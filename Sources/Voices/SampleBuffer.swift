import Realtime
/// Decoded audio held in memory at the engine's sample rate: one or two deinterleaved channels.
/// Built off the real-time thread; immutable after, so the process thread reads it freely.
// @unchecked: immutable once built; its raw sample memory is only read.
public final class SampleBuffer: @unchecked Sendable {
    /// Every channel's samples, one after the other.
    private let storage: FixedBuffer<Float>
    public let channels: [UnsafeMutableBufferPointer<Float>]
    public let frameCount: Int
    public let sampleRate: Int

    /// Control thread. `channelData` holds one array per channel, all the same length.
    public init(channelData: [[Float]], sampleRate: Int) {
        precondition(!channelData.isEmpty && channelData.count <= 2, "a sample has one or two channels")
        let length = channelData[0].count
        precondition(channelData.allSatisfy { $0.count == length }, "channels differ in length")
        storage = FixedBuffer(capacity: length * channelData.count, repeating: 0)
        let base = storage.pointer
        channels = channelData.enumerated().map { channel, data in
            let buffer = UnsafeMutableBufferPointer(start: base + channel * length, count: length)
            _ = buffer.update(fromContentsOf: data)
            return buffer
        }
        frameCount = length
        self.sampleRate = sampleRate
    }

    /// The left and right channel (the same one for a mono sample).
    public var left: UnsafeMutableBufferPointer<Float> { channels[0] }
    public var right: UnsafeMutableBufferPointer<Float> { channels[channels.count - 1] }
}
