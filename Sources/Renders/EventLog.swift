import UserFiles
import Inputs
import Foundation
import Engine

/// `--events-out`: one JSON object per line for every fired voice.
public final class EventLog {
    private struct Line: Encodable {
        var frame: Int64
        var voice: String
        var velocity: Double?
    }

    private let handle: FileHandle
    private let voiceNames: [String]
    private let encoder: JSONEncoder
    private var buffer = Data()
    public let path: String

    public init(path: String, voiceNames: [String]) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw InputError(file: path, "cannot write the events file")
        }
        self.handle = handle
        self.path = path
        self.voiceNames = voiceNames
        encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    }

    public func write(_ fired: FiredVoice) {
        // JSON has no NaN or Inf: a velocity that is not finite is written as null.
        let line = Line(frame: fired.frame, voice: voiceNames[Int(fired.voice)],
                        velocity: fired.velocity.isFinite ? Double(fired.velocity) : nil)
        buffer.append(try! encoder.encode(line))
        buffer.append(0x0A)
        if buffer.count > 1 << 16 { flush() }
    }

    private func flush() {
        handle.write(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    public func close() throws {
        flush()
        try handle.close()
    }
}
