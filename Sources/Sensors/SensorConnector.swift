import Foundation

/// Each requested sensor's way to a streaming device, one step at a time on the sensor thread:
/// discover (a few seconds, so that every device answering to a name is seen), choose (one line
/// when a name fits several), connect, wait for BlueZ to resolve the services, subscribe and
/// start the stream; when the device goes away, try again after 1, 2, 4 … 30 s.
final class SensorConnector {
    let links: [SensorLink]
    /// A link's status changed.
    private let report: (SensorLink, (inout SensorStatus) -> Void) -> Void
    /// A line to say: (link, text, whether it is a problem).
    private let tell: (SensorLink, String, Bool) -> Void
    /// Each connection tried, when.
    private let attempted: (Double) -> Void

    /// Seconds of discovery before a device is chosen by name, or the strongest of any.
    static let discoverySeconds = 3.0
    /// Seconds a connected device may take to have its services resolved.
    static let resolveSeconds = 15.0

    init(links: [SensorLink], report: @escaping (SensorLink, (inout SensorStatus) -> Void) -> Void,
         tell: @escaping (SensorLink, String, Bool) -> Void, attempted: @escaping (Double) -> Void = { _ in }) {
        self.links = links
        self.report = report
        self.tell = tell
        self.attempted = attempted
    }

    /// The bus said a device went away or disconnected.
    func deviceWentAway(_ path: String) {
        for link in links where link.devicePath == path { link.wentAway = true }
    }

    /// The bus itself is gone: every link starts again (once a bus is back).
    func busLost(at now: Double) {
        for link in links {
            link.lose(at: now)
            link.search()
        }
    }

    /// The longest the sensor thread may sleep on the bus before its next step: nil while every
    /// link streams (only the bus brings it work). Otherwise until the soonest deadline that no
    /// bus message marks — a discovery window's end, a resolve timeout, a retry; a discovery that
    /// failed to start is tried again — at least 0.1 s (a failing step is not tried at once
    /// again) and at most 1 s (a change BlueZ announces late is still seen).
    func sleepSeconds(now: Double) -> Double? {
        guard links.contains(where: { $0.state != .connected || $0.wentAway }) else { return nil }
        var soonest = now + 1
        for link in links {
            var due: Double?
            switch link.state {
            case .searching where !link.discovering: due = now
            case .searching:
                if case .address = link.request.match {} else { due = link.since + Self.discoverySeconds }
            case .connecting: due = link.since + Self.resolveSeconds
            case .connected: due = link.wentAway ? now : nil
            case .lost: due = link.retryAt
            }
            // A deadline already past was met by the step just taken: only the bus can move it on.
            guard let due, due >= now, due < soonest else { continue }
            soonest = due
        }
        // A millisecond past the deadline: a step a hair early would find it not yet due.
        return min(1, max(0.1, soonest - now + 0.001))
    }

    /// Every link's next move.
    func step(_ central: BLEAccess, now: Double) {
        for link in links { step(link, central, now: now) }
    }

    private func step(_ link: SensorLink, _ central: BLEAccess, now: Double) {
        if link.wentAway {
            link.wentAway = false
            if link.state == .connected || link.state == .connecting {
                tell(link, "\(link.request.kind.role) sensor \(link.deviceLabel ?? "?") lost; reconnecting", true)
                lose(link, at: now)
            }
        }
        switch link.state {
        case .searching:
            search(link, central, now: now)
        case .connecting:
            guard let path = link.devicePath, let device = central.device(at: path) else {
                link.search()
                return report(link) { $0.state = .searching }
            }
            if !device.connected {
                attempted(now)
                do { try central.connect(device) } catch {
                    problem(link, error.description)
                    lose(link, at: now)
                }
                return
            }
            guard device.servicesResolved else {
                if now - link.since > Self.resolveSeconds {
                    problem(link, "\(device.label) connected but BlueZ resolved no services in \(Int(Self.resolveSeconds)) s")
                    lose(link, at: now)
                }
                return
            }
            subscribe(link, device, central, now: now)
        case .connected:
            break
        case .lost:
            guard now >= link.retryAt else { return }
            if let path = link.devicePath, central.device(at: path) != nil {
                link.state = .connecting
                link.since = now
                report(link) { $0.state = .connecting }
            } else {
                link.search()
                report(link) { $0.state = .searching }
            }
            step(link, central, now: now)
        }
    }

    /// A searching link: discovery started, and after its few seconds (at once for an address)
    /// the one device that answers to the request chosen; several are a problem naming them.
    private func search(_ link: SensorLink, _ central: BLEAccess, now: Double) {
        if !link.discovering {
            do {
                try central.startDiscovery(services: [link.request.kind.service])
                link.discovering = true
                link.since = now
            } catch {
                return problem(link, error.description)
            }
        }
        // An address names one device; a name or none waits a few seconds of discovery, so
        // that every device answering to it is seen before one is chosen.
        if case .address = link.request.match {} else if now - link.since < Self.discoverySeconds { return }
        let candidates = link.request.candidates(central.devices)
        if candidates.count > 1, link.request.match != .any {
            return problem(link, "\(candidates.count) devices match \(link.request.match): "
                           + candidates.map(\.label).joined(separator: ", ") + "; name one by its address")
        }
        guard let device = candidates.first else { return }
        link.choose(device, at: now)
        report(link) { $0.state = .connecting; $0.device = device.label }
    }

    /// Subscribes to what the sensor's kind streams and starts it; the battery level when offered.
    private func subscribe(_ link: SensorLink, _ device: BLECentral.Device, _ central: BLEAccess, now: Double) {
        let profile = link.descriptor.profile
        var subscribed: [String: String] = [:]
        for uuid in profile.notify + profile.optionalNotify {
            guard let characteristic = central.characteristic(uuid, of: device.path) else {
                guard profile.optionalNotify.contains(uuid) else {
                    problem(link, "\(device.label) offers no \(profile.name) (characteristic \(uuid))")
                    return lose(link, at: now)
                }
                continue
            }
            do { try central.startNotify(characteristic) } catch {
                problem(link, error.description)
                return lose(link, at: now)
            }
            subscribed[characteristic] = uuid
        }
        for command in profile.start {
            guard let characteristic = central.characteristic(command.characteristic, of: device.path) else { continue }
            do { try central.write(characteristic, command.bytes) } catch {
                problem(link, error.description)
                return lose(link, at: now)
            }
        }
        link.characteristics = subscribed
        link.connected()
        central.stopDiscovery()
        var battery: Int?
        if let level = central.characteristic(GATTNames.batteryLevel, of: device.path), let bytes = try? central.read(level), let first = bytes.first {
            battery = Int(first)
        }
        link.problem = nil
        report(link) { $0.state = .connected; $0.battery = battery; $0.problem = nil; $0.device = device.label }
        tell(link, "\(link.request.kind.role) sensor: connected to \(device.label)" + (battery.map { ", battery \($0)%" } ?? ""), false)
    }

    private func lose(_ link: SensorLink, at now: Double) {
        link.lose(at: now)
        report(link) { $0.state = .lost }
    }

    /// A problem said once while it lasts, and shown in the status.
    private func problem(_ link: SensorLink, _ text: String) {
        report(link) { $0.problem = text }
        guard link.problem != text else { return }
        link.problem = text
        tell(link, text, true)
    }
}
