import UserFiles
import Foundation

/// Builds hosted plugins from their URI, controls and state, off the real-time thread, turning a plugin's
/// refusal into one error naming the preset file and line.
package struct PluginBuilder {
    let sampleRate: Int
    package let maxFrames: Int
    let offline: Bool
    /// Where plugins keep their state files (`state:makePath`); nil: a temporary folder.
    let stateFolder: String?
    /// Every plugin in a process of its own (`--isolate-plugins`), whatever its preset says.
    let isolateAll: Bool

    package init(sampleRate: Int, maxFrames: Int, offline: Bool, stateFolder: String?, isolateAll: Bool = false) {
        self.sampleRate = sampleRate
        self.maxFrames = maxFrames
        self.offline = offline
        self.stateFolder = stateFolder
        self.isolateAll = isolateAll
    }

    /// An activated instance of `uri`: its own preset named `preset` if given, `controls` over
    /// it, then the saved state in `state` if given (a session's, which holds them all); `key`
    /// names its folder for files it makes (`state:makePath`). `fail(field, message)` makes the
    /// error, `field` relative to where the plugin is named ("controls.gain", or nil).
    /// `isolate`: hosted in a child process (`PluginProcess`).
    package func instance(_ uri: String, controls: [String: Double], preset: String? = nil, state: String? = nil, key: String,
                          isolate: Bool = false, fail: (String?, String) -> InputError) throws -> PluginInstance {
        do {
            let given = controls.mapValues(Float.init)
            let instance = try PluginInstance(uri: uri, sampleRate: sampleRate, maxFrames: maxFrames, controls: given,
                                              stateFolder: stateFolder.map { "\($0)/\(key)" }, offline: offline,
                                              isolate: isolate || isolateAll)
            if let preset {
                try instance.loadPreset(preset)
                instance.setControls(given)
            }
            if let state { try instance.restoreState(from: state) }
            instance.activate()
            return instance
        } catch let error as PluginError {
            throw fail(error.field, error.description)
        }
    }
}
