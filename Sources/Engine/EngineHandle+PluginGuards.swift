import Foundation
import Realtime
import Plugins

/// The hosted plugins' guards seen from a control thread: what each found, a benched plugin
/// renewed with its last state and handed back, a refused latency named once.
extension EngineHandle {
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
        current.hosted().map { hosted in
            let watch = hosted.watch
            let timing = watch.timing()
            let restarting = hosted.published().contains { $0.isolation.map { !$0.isPlaying } ?? false }
            return PluginHealth(place: hosted.place,
                                state: restarting ? "restarting its process" : Self.stateName(watch.out.load(ordering: .acquiring)),
                                nonFiniteSamples: watch.nonFiniteSamples.load(ordering: .relaxed),
                                subnormalSamples: watch.subnormalSamples.load(ordering: .relaxed),
                                overruns: watch.overruns.load(ordering: .relaxed), trips: watch.trips.load(ordering: .relaxed),
                                restarts: watch.restarts.load(ordering: .relaxed),
                                medianMicroseconds: timing?.median, p99Microseconds: timing?.p99, maxMicroseconds: timing?.max)
        }
    }

    /// Any thread. The places of the plugins whose run is under way now.
    public func pluginsRunning() -> [String] {
        current.hosted().filter { $0.watch.running.load(ordering: .relaxed) }.map(\.place)
    }

    static func stateName(_ reason: Int) -> String {
        switch PluginGuard.Reason(rawValue: reason) ?? .none {
        case .none: "playing"
        case .nonFinite: "benched: non-finite output"
        case .overruns: "benched: overruns"
        }
    }

    /// Control thread. Whether a hosted plugin runs in a child process, which `rescuePlugins`
    /// supervises (a hung or dead child is found and replaced there).
    public var supervisesPluginProcesses: Bool { current.hostsPluginProcesses }

    /// Control thread: live, at each tick (the process thread rings for a bench; every 100 ms
    /// while a plugin runs isolated), and between periods offline. A plugin its guard
    /// benched is named; one benched for non-finite output is re-instantiated with its last state
    /// and handed to the process thread, which puts it back; an isolated plugin whose process
    /// crashed, hung or missed its deadline is named and its process started again; a latency a
    /// plugin reported and the host refused is named once. What to log, one line each.
    public func rescuePlugins() -> [String] {
        ProcessThread.assertOutside("renewing plugins")
        var lines: [String] = []
        for hosted in current.hosted() {
            let watch = hosted.watch
            let instances = hosted.published()
            for instance in instances {
                guard let isolation = instance.isolation else { continue }
                let before = isolation.restarts.load(ordering: .relaxed)
                for turn in isolation.supervise() {
                    switch turn {
                    case .failed(let why):
                        lines.append("plugin \(hosted.place) (\(instance.name)), isolated: \(why); "
                                     + (hosted.isInstrument ? "the voice is silent" : "it passes its input dry")
                                     + " until its process is back with its last state")
                    case .back(let milliseconds):
                        lines.append("plugin \(hosted.place) (\(instance.name)) is back in a new process \(milliseconds) ms after "
                                     + "it failed (restart \(isolation.restarts.load(ordering: .relaxed)))")
                    }
                }
                watch.restarts.wrappingIncrement(by: isolation.restarts.load(ordering: .relaxed) - before, ordering: .relaxed)
            }
            for instance in instances where !instance.refusedLatencySaid {
                let bits = instance.refusedLatency.load(ordering: .relaxed)
                guard bits != 0 else { continue }
                instance.refusedLatencySaid = true
                let value = Float(bitPattern: bits)
                lines.append("plugin \(hosted.place) (\(instance.name)) reported a latency of \(value.isNaN ? "NaN" : value.plainText) frames, "
                             + "not a number of frames from 0 to \(instance.latencyBound) (one second): refused, treated as latency-free")
            }
            let reason = PluginGuard.Reason(rawValue: watch.out.load(ordering: .acquiring)) ?? .none
            guard reason != .none else { continue }
            // Each trip is said once, and a plugin benched for non-finite output is renewed once per trip.
            let trip = "\(hosted.place) \(watch.trips.load(ordering: .relaxed))"
            if pluginNotes.withLockedValue({ $0.insert(trip).inserted }) {
                switch reason {
                case .nonFinite:
                    lines.append("plugin \(hosted.place) (\(instances[0].name)) output non-finite samples (NaN or Inf) in "
                                 + "\(PluginGuard.nonFiniteTrip) of its last 32 periods (\(watch.nonFiniteSamples.load(ordering: .relaxed)) "
                                 + "replaced by silence so far): bypassed, restarting it with its last state")
                    renew(hosted, instances: instances, into: &lines)
                case .overruns:
                    let budget = Double(pluginSharePercent.load(ordering: .relaxed))
                    lines.append("plugin \(hosted.place) (\(instances[0].name)) took more than \(budget.plainText) % of the period in "
                                 + "\(PluginGuard.overrunTrip) of \(PluginGuard.overrunWindow) periods (the longest "
                                 + "\((Double(watch.maxNanoseconds.load(ordering: .relaxed)) / 1000).plainText) µs): bypassed so the other voices "
                                 + "play on; its bypass set to 0 puts it back")
                case .none:
                    break
                }
            }
        }
        return lines
    }

    /// Control thread. A benched plugin's fresh instances with its last state, offered to the
    /// process thread (which takes them at its next run).
    private func renew(_ hosted: VoiceGraph.HostedPlugin, instances: [PluginInstance], into lines: inout [String]) {
        let watch = hosted.watch
        let folder = NSTemporaryDirectory() + "pulsejack-\(getpid())-renewed/\(hosted.place)/\(watch.trips.load(ordering: .relaxed))"
        do {
            let fresh = try instances.enumerated().map { number, instance in try instance.renewed(through: "\(folder)/\(number + 1)") }
            let set = InsertChain.PluginSet(fresh)
            guard watch.offer(set) else { return }
            hosted.publish(set)
        } catch {
            lines.append("plugin \(hosted.place): could not restart it (\(error)); it stays bypassed")
        }
    }
}
