import Realtime

extension EngineView {
    /// Offline. The view a live picture reads an engine's settings through, for the
    /// engine `setup` makes — the voices', the mode and pattern, and every insert's bypass and
    /// input controls (voices in order, then the master), named as OSC names them. Put it in the
    /// setup (`EngineSetup.view`) for the engine to serve. `answered` rings when a copy is made.
    public convenience init(for setup: EngineSetup, answered: Doorbell) {
        var controls: [InsertControl] = []
        let handle = setup.handle
        let graph = VoiceGraph(slots: setup.slots, masterInserts: setup.masterInserts)
        for index in Array(0..<setup.slots.count) + [-1] {
            guard let chain = graph.insertChain(InsertAddress(chain: Int32(index), stage: 0, port: 0)) else { continue }
            let place = index < 0 ? "master" : "voice/\(handle.voiceNames[index])"
            for (stage, insert) in chain.stages.enumerated() {
                let plugin = insert.published.instances[0]
                controls.append(.init(address: InsertAddress(chain: Int32(index), stage: UInt16(stage), port: InsertAddress.bypass),
                                      place: place, number: stage + 1, plugin: plugin.name, symbol: "bypass", name: "Bypass",
                                      minimum: 0, maximum: 1))
                for port in plugin.ports where port.kind == .control && port.isInput {
                    controls.append(.init(address: InsertAddress(chain: Int32(index), stage: UInt16(stage), port: port.index),
                                          place: place, number: stage + 1, plugin: plugin.name, symbol: port.symbol, name: port.name,
                                          minimum: port.minimum.isNaN ? 0 : port.minimum, maximum: port.maximum.isNaN ? 1 : port.maximum))
                }
            }
        }
        self.init(voiceCount: setup.slots.count, controls: controls, answered: answered)
    }
}
