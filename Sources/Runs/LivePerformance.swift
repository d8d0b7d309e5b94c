import Foundation
import Inputs
import JackBackend
import OSC
import Renders

/// `pulsejack run` from its configuration to its last line, in the library where a test can
/// drive it: a session manager joined first when one is there (`NSM_URL`: announce, and wait for
/// its open before anything JACK), the session built and activated, then woken and ticked until a
/// stop signal, and stopped. The command line only parses the options and prints.
public enum LivePerformance {
    /// How a performance ended.
    public enum Outcome {
        /// The session manager never opened a session (it went away, or a stop came first).
        case neverOpened
        /// A stop signal came while waiting: for a JACK server to come up, or as a NetJACK2 slave
        /// for its master (the slave is stopped).
        case stoppedWaiting
        /// It played and stopped (its last line said): the summary, and whether the client had to
        /// be left to a server that would not let it go (then the process should exit without
        /// libjack's teardown, `LiveSession.exitLeavingTheClient`).
        case played(LiveSession.Summary, closeAbandoned: Bool)
    }

    /// Control thread. `say` takes the news (what plays, the page's address), `warn` the problems
    /// (a warning each), `rejections` what reading the replayed sessions rejected.
    public static func run(_ configuration: LiveSession.Configuration, signals: StopSignals,
                           say: @escaping @Sendable (String) -> Void, warn: @escaping @Sendable (String) -> Void,
                           rejections: ([HeartSession.Rejection], Int) -> Void) throws -> Outcome {
        var configuration = configuration
        configuration.shouldStop = { signals.stopping }
        if let url = NSMClient.environmentURL {
            guard let join = try SessionManagerLink.join(url: url, stop: { signals.stopping }, log: warn, say: say) else {
                return .neverOpened
            }
            configuration.sessionManager = join
        } else if let problem = JackClient.problem(withName: configuration.clientName) {
            throw OptionProblem("--name: \(problem)")
        }
        let session: LiveSession
        do {
            session = try LiveSession(configuration: configuration, log: warn, say: say)
            rejections(session.replayRejections.first, session.replayRejections.total)
            try session.activate()
        } catch is JackServer.NetWaitStopped {
            say("pulsejack: stopped by \(signals.name) while waiting for the NetJACK2 master; the slave server is stopped")
            return .stoppedWaiting
        } catch is LiveSession.ServerWaitStopped {
            say("pulsejack: stopped by \(signals.name) while waiting for a JACK server")
            return .stoppedWaiting
        }
        say(session.playing)
        if let page = session.page { say("pulsejack: the live page is at \(page.url)") }
        while !signals.stopping {
            session.waitForWork(orStop: signals.doorbell)
            if !signals.stopping { session.tick() }
        }
        let summary = session.stop()
        say("pulsejack: stopped after \(summary); stopped by \(signals.name)")
        return .played(summary, closeAbandoned: session.closeAbandoned)
    }
}

extension LiveSession {
    /// What plays, where and how, in one line (said once it is active).
    public var playing: String {
        let name = loaded.preset.name ?? "preset"
        var line = "pulsejack: playing '\(name)' from \(loaded.file) on \(client.server.described) as '\(client.name)' at "
            + "\(client.sampleRate) Hz, \(client.bufferSize) frames a period; ports \(client.outputPortNames.joined(separator: ", ")), "
            + "\(client.name):midi_out, \(client.name):midi_in"
        if let summary = outputs.summary { line += "; " + summary }
        if let osc, let bind = configuration.osc?.bind { line += "; OSC on \(bind):\(osc.boundPort)" }
        if let record = configuration.record { line += "; recording to \(record)" }
        return line
    }
}
