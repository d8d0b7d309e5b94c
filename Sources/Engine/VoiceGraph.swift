import Realtime
import Plugins

/// An engine's voices and the master's inserts: what a plugin or insert address names.
struct VoiceGraph {
    let slots: ContiguousArray<VoiceSlot>
    let masterInserts: InsertChain?

    /// Real-time safe. The chain an insert address names.
    @inline(__always)
    func insertChain(_ address: InsertAddress) -> InsertChain? {
        if address.chain == InsertAddress.master { return masterInserts }
        return address.chain >= 0 && Int(address.chain) < slots.count ? slots[Int(address.chain)].inserts : nil
    }

    /// Control thread. Every hosted plugin by its place in the preset — "piano" (an lv2 voice),
    /// "piano.insert1", "master.insert2" — with its instances (two for a mono insert).
    func hostedPlugins() -> [(place: String, instances: [PluginInstance])] {
        var hosted: [(place: String, instances: [PluginInstance])] = []
        for index in -1..<slots.count {
            let name = index < 0 ? "master" : slots[index].name
            if index >= 0, let instrument = slots[index].instrumentVoice { hosted.append((name, [instrument.published])) }
            guard let chain = insertChain(InsertAddress(chain: Int32(index), stage: 0, port: 0)) else { continue }
            for (stage, insert) in chain.stages.enumerated() { hosted.append(("\(name).insert\(stage + 1)", insert.published.instances)) }
        }
        return hosted
    }
}
