import UserFiles
import Foundation
import Realtime
import Plugins

/// The engine's hosted LV2 plugins seen from the control thread: their places in the preset,
/// the insert controls OSC and MIDI reach, their logs, and a session save of their states.
extension EngineHandle {
    /// Control thread. Every hosted plugin by its place in the preset — "piano" (an lv2 voice),
    /// "piano.insert1", "master.insert2" — with its instances (two for a mono insert).
    func hostedPlugins() -> [(place: String, instances: [PluginInstance])] {
        current.hostedPlugins()
    }

    /// Control thread. While `on`, a line any hosted plugin logs (from any thread, `run` too)
    /// rings the control bell, so the control thread drains the logs without a timer.
    public func ringsOnPluginLogs(_ on: Bool) {
        if on { PluginInstance.ringOnLog(controlBell) } else { PluginInstance.stopRinging(controlBell) }
    }

    /// Control thread. What the hosted plugins logged since the last call (LV2 log, through each
    /// instance's ring), each line with the plugin's place in the preset.
    public func drainPluginLogs() -> [String] {
        ProcessThread.assertOutside("draining plugin logs")
        return hostedPlugins().flatMap { place, instances in instances.flatMap { $0.drainLog().map { "\(place): \($0)" } } }
    }

    /// Control thread. Every hosted CLAP plugin's main-thread work (timers, descriptors,
    /// callbacks it asked for); the seconds until the soonest timer and the descriptors they
    /// wait on, for the control thread's sleep.
    public func servePluginMainThreads() -> (dueSeconds: Double?, descriptors: [Int32]) {
        ProcessThread.assertOutside("serving plugins' main threads")
        var due: Double?, descriptors: [Int32] = []
        for (_, instances) in hostedPlugins() {
            for instance in instances {
                let served = instance.serveMainThread()
                if let next = served.dueSeconds { due = min(due ?? next, next) }
                descriptors += served.descriptors
            }
        }
        return (due, descriptors)
    }

    /// What a session save writes for one hosted plugin: its controls now and its state's folder.
    public struct SavedPlugin: Sendable {
        public var controls: [String: Double]
        public var state: String
    }

    /// Control thread. Right after `voiceStates(live:)` (whose snapshot holds the plugins'
    /// controls): saves each hosted plugin's state under `folder`, one folder per place in the
    /// preset and one numbered folder per instance inside it.
    public func savePluginStates(into folder: String) throws -> [String: SavedPlugin] {
        ProcessThread.assertOutside("saving plugin states")
        var saved: [String: SavedPlugin] = [:]
        for (place, instances) in hostedPlugins() {
            let placeFolder = URL(fileURLWithPath: folder).appendingPathComponent(place).path
            for (number, instance) in instances.enumerated() {
                do {
                    try instance.saveState(to: "\(placeFolder)/\(number + 1)")
                } catch let error as PluginError {
                    throw InputError(file: placeFolder, error.description)
                }
            }
            saved[place] = SavedPlugin(controls: instances[0].savedControls, state: placeFolder)
        }
        return saved
    }

    /// Control thread. Every insert control OSC and MIDI can reach, by OSC address without its
    /// leading slash ("voice/piano/insert/1/gain", "master/insert/2/bypass"; inserts from 1).
    public func insertRoutes() -> [String: InsertRoute] {
        ProcessThread.assertOutside("listing insert routes")
        var routes: [String: InsertRoute] = [:]
        let graph = current
        for control in graph.insertControls(chains: Array(-1..<graph.slots.count)) {
            let place = "\(control.chain < 0 ? "master" : "voice/\(voiceNames[control.chain])")/insert/\(control.number)/"
            guard let port = control.port else {
                routes[place + "bypass"] = InsertRoute(address: control.address, minimum: 0, maximum: 1)
                continue
            }
            routes[place + port.symbol] = InsertRoute(address: control.address, minimum: port.minimum.isNaN ? -.greatestFiniteMagnitude : port.minimum,
                                                      maximum: port.maximum.isNaN ? .greatestFiniteMagnitude : port.maximum)
        }
        return routes
    }

    /// Control thread. A message that loads the saved state in `folder` (as a session save
    /// writes it: one numbered folder per instance) into insert `number` (from 1) of voice
    /// `place`'s chain, or the master's ("master"). The new instances are built, restored and
    /// activated here; the process thread swaps them in at `frame` and hands the old ones back
    /// (`ClipSwapper.releaseRetired` frees them).
    public func insertStateMessage(place: String, insert number: Int, state folder: String,
                                   frame: Int64 = ControlMessage.immediate) throws -> ControlMessage {
        try insertSwapMessage(place: place, insert: number, from: folder, frame: frame) { builder, uri, instance, key, fail in
            try builder.instance(uri, controls: [:], state: "\(folder)/\(instance)", key: key, fail: fail)
        }
    }

    /// Control thread. A message that loads the plugin's own preset `preset` (by name) into
    /// insert `number` of voice `place`'s chain, or the master's: fresh instances with it, as
    /// `insertStateMessage` builds them.
    public func insertPresetMessage(place: String, insert number: Int, preset: String,
                                    frame: Int64 = ControlMessage.immediate) throws -> ControlMessage {
        try insertSwapMessage(place: place, insert: number, from: "preset '\(preset)'", frame: frame) { builder, uri, _, key, fail in
            try builder.instance(uri, controls: [:], preset: preset, key: key, fail: fail)
        }
    }

    /// Control thread. Fresh instances for insert `number` of `place`'s chain, made by `make`
    /// (instance number from 1, its key, the error to throw), in a message that swaps them in.
    private func insertSwapMessage(place: String, insert number: Int, from origin: String, frame: Int64,
                                   make: (PluginBuilder, String, Int, String, (String?, String) -> InputError) throws -> PluginInstance)
        throws -> ControlMessage {
        ProcessThread.assertOutside("loading a plugin state")
        let chainIndex = place == "master" ? InsertAddress.master : voiceIndex(named: place).map(Int32.init) ?? -2
        guard let chain = insertChain(InsertAddress(chain: chainIndex, stage: 0, port: 0)), (1...chain.stages.count).contains(number)
        else { throw InputError(file: origin, field: "\(place).insert\(number)", "no such insert in this preset") }
        let stage = chain.stages[number - 1]
        let builder = PluginBuilder(sampleRate: sampleRate, maxFrames: maxFrames, offline: false, stateFolder: nil,
                                    isolateAll: stage.published.instances[0].isolation != nil)
        let instances = try (1...stage.width).map { instance in
            try make(builder, stage.uri, instance, "\(place).insert\(number)/\(instance)") { _, message in
                InputError(file: origin, field: "\(place).insert\(number)", message)
            }
        }
        let set = InsertChain.PluginSet(instances)
        stage.published = set
        return ControlMessage(frame: frame, .swapInsert(InsertAddress(chain: chainIndex, stage: UInt16(number - 1), port: 0),
                                                        RetainedObject(retaining: set)))
    }
}
