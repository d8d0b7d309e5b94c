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

    /// One hosted plugin as the control thread sees it: its place in the preset — "piano" (an lv2
    /// voice), "piano.insert1", "master.insert2" — its guard's watch, the instances it built last (two for
    /// a mono insert), and how to publish a fresh set.
    struct HostedPlugin {
        let place: String
        /// An lv2 voice's instrument (silent when out), not an insert (dry when out).
        let isInstrument: Bool
        let watch: PluginWatch
        let published: () -> [PluginInstance]
        let publish: (InsertChain.PluginSet) -> Void
    }

    /// Control thread. Every hosted plugin, in preset order.
    func hosted() -> [HostedPlugin] {
        var hosted: [HostedPlugin] = []
        for index in -1..<slots.count {
            let name = index < 0 ? "master" : slots[index].name
            if index >= 0, let voice = slots[index].instrumentVoice {
                hosted.append(HostedPlugin(place: name, isInstrument: true, watch: voice.pluginGuard.watch, published: { [voice.published] },
                                           publish: { voice.published = $0.instances[0] }))
            }
            guard let chain = insertChain(InsertAddress(chain: Int32(index), stage: 0, port: 0)) else { continue }
            for (number, stage) in chain.stages.enumerated() {
                hosted.append(HostedPlugin(place: "\(name).insert\(number + 1)", isInstrument: false, watch: stage.pluginGuard.watch,
                                           published: { stage.published.instances }, publish: { stage.published = $0 }))
            }
        }
        return hosted
    }

    /// Control thread. Whether a hosted plugin runs in a child process.
    var hostsPluginProcesses: Bool {
        hosted().contains { hosted in hosted.published().contains { $0.isolation != nil } }
    }

    /// Control thread. Whether a hosted plugin takes the host's time (`time:Position`).
    var pluginsTakingTime: Bool {
        hosted().contains { hosted in hosted.published().contains(where: \.takesTime) }
    }

    /// Control thread, before the engine runs: every insert chain and hosted instrument reads
    /// the plugins' time from `time`.
    func tell(_ time: PluginTime) {
        masterInserts?.time = time
        for slot in slots {
            slot.inserts?.time = time
            slot.instrumentVoice?.time = time
        }
    }

    /// Control thread. Every hosted plugin by its place with its instances.
    func hostedPlugins() -> [(place: String, instances: [PluginInstance])] {
        hosted().map { ($0.place, $0.published()) }
    }
}

extension VoiceGraph {
    /// One control of an insert, as whatever lists them sees it (the OSC routes, the page, the
    /// modulation targets): its address, its chain (a voice index, −1 the master), its insert's
    /// number from 1, the stage, and its port (nil: the bypass).
    struct InsertControlPlace {
        let address: InsertAddress
        let chain: Int
        let number: Int
        let stage: InsertChain.Stage
        let port: PluginPort?
    }

    /// Control thread. Every insert's bypass, then its input controls (the instances it built
    /// last), chain by chain in `order` (voice indices, −1 the master).
    func insertControls(chains order: [Int]) -> [InsertControlPlace] {
        var places: [InsertControlPlace] = []
        for index in order {
            guard let chain = insertChain(InsertAddress(chain: Int32(index), stage: 0, port: 0)) else { continue }
            for (number, stage) in chain.stages.enumerated() {
                let at = { (port: UInt32) in InsertAddress(chain: Int32(index), stage: UInt16(number), port: port) }
                places.append(InsertControlPlace(address: at(InsertAddress.bypass), chain: index, number: number + 1, stage: stage, port: nil))
                for port in stage.published.instances[0].ports where port.kind == .control && port.isInput {
                    places.append(InsertControlPlace(address: at(port.index), chain: index, number: number + 1, stage: stage, port: port))
                }
            }
        }
        return places
    }
}
