import Foundation
import Realtime

/// A Bluetooth LE central over BlueZ's D-Bus API: BlueZ's object tree kept current from
/// `GetManagedObjects` and its signals, one adapter, discovery with a service filter, connecting,
/// the GATT characteristics a connected device resolved, notifications (`StartNotify`, then the
/// `Value` in `PropertiesChanged`), reads and writes. The sensor thread's: it owns the bus.
public final class BLECentral {
    /// A device BlueZ knows on our adapter.
    public struct Device: Equatable, Sendable {
        public var path: String
        public var address: String
        public var name: String?
        /// Signal strength when discovered (dBm), when BlueZ has it.
        public var rssi: Int?
        public var uuids: [String]
        public var connected: Bool
        public var servicesResolved: Bool

        /// "Polar H10 A1B2C3D4 (A0:9E:1A:00:00:01)", or the address alone.
        public var label: String { name.map { "\($0) (\(address))" } ?? address }
    }

    public let connection: DBusConnection
    /// The adapter's object path (`/org/bluez/hci0`) and name (`hci0`).
    public private(set) var adapterPath = ""
    public var adapterName: String { String(adapterPath.split(separator: "/").last ?? "") }
    /// path → interface → properties.
    private var objects: [String: [String: [String: DBusValue]]] = [:]
    /// A characteristic's new value (its object path, the bytes).
    public var onValue: ((String, [UInt8]) -> Void)?
    /// A device's object went away or its `Connected` turned false (its path).
    public var onDeviceLost: ((String) -> Void)?

    static let bluez = "org.bluez"
    static let adapterInterface = "org.bluez.Adapter1"
    static let deviceInterface = "org.bluez.Device1"
    static let characteristicInterface = "org.bluez.GattCharacteristic1"
    static let properties = "org.freedesktop.DBus.Properties"
    static let objectManager = "org.freedesktop.DBus.ObjectManager"

    /// Reaches BlueZ (on the system bus, or the bus at `busAddress`) and chooses the adapter:
    /// `adapter` by name (`hci1`) or address, or the first.
    public init(adapter: String?, busAddress: String? = nil) throws(SensorError) {
        do { connection = try DBusConnection(address: busAddress) } catch {
            let address = busAddress ?? ProcessInfo.processInfo.environment["DBUS_SYSTEM_BUS_ADDRESS"] ?? "unix:path=/run/dbus/system_bus_socket"
            throw SensorError("BlueZ is not running (no system D-Bus at \(address): \(error.description))")
        }
        // Subscribed before the first read: what changes meanwhile is dispatched after it.
        wireSignals()
        let managed: [DBusValue]
        do {
            managed = try connection.call(Self.bluez, "/", Self.objectManager, "GetManagedObjects", timeout: 5)
        } catch let failure {
            if failure.name == "org.freedesktop.DBus.Error.ServiceUnknown" || failure.name == "org.freedesktop.DBus.Error.NameHasNoOwner" {
                throw SensorError("BlueZ is not running (no org.bluez on the system D-Bus; start it with: systemctl start bluetooth)")
            }
            throw SensorError("BlueZ did not answer: \(failure)")
        }
        for (path, interfaces) in managed.first?.dictionary ?? [:] {
            objects[path] = Self.interfaces(interfaces)
        }
        let adapters = objects.filter { $0.value[Self.adapterInterface] != nil }.keys.sorted()
        guard !adapters.isEmpty else { throw SensorError("no Bluetooth adapter (BlueZ runs, but has none)") }
        if let adapter {
            let wanted = adapter.lowercased()
            guard let path = adapters.first(where: {
                $0.hasSuffix("/" + wanted) || objects[$0]?[Self.adapterInterface]?["Address"]?.string?.lowercased() == wanted
            }) else {
                throw SensorError("no Bluetooth adapter \(adapter) (adapters: \(adapters.map { String($0.split(separator: "/").last!) }.joined(separator: ", ")))")
            }
            adapterPath = path
        } else {
            adapterPath = adapters[0]
        }
        if objects[adapterPath]?[Self.adapterInterface]?["Powered"]?.bool == false {
            do {
                _ = try connection.call(Self.bluez, adapterPath, Self.properties, "Set",
                                        [.string(Self.adapterInterface), .string("Powered"), .variant(.bool(true))])
            } catch {
                throw SensorError("Bluetooth adapter \(adapterName) is off and could not be powered on (\(error)); try: bluetoothctl power on")
            }
        }
    }

