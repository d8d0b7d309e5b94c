import Foundation

/// A `pulsejack run` a test started on its JACK server, its output kept until it stops.
public final class LiveRun {
    public let process: Process
    private let output = Pipe()
    private let printing: PrintedOutput

    /// Starts `pulsejack ARGUMENTS` against the JACK server `server`.
    public init(_ arguments: [String], server: String, environment: [String: String] = [:]) throws {
        process = try Subprocess.startPulsejack(arguments, server: server, output: output, environment: environment)
        printing = PrintedOutput(output.fileHandleForReading)
    }

    /// Sends `signal` (SIGINT unless told), waits for the exit, and returns its status and
    /// everything the run printed; a run that died of a signal has `CrashReport`'s line first.
    /// Once it has stopped, it only returns those again.
    @discardableResult
    public func stop(signal: Int32 = SIGINT) -> (status: Int32, printed: String) {
        if process.isRunning { kill(process.processIdentifier, signal) }
        process.waitUntilExit()
        if printed == nil {
            let text = printing.whole()
            printed = process.terminationReason == .uncaughtSignal
                ? CrashReport.line(signal: process.terminationStatus, printed: text) + "\n" + text : text
        }
        return (process.terminationStatus, printed ?? "")
    }

    private var printed: String?
}

/// What a process prints, read as it comes on a thread of its own: one that prints more than a
/// pipe holds (64 KiB, a crash report of forty threads) is never held in its `write` by a test
/// that reads only once it has exited.
private final class PrintedOutput: @unchecked Sendable {  // @unchecked: `text` is written once, before `done` is signalled.
    private var text = ""
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread { [self] in
            text = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
            done.signal()
        }.start()
    }

    /// Everything, once every writer has closed the pipe (the process and the children it left).
    func whole() -> String {
        done.wait()
        done.signal()
        return text
    }
}
