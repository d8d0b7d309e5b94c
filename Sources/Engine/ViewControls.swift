import Realtime

extension EngineView {
    /// Offline. The view a live picture reads an engine's settings through, for the
    /// engine `setup` makes — the voices', the mode and pattern, and every insert's bypass and
    /// input controls (voices in order, then the master), named as OSC names them. Put it in the
    /// setup (`EngineSetup.view`) for the engine to serve. `answered` rings when a copy is made.
    public convenience init(for setup: EngineSetup, answered: Doorbell) {
        let handle = setup.handle
        let graph = VoiceGraph(slots: setup.slots, masterInserts: setup.masterInserts)
        let controls = graph.insertControls(chains: Array(0..<setup.slots.count) + [-1]).map { control in
            let place = control.chain < 0 ? "master" : "voice/\(handle.voiceNames[control.chain])"
            let plugin = control.stage.published.instances[0].name
            guard let port = control.port else {
                return InsertControl(address: control.address, place: place, number: control.number, plugin: plugin, symbol: "bypass",
                                     name: "Bypass", minimum: 0, maximum: 1)
            }
            return InsertControl(address: control.address, place: place, number: control.number, plugin: plugin, symbol: port.symbol,
                                 name: port.name, minimum: port.minimum.isNaN ? 0 : port.minimum, maximum: port.maximum.isNaN ? 1 : port.maximum)
        }
        self.init(voiceCount: setup.slots.count, controls: controls, answered: answered)
    }
}
