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

    /// `keepsFired`: a live picture reads the fired voices (and hands them on for the events log).
    init(recordSession: String?, eventsOut: String?, keepsFired: Bool, sampleRate: Int, voiceNames: [String],
         performers: [String]) throws {
        if let path = recordSession {
            guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
                throw InputError(file: path, "cannot write the session log")
            }
            handle.write(Data((SessionLog.headerLine(.init(pulsejack_session: 1, sample_rate: sampleRate, voices: voiceNames,
                                                             performers: performers.isEmpty ? nil : performers)) + "\n").utf8))
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
                if let line = SessionLog.line(for: message) { lines += line + "\n" }
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

    /// After the last drain: the session log's end line (the engine's last frame), and both files closed.
    func finish(endFrame: Int64) {
        if let recording {
            recording.write(Data((SessionLog.endLine(frame: endFrame) + "\n").utf8))
            try? recording.close()
        }
        try? events?.close()
    }
}
