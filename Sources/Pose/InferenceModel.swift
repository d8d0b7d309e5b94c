import CLiteRT
import UserFiles

/// One TFLite model compiled by LiteRT for the CPU, its float32 inputs and outputs in buffers it
/// owns. Used by one thread (the pose thread); not Sendable.
final class InferenceModel {
    private let handle: OpaquePointer
    let path: String

    /// Opens `path` with `threads` inference threads; LiteRT must be loaded.
    init(path: String, threads: Int) throws(PoseError) {
        var error = [CChar](repeating: 0, count: 512)
        guard let handle = StandardErrorSilenced.during({ pj_litert_open(path, Int32(threads), &error, error.count) }) else {
            throw PoseError("\(path): \(String(message: error))")
        }
        self.handle = handle
        self.path = path
    }

    deinit { pj_litert_close(handle) }

    var inputCount: Int { pj_litert_input_count(handle) }
    var outputCount: Int { pj_litert_output_count(handle) }

    func input(_ index: Int) -> UnsafeMutableBufferPointer<Float> {
        var count = 0
        return UnsafeMutableBufferPointer(start: pj_litert_input(handle, index, &count), count: count)
    }

    func output(_ index: Int) -> UnsafeBufferPointer<Float> {
        var count = 0
        return UnsafeBufferPointer(start: pj_litert_output(handle, index, &count), count: count)
    }

    func inputShape(_ index: Int) -> [Int] {
        var dimensions = [Int32](repeating: 0, count: 8)
        let rank = pj_litert_input_shape(handle, index, &dimensions)
        return dimensions.prefix(Int(rank)).map(Int.init)
    }

    func outputShape(_ index: Int) -> [Int] {
        var dimensions = [Int32](repeating: 0, count: 8)
        let rank = pj_litert_output_shape(handle, index, &dimensions)
        return dimensions.prefix(Int(rank)).map(Int.init)
    }

    /// Checks the shapes a caller relies on: one input, and each output's element count.
    func expect(input: [Int], outputs: [Int], what: String) throws(PoseError) {
        let outputsHeld = (0..<outputCount).map { outputShape($0).reduce(1, *) }
        guard inputCount == 1, inputShape(0) == input, outputsHeld.count >= outputs.count, Array(outputsHeld.prefix(outputs.count)) == outputs else {
            throw PoseError("\(path): not BlazePose's \(what) (input \(inputCount == 1 ? inputShape(0) : []), output sizes \(outputsHeld))")
        }
    }

    func run() throws(PoseError) {
        let status = pj_litert_run(handle)
        guard status == 0 else { throw PoseError("\(path): inference failed (LiteRT status \(status))") }
    }
}
