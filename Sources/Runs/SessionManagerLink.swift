import OSC
import Foundation
import Inputs
import Engine
import JackBackend
import Presets

/// A live run under a session manager (NSM): the session it opened, our JACK name there, and
/// the manager's requests each tick — saves (the preset as it plays now, and the plugins'
/// states, into the session folder), a switch we refuse, and the dirty flag. Control thread.
public final class SessionManagerLink {
    public let client: NSMClient
    public let session: NSMClient.Session
    /// The session's saved preset, if there is one.
    public let savedPreset: String?
    public let clientName: String
    /// The setting changes the last save kept (the dirty flag compares with it).
    private var savedChanges = 0

    private init(client: NSMClient, session: NSMClient.Session, savedPreset: String?, clientName: String) {
        self.client = client
        self.session = session
        self.savedPreset = savedPreset
        self.clientName = clientName
    }

    /// Joins the session manager at `url` (NSM_URL): announces, waits for its open (or nil if
    /// `stop` says so first), makes the session folder, and picks the JACK name its client id allows.
    public static func join(url: String, stop: @escaping () -> Bool, log: @escaping @Sendable (String) -> Void,
                            say: (String) -> Void) throws -> SessionManagerLink? {
        let client = try NSMClient(url: url, log: log)
        guard let opened = try client.announce(application: "pulsejack", executable: "pulsejack", stop: stop) else { return nil }
        try FileManager.default.createDirectory(atPath: opened.path, withIntermediateDirectories: true)
        let saved = opened.path + "/preset.yaml"
        var clientName = opened.clientID
        if JackClient.problem(withName: clientName) != nil {
            // A client id JACK cannot take (the server's own name): keep it recognisable.
            let fixed = String(clientName.replacingOccurrences(of: ":", with: "_").prefix(50)) + ".pulsejack"
            say("pulsejack: the session manager's client id '\(clientName)' cannot be a JACK client name; using '\(fixed)'")
            clientName = fixed
        }
        say("pulsejack: session manager \(client.managerName ?? url) opened '\(opened.displayName)' at \(opened.path)")
        return SessionManagerLink(client: client, session: opened, savedPreset: FileManager.default.fileExists(atPath: saved) ? saved : nil,
                                  clientName: clientName)
    }

    /// Where hosted plugins keep their state files in this session.
    var pluginFolder: String { session.path + "/plugins" }

    /// Before the first tick: the engine's settings as opened are the saved ones.
    func opened(changes: Int) {
        savedChanges = changes
        client.opened()
    }

    /// Each tick: the manager's requests answered, and the dirty flag set. `live`: the process
    /// thread runs (it copies the settings for a save).
    func poll(handle: EngineHandle, loaded: LoadedPreset, live: Bool, log: (String) -> Void, say: (String) -> Void) {
        for request in client.poll() {
            switch request {
            case .save: save(handle: handle, loaded: loaded, live: live, log: log, say: say)
            case .open(let other):
                // Without :switch: a manager restarts a client to change sessions; one that asks
                // anyway is told why not (the ports, `outputs:` among them, are registered at start).
                let line = "cannot open session '\(other.displayName)' while running: pulsejack registers its JACK ports "
                    + "(outputs:, midi_out:) when it starts, so another session or preset is a restart of the client"
                log(line)
                client.opened(error: line)
            default: break
            }
        }
        client.setDirty(handle.settingChanges.load(ordering: .relaxed) != savedChanges)
    }

    /// The manager's save: the preset as it plays now, into the session folder.
    private func save(handle: EngineHandle, loaded: LoadedPreset, live: Bool, log: (String) -> Void, say: (String) -> Void) {
        do {
            savedChanges = handle.settingChanges.load(ordering: .relaxed)
            let states = handle.voiceStates(live: live)
            // Plugin states inside the session folder (`state:makePath` files go there too).
            let plugins = try handle.savePluginStates(into: pluginFolder)
            let switches = (0..<handle.modulationReadings.count).map { handle.modulationReadings.reading($0).enabled }
            try loaded.save(to: session.path + "/preset.yaml", bpm: handle.publishedTempo, states: states, plugins: plugins,
                            modulationsOn: switches)
            client.saved()
            say("pulsejack: saved the session to \(session.path)/preset.yaml")
        } catch {
            log("\(error)")
            client.saved(error: "\(error)")
        }
    }
}