    private func wireSignals() {
        try? connection.subscribe(interface: Self.objectManager, member: "InterfacesAdded") { [weak self] signal in
            guard let self, signal.arguments.count == 2, let path = signal.arguments[0].string, path.hasPrefix("/org/bluez") else { return }
            for (interface, properties) in Self.interfaces(signal.arguments[1]) {
                objects[path, default: [:]][interface] = properties
            }
        }
        try? connection.subscribe(interface: Self.objectManager, member: "InterfacesRemoved") { [weak self] signal in
            guard let self, signal.arguments.count == 2, let path = signal.arguments[0].string, path.hasPrefix("/org/bluez") else { return }
            for interface in signal.arguments[1].strings ?? [] { objects[path]?[interface] = nil }
            if objects[path]?.isEmpty == true { objects[path] = nil }
            if objects[path]?[Self.deviceInterface] == nil, (signal.arguments[1].strings ?? []).contains(Self.deviceInterface) {
                onDeviceLost?(path)
            }
        }
        try? connection.subscribe(interface: Self.properties, member: "PropertiesChanged") { [weak self] signal in
            guard let self, signal.path.hasPrefix("/org/bluez"), signal.arguments.count >= 2,
                  let interface = signal.arguments[0].string, let changed = signal.arguments[1].dictionary else { return }
            for (name, value) in changed { objects[signal.path, default: [:]][interface, default: [:]][name] = value }
            for name in signal.arguments.count > 2 ? signal.arguments[2].strings ?? [] : [] {
                objects[signal.path]?[interface]?[name] = nil
            }
            if interface == Self.characteristicInterface, let value = changed["Value"]?.bytes { onValue?(signal.path, value) }
            if interface == Self.deviceInterface, changed["Connected"]?.bool == false { onDeviceLost?(signal.path) }
        }
    }

    private static func interfaces(_ value: DBusValue) -> [String: [String: DBusValue]] {
        (value.dictionary ?? [:]).mapValues { $0.dictionary ?? [:] }
    }

    /// Handles what BlueZ has sent; when it has sent nothing, sleeps until it does, `bell`
    /// rings, or `seconds` (nil: no limit) have passed.
    public func pump(seconds: Double?, orRung bell: Doorbell) throws(SensorError) {
        do { try connection.dispatch(waitingUpTo: seconds, orRung: bell) } catch { throw SensorError("lost the system D-Bus: \(error)") }
    }

    /// The devices BlueZ knows on our adapter.
    public var devices: [Device] {
        objects.compactMap { path, interfaces -> Device? in
            guard let device = interfaces[Self.deviceInterface], device["Adapter"]?.string == adapterPath else { return nil }
            return Device(path: path, address: device["Address"]?.string ?? "", name: device["Name"]?.string ?? device["Alias"]?.string,
                          rssi: device["RSSI"]?.integer, uuids: (device["UUIDs"]?.strings ?? []).map { $0.lowercased() },
                          connected: device["Connected"]?.bool ?? false, servicesResolved: device["ServicesResolved"]?.bool ?? false)
        }.sorted { $0.path < $1.path }
    }

    public func device(at path: String) -> Device? { devices.first { $0.path == path } }

    /// Starts discovering LE devices that advertise one of `services`.
    public func startDiscovery(services: [String]) throws(SensorError) {
        do {
            _ = try connection.call(Self.bluez, adapterPath, Self.adapterInterface, "SetDiscoveryFilter",
                                    [.options(["UUIDs": .strings(services), "Transport": .string("le")])])
            _ = try connection.call(Self.bluez, adapterPath, Self.adapterInterface, "StartDiscovery")
        } catch let failure where failure.name == "org.bluez.Error.InProgress" {
            return
        } catch {
            throw SensorError("cannot discover on \(adapterName): \(error)")
        }
    }

    public func stopDiscovery() {
        _ = try? connection.call(Self.bluez, adapterPath, Self.adapterInterface, "StopDiscovery")
    }

    /// Connects (BlueZ resolves the services after; see `Device.servicesResolved`).
    public func connect(_ device: Device) throws(SensorError) {
        do {
            _ = try connection.call(Self.bluez, device.path, Self.deviceInterface, "Connect", timeout: 30)
        } catch let failure where failure.name == "org.bluez.Error.AlreadyConnected" {
            return
        } catch {
            throw SensorError("cannot connect to \(device.label): \(error)")
        }
    }

    public func disconnect(_ path: String) {
        _ = try? connection.call(Self.bluez, path, Self.deviceInterface, "Disconnect", timeout: 5)
    }

    /// The object path of the characteristic `uuid` under a device (in any of its services).
    public func characteristic(_ uuid: String, of devicePath: String) -> String? {
        objects.filter { path, interfaces in
            path.hasPrefix(devicePath + "/") && interfaces[Self.characteristicInterface]?["UUID"]?.string?.lowercased() == uuid
        }.keys.sorted().first
    }

    /// Asks for the characteristic's notifications (each new value reaches `onValue`).
    public func startNotify(_ characteristic: String) throws(SensorError) {
        do {
            _ = try connection.call(Self.bluez, characteristic, Self.characteristicInterface, "StartNotify")
        } catch let failure where failure.name == "org.bluez.Error.InProgress" {
            return
        } catch {
            throw SensorError("cannot subscribe to \(characteristic): \(error)")
        }
    }

    public func read(_ characteristic: String) throws(SensorError) -> [UInt8] {
        do {
            let reply = try connection.call(Self.bluez, characteristic, Self.characteristicInterface, "ReadValue", [.options([:])])
            guard let bytes = reply.first?.bytes else { throw SensorError("\(characteristic) read no bytes") }
            return bytes
        } catch let error as SensorError {
            throw error
        } catch {
            throw SensorError("cannot read \(characteristic): \(error)")
        }
    }

    public func write(_ characteristic: String, _ bytes: [UInt8]) throws(SensorError) {
        do {
            _ = try connection.call(Self.bluez, characteristic, Self.characteristicInterface, "WriteValue",
                                    [.bytes(bytes), .options(["type": .string("request")])])
        } catch {
            throw SensorError("cannot write to \(characteristic): \(error)")
        }
    }
}
