import Renders
import UserFiles
import Foundation
import Inputs
import Realtime
import Engine
import WebSurface

/// What a live run writes as it plays: the session log (`--record-session`: every control
/// message the engine applied, at its frame, re-renderable offline) and the events log
/// (`--events-out`: every fired voice). The process thread reports into their rings; each tick
/// writes what came. Control thread.
final class RunLogs {
    /// Every applied message, when a session log is written.
    let applied: SPSCRing<ControlMessage>?
    /// Every fired voice, when the events log or a live picture wants them.
    let fired: SPSCRing<FiredVoice>?
    private let recording: FileHandle?
    private let events: EventLog?
    /// The session log's rate, and where each engine's frames begin: an engine rebuilt at
    /// another rate (the server's changed) goes on from `engineFrame`, its frames converted so
    /// the log keeps one rate and stays re-renderable as one take.
    private let logRate: Int
    private var segments: [(engineFrame: Int64, logFrame: Int64, rate: Int)]

    /// `keepsFired`: a live picture reads the fired voices (and hands them on for the events log).
    init(recordSession: String?, eventsOut: String?, keepsFired: Bool, sampleRate: Int, voiceNames: [String],
         performers: [String], signals: [String] = []) throws {
        logRate = sampleRate
        segments = [(0, 0, sampleRate)]
        if let path = recordSession {
            guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
                throw InputError(file: path, "cannot write the session log")
            }
            handle.write(Data((SessionLog.headerLine(.init(pulsejack_session: 1, sample_rate: sampleRate, voices: voiceNames,
                                                             performers: performers.isEmpty ? nil : performers,
                                                             signals: signals.isEmpty ? nil : signals)) + "\n").utf8))
            recording = handle
            applied = SPSCRing(minimumCapacity: 16_384)
        } else {
            recording = nil
            applied = nil
        }
        events = try eventsOut.map { try EventLog(path: $0, voiceNames: voiceNames) }
        fired = eventsOut != nil || keepsFired ? SPSCRing(minimumCapacity: 8192) : nil
    }

    /// Writes what the process thread reported since the last call (the fired voices through
    /// `view` when a live picture takes them first).
    func drain(view: LiveView?) {
        if let recording, let applied {
            var lines = ""
            while let message = applied.consumer.pop() {
                if let line = SessionLog.line(for: inLogFrames(message)) { lines += line + "\n" }
            }
            if !lines.isEmpty { recording.write(Data(lines.utf8)) }
        }
        guard let events else { return }
        if let view {
            for report in view.takeFired() { events.write(report) }
        } else if let fired {
            while let report = fired.consumer.pop() { events.write(report) }
        }
    }

    /// An engine rebuilt at `rate` takes over at engine frame `frame` (the parked one's last):
    /// what it applies is logged in the log's rate from there. Again for the same frame: the
    /// rebuild offered before was withdrawn.
    func engineWillSwitch(at frame: Int64, rate: Int) {
        if segments.last?.engineFrame == frame, segments.count > 1 { segments.removeLast() }
        segments.append((frame, logFrame(frame), rate))
    }

    /// Engine frame `frame` in the log's rate.
    private func logFrame(_ frame: Int64) -> Int64 {
        let segment = segments.last { $0.engineFrame <= frame } ?? segments[0]
        guard segment.rate != logRate else { return segment.logFrame + frame - segment.engineFrame }
        return segment.logFrame + Int64((Double(frame - segment.engineFrame) * Double(logRate) / Double(segment.rate)).rounded())
    }

    private func inLogFrames(_ message: ControlMessage) -> ControlMessage {
        var converted = message
        converted.frame = logFrame(message.frame)
        if case .framesSkipped(let frames) = message.event {
            converted.event = .framesSkipped(Int32(clamping: logFrame(message.frame + Int64(frames)) - converted.frame))
        }
        return converted
    }

    /// After the last drain: the session log's end line (the engine's last frame), and both files closed.
    func finish(endFrame: Int64) {
        if let recording {
            recording.write(Data((SessionLog.endLine(frame: logFrame(endFrame)) + "\n").utf8))
            try? recording.close()
        }
        try? events?.close()
    }
}
