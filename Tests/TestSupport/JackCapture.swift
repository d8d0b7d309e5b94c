import Foundation

/// jack_capture, the real recorder a DAW user would reach for: `ports` of `client` recorded into
/// one WAV file, one channel a port, for `seconds`.
public enum JackCapture {
    /// Records while `during` runs, and returns when the recording is written; nil when
    /// jack_capture is not installed.
    public static func record(_ ports: [String], of client: String, server: String, seconds: Int, into file: String,
                              during: () throws -> Void = {}) throws -> WavFile? {
        guard let jackCapture = Subprocess.which("jack_capture") else { return nil }
        let recorder = Process()
        Subprocess.keepForTheSuite(recorder)
        recorder.executableURL = URL(fileURLWithPath: jackCapture)
        recorder.arguments = ["-d", "\(seconds)", "-c", "\(ports.count)"] + ports.flatMap { ["-p", "\(client):\($0)"] } + ["--daemon", file]
        recorder.environment = ProcessInfo.processInfo.environment.merging(["JACK_DEFAULT_SERVER": server]) { $1 }
        recorder.standardOutput = FileHandle.nullDevice
        recorder.standardError = FileHandle.nullDevice
        try recorder.run()
        try during()
        recorder.waitUntilExit()
        return try WavFile(path: file)
    }
}
