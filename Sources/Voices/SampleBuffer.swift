/// Decoded audio held in memory at the engine's sample rate: one or two deinterleaved channels.
/// Built off the real-time thread; immutable after, so the process thread reads it freely.
// @unchecked: immutable once built; its raw sample memory is only read.
public final class SampleBuffer: @unchecked Sendable {
    public let channels: [UnsafeMutableBufferPointer<Float>]
    public let frameCount: Int
    public let sampleRate: Int

    /// Off the real-time thread. `channelData` holds one array per channel, all the same length.
    public init(channelData: [[Float]], sampleRate: Int) {
        precondition(!channelData.isEmpty && channelData.count <= 2, "a sample has one or two channels")
        let length = channelData[0].count
        precondition(channelData.allSatisfy { $0.count == length }, "channels differ in length")
        channels = channelData.map { data in
            let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: max(1, data.count))
            _ = buffer.initialize(from: data)
            return buffer
        }
        frameCount = length
        self.sampleRate = sampleRate
    }

    deinit { channels.forEach { $0.deallocate() } }

    /// The left and right channel (the same one for a mono sample).
    public var left: UnsafeMutableBufferPointer<Float> { channels[0] }
    public var right: UnsafeMutableBufferPointer<Float> { channels[channels.count - 1] }
}
