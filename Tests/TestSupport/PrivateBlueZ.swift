import Foundation
import Realtime

/// BlueZ's D-Bus API without Bluetooth: a private system bus (`dbus-daemon`) and BlueZoo on it
/// with simulated adapters that see each other (hci0: pulsejack's; hci1: the fake devices'),
/// started for a test and stopped after it. Fake devices (`scripts/ble/fake-sensor.py`, Python
/// with dbus-fast and Bumble in the venv `make ble-peers` makes) register GATT services and
/// advertise on hci1.
public final class PrivateBlueZ {
    /// `DBUS_SYSTEM_BUS_ADDRESS` for whoever should use this bus.
    public let address: String
    public var environment: [String: String] { ["DBUS_SYSTEM_BUS_ADDRESS": address] }
    public let folder: TemporaryFolder
    private let bus: Process
    private var bluezoo: Process?
    private var fakes: [FakeSensor] = []

    public static var venv: URL { Subprocess.repository.appendingPathComponent(".build/venv/bin") }

    public struct Unavailable: Error, CustomStringConvertible {
        public var description: String
    }

    /// A bus with BlueZoo and `adapters` (none: BlueZ with no adapter); `bluez: false`: a bus
    /// where BlueZ does not run.
    public init(adapters: [String] = ["00:11:22:33:44:55", "00:AA:BB:CC:DD:EE"], bluez: Bool = true) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.venv.appendingPathComponent("bluezoo").path) else {
            throw Unavailable(description: "no BlueZoo in \(Self.venv.path): `make ble-peers` makes the BLE peers' venv (make test does)")
        }
        folder = try TemporaryFolder("bluez")
        let socket = folder.file("bus")
        address = "unix:path=" + socket
        // The bus's configuration, as the README's recipe uses it: an allow-all policy.
        let template = try String(contentsOf: Subprocess.repository.appendingPathComponent("scripts/ble/private-bus.conf"), encoding: .utf8)
        try template.replacingOccurrences(of: "@SOCKET@", with: socket).write(toFile: folder.file("bus.conf"), atomically: true, encoding: .utf8)
        bus = Process()
        Subprocess.keepForTheSuite(bus)
        bus.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        bus.arguments = ["--config-file=" + folder.file("bus.conf"), "--nofork"]
        bus.standardOutput = FileHandle.nullDevice
        bus.standardError = FileHandle.nullDevice
        bus.standardInput = FileHandle.nullDevice
        try bus.run()
        guard Self.waitFor(seconds: 5, { FileManager.default.fileExists(atPath: socket) }) else {
            bus.terminate()
            throw Unavailable(description: "dbus-daemon made no socket at \(socket) in 5 s")
        }
        guard bluez else { return }
        let zoo = Process()
        Subprocess.keepForTheSuite(zoo)
        zoo.executableURL = Self.venv.appendingPathComponent("bluezoo")
        zoo.arguments = ["--auto-enable", "--scan-interval", "1"] + adapters.flatMap { ["-a", $0] }
        zoo.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let log = folder.file("bluezoo.log")
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        zoo.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        zoo.standardError = zoo.standardOutput
        zoo.standardInput = FileHandle.nullDevice
        try zoo.run()
        bluezoo = zoo
        // BlueZoo owns org.bluez before it adds its adapters, and says each one it adds.
        let ready = Self.waitFor(seconds: 10) {
            let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            return adapters.isEmpty ? Self.owns(address) : said.contains("Adding adapter[\(adapters.count - 1)]")
        }
        guard ready else {
            stop()
            throw Unavailable(description: "BlueZoo did not start in 10 s: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        }
    }

    deinit { stop() }

    /// The RR intervals (seconds, a line each) of a real heart between `start` and `end` seconds:
    /// scipy's ECG recording, its R-peaks found by scipy (`scripts/ble/ecg-rr.py`), written to
    /// `path` for a fake strap to play; the intervals.
    @discardableResult
    public static func recordedRR(start: Double = 0, end: Double, into path: String? = nil) throws -> [Double] {
        let made = try Subprocess.run("/usr/bin/python3", ["-W", "ignore", Subprocess.repository.appendingPathComponent("scripts/ble/ecg-rr.py").path,
                                                          "--start", "\(start)", "--end", "\(end)"], timeout: 60)
        guard made.status == 0 else { throw Unavailable(description: "scripts/ble/ecg-rr.py failed (python3-scipy?): \(made.stderr)") }
        if let path { try made.stdout.write(toFile: path, atomically: true, encoding: .utf8) }
        return made.stdout.split(separator: "\n").compactMap { Double($0) }
    }

    /// Whether org.bluez has an owner on the bus (asked with dbus-send).
    private static func owns(_ address: String) -> Bool {
        let reply = try? Subprocess.run("/usr/bin/dbus-send", ["--bus=" + address, "--print-reply", "--dest=org.freedesktop.DBus", "/",
                                                               "org.freedesktop.DBus.NameHasOwner", "string:org.bluez"], timeout: 5)
        return reply?.stdout.contains("boolean true") == true
    }

    /// Starts a fake device: `fake-sensor.py ARGUMENTS` on this bus; returns once it has
    /// registered (its "ready" line).
    public func startFake(_ arguments: [String]) throws -> FakeSensor {
        let fake = try FakeSensor(arguments, environment: environment, folder: folder)
        fakes.append(fake)
        return fake
    }

    public func stop() {
        for fake in fakes { fake.stop() }
        fakes = []
        for process in [bluezoo, bus].compactMap({ $0 }) where process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        bluezoo = nil
        folder.remove()
    }

    public static func waitFor(seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(20_000)
        }
        return condition()
    }
}

/// One fake device process and the JSON lines it printed (one per notification it sent).
public final class FakeSensor {
    private let process: Process
    private let output: String
    private let errors: String

    init(_ arguments: [String], environment: [String: String], folder: TemporaryFolder) throws {
        let name = "fake-\(UUID().uuidString.prefix(8))"
        output = folder.file(name + ".out")
        errors = folder.file(name + ".err")
        for file in [output, errors] { _ = FileManager.default.createFile(atPath: file, contents: nil) }
        process = Process()
        Subprocess.keepForTheSuite(process)
        process.executableURL = PrivateBlueZ.venv.appendingPathComponent("python")
        process.arguments = ["-u", Subprocess.repository.appendingPathComponent("scripts/ble/fake-sensor.py").path] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
        process.standardInput = FileHandle.nullDevice
        try process.run()
        guard PrivateBlueZ.waitFor(seconds: 10, { records.contains { $0["ready"] != nil } || !process.isRunning }), process.isRunning else {
            stop()
            throw PrivateBlueZ.Unavailable(description: "the fake device did not register: \(stderr)")
        }
    }

    /// What it printed, a JSON object a line.
    public var records: [[String: Any]] {
        ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// The notifications it sent.
    public var notifications: [[String: Any]] { records.filter { $0["sent"] != nil } }

    public var stderr: String { (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "" }

    /// Waits until it has sent `count` notifications (or `seconds` pass); whether it had.
    @discardableResult
    public func waitForNotifications(_ count: Int, seconds: Double) -> Bool {
        PrivateBlueZ.waitFor(seconds: seconds) { notifications.count >= count }
    }

    public var isRunning: Bool { process.isRunning }

    public func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}
