import Foundation
import Realtime
import Plugins

/// The hosted plugins' guards seen from a control thread: what each found, a benched plugin
/// renewed with its last state and handed back, a refused latency named once.
extension EngineHandle {
    /// One hosted plugin's guard, by its place in the preset ("piano", "piano.insert1", "master.insert2").
    public struct GuardedPlugin {
        public let place: String
        let pluginGuard: PluginGuard
        /// The instances the control thread sees now, and how to publish a fresh set.
        let published: () -> [PluginInstance]
        let publish: (InsertChain.PluginSet) -> Void
    }

    /// Control thread. Every hosted plugin's guard.
    func guardedPlugins() -> [GuardedPlugin] {
        let graph = current
        var guarded: [GuardedPlugin] = []
        for index in -1..<graph.slots.count {
            let name = index < 0 ? "master" : graph.slots[index].name
            if index >= 0, let voice = graph.slots[index].instrumentVoice {
                guarded.append(GuardedPlugin(place: name, pluginGuard: voice.pluginGuard, published: { [voice.published] },
                                             publish: { voice.published = $0.instances[0] }))
            }
            guard let chain = graph.insertChain(InsertAddress(chain: Int32(index), stage: 0, port: 0)) else { continue }
            for (number, stage) in chain.stages.enumerated() {
                guarded.append(GuardedPlugin(place: "\(name).insert\(number + 1)", pluginGuard: stage.pluginGuard,
                                             published: { stage.published.instances }, publish: { stage.published = $0 }))
            }
        }
        return guarded
    }

    /// What one guard shows (status, the page).
    public struct PluginHealth: Sendable, Equatable {
        public var place: String
        /// "playing", or why it is out: "non-finite output" or "overruns".
        public var state: String
        public var nonFiniteSamples, subnormalSamples, overruns, trips, restarts: Int
        /// Its time per period in microseconds (nil before it ran).
        public var medianMicroseconds, p99Microseconds, maxMicroseconds: Double?
    }

    /// Any thread. Each hosted plugin's figures.
    public func pluginHealth() -> [PluginHealth] {
        guardedPlugins().map { guarded in
            let watch = guarded.pluginGuard
            let timing = watch.timing()
            return PluginHealth(place: guarded.place, state: Self.stateName(watch.out.load(ordering: .acquiring)),
                                nonFiniteSamples: watch.nonFiniteSamples.load(ordering: .relaxed),
                                subnormalSamples: watch.subnormalSamples.load(ordering: .relaxed),
                                overruns: watch.overruns.load(ordering: .relaxed), trips: watch.trips.load(ordering: .relaxed),
                                restarts: watch.restarts.load(ordering: .relaxed),
                                medianMicroseconds: timing?.median, p99Microseconds: timing?.p99, maxMicroseconds: timing?.max)
        }
    }

    /// Any thread. The places of the plugins whose run is under way now.
    public func pluginsRunning() -> [String] {
        guardedPlugins().filter { $0.pluginGuard.running.load(ordering: .relaxed) }.map(\.place)
    }

    static func stateName(_ reason: Int) -> String {
        switch PluginGuard.Reason(rawValue: reason) ?? .none {
        case .none: "playing"
        case .nonFinite: "benched: non-finite output"
        case .overruns: "benched: overruns"
        }
    }

    /// Control thread, about every 100 ms live and between periods offline. A plugin its guard
    /// benched is named; one benched for non-finite output is re-instantiated with its last state
    /// and handed to the process thread, which puts it back; a latency a plugin reported and the
    /// host refused is named once. What to log, one line each.
    public func rescuePlugins() -> [String] {
        ProcessThread.assertOutside("renewing plugins")
        var lines: [String] = []
        for guarded in guardedPlugins() {
            let watch = guarded.pluginGuard
            let trips = watch.trips.load(ordering: .relaxed)
            let reason = PluginGuard.Reason(rawValue: watch.out.load(ordering: .acquiring)) ?? .none
            let instances = guarded.published()
            for instance in instances {
                let bits = instance.refusedLatency.load(ordering: .relaxed)
                if bits != 0, pluginNotes.withLockedValue({ $0.insert("latency \(ObjectIdentifier(instance))").inserted }) {
                    let value = Float(bitPattern: bits)
                    lines.append("plugin \(guarded.place) (\(instance.name)) reported a latency of \(value.isNaN ? "NaN" : value.plainText) frames, "
                                 + "not a number of frames from 0 to \(instance.latencyBound) (one second): refused, treated as latency-free")
                }
            }
            guard reason != .none, pluginNotes.withLockedValue({ $0.insert("trip \(guarded.place) \(trips)").inserted }) else {
                if reason == .nonFinite { renew(guarded, instances: instances, into: &lines) }
                continue
            }
            switch reason {
            case .nonFinite:
                lines.append("plugin \(guarded.place) (\(instances[0].name)) output non-finite samples (NaN or Inf) in "
                             + "\(PluginGuard.nonFiniteTrip) of its last 32 periods (\(watch.nonFiniteSamples.load(ordering: .relaxed)) "
                             + "replaced by silence so far): bypassed, restarting it with its last state")
                renew(guarded, instances: instances, into: &lines)
            case .overruns:
                let budget = Double(pluginSharePercent.load(ordering: .relaxed))
                lines.append("plugin \(guarded.place) (\(instances[0].name)) took more than \(budget.plainText) % of the period in "
                             + "\(PluginGuard.overrunTrip) of \(PluginGuard.overrunWindow) periods (the longest "
                             + "\((Double(watch.maxNanoseconds.load(ordering: .relaxed)) / 1000).plainText) µs): bypassed so the other voices "
                             + "play on; its bypass set to 0 puts it back")
            case .none:
                break
            }
        }
        return lines
    }

    /// Control thread. A benched plugin's fresh instances, offered once (until taken).
    private func renew(_ guarded: GuardedPlugin, instances: [PluginInstance], into lines: inout [String]) {
        let watch = guarded.pluginGuard
        guard !watch.offerPending else { return }
        let restarts = watch.restarts.load(ordering: .relaxed)
        guard pluginNotes.withLockedValue({ $0.insert("renew \(guarded.place) \(watch.trips.load(ordering: .relaxed))").inserted }) else { return }
        let folder = NSTemporaryDirectory() + "pulsejack-\(getpid())-renewed/\(guarded.place)/\(restarts + 1)"
        do {
            let fresh = try instances.enumerated().map { number, instance in try instance.renewed(through: "\(folder)/\(number + 1)") }
            let set = InsertChain.PluginSet(fresh)
            guard watch.offer(set) else { return }
            guarded.publish(set)
        } catch {
            lines.append("plugin \(guarded.place): could not restart it (\(error)); it stays bypassed")
        }
    }
}
