import Foundation
import Inputs
import Realtime
import Sensors
import TestSupport
import XCTest

/// What goes wrong with Bluetooth, each said in one line naming what is missing: no BlueZ, no
/// adapter, a name several devices answer to; and a device that goes away, reconnected to with
/// back-off.
final class SensorProblemsTests: XCTestCase {
    private var bluez: PrivateBlueZ?

    override func tearDown() {
        bluez?.stop()
    }

    func testABusWithoutBlueZSaysBlueZIsNotRunning() throws {
        let bus = try PrivateBlueZ(bluez: false)
        bluez = bus
        XCTAssertThrowsError(try BLECentral(adapter: nil, busAddress: bus.address)) { error in
            XCTAssertTrue("\(error)".hasPrefix("BlueZ is not running (no org.bluez on the system D-Bus"), "\(error)")
        }
        XCTAssertThrowsError(try BLECentral(adapter: nil, busAddress: "unix:path=/nonexistent/bus")) { error in
            XCTAssertEqual("\(error)", "BlueZ is not running (no system D-Bus at unix:path=/nonexistent/bus: No such file or directory)")
        }
    }

    func testBlueZWithoutAnAdapterSaysSoAndAnUnknownAdapterListsTheOthers() throws {
        let empty = try PrivateBlueZ(adapters: [])
        XCTAssertThrowsError(try BLECentral(adapter: nil, busAddress: empty.address)) { error in
            XCTAssertEqual("\(error)", "no Bluetooth adapter (BlueZ runs, but has none)")
        }
        empty.stop()
        let two = try PrivateBlueZ()
        bluez = two
        XCTAssertThrowsError(try BLECentral(adapter: "hci5", busAddress: two.address)) { error in
            XCTAssertEqual("\(error)", "no Bluetooth adapter hci5 (adapters: hci0, hci1)")
        }
        XCTAssertEqual(try BLECentral(adapter: "00:aa:bb:cc:dd:ee", busAddress: two.address).adapterName, "hci1")
    }

    /// Two straps whose names both hold "Strap": asked for "Strap", the input says one line
    /// listing both and connects to neither; asked for one by its full name, it connects.
    func testANameSeveralDevicesAnswerToListsThem() throws {
        let bus = try PrivateBlueZ(adapters: ["00:11:22:33:44:55", "00:AA:BB:CC:DD:01", "00:AA:BB:CC:DD:02"])
        bluez = bus
        let rr = try TemporaryFolder("problems")
        defer { rr.remove() }
        try "0.8\n".write(toFile: rr.file("rr.txt"), atomically: true, encoding: .utf8)
        _ = try bus.startFake(["--adapter", "hci1", "--name", "Strap Alice", "strap", "--rr", rr.file("rr.txt")])
        _ = try bus.startFake(["--adapter", "hci2", "--name", "Strap Bob", "strap", "--rr", rr.file("rr.txt")])
        let lines = LockedBox<[String]>([])
        func input(_ spec: String) throws -> SensorInput {
            var configuration = SensorInput.Configuration()
            configuration.sensors = [try SensorRequest(parsing: spec, kinds: [.heartRate])]
            configuration.busAddress = bus.address
            configuration.adapter = "hci0"
            return SensorInput(configuration: configuration, clock: WallFrameClock(), hearts: nil,
                               log: { line in lines.withLockedValue { $0.append(line) } }, say: { line in lines.withLockedValue { $0.append(line) } })
        }
        let ambiguous = try input("ble:strap")
        ambiguous.start()
        XCTAssertTrue(PrivateBlueZ.waitFor(seconds: 10) { ambiguous.status.first?.problem?.hasPrefix("2 devices match") == true },
                      "\(ambiguous.status)")
        usleep(1_500_000)
        ambiguous.stop()
        let said = lines.withLockedValue { $0 }
        XCTAssertEqual(said, ["2 devices match 'strap': Strap Alice (00:AA:BB:CC:DD:01), Strap Bob (00:AA:BB:CC:DD:02); name one by its address"],
                       "said once, while it lasts")
        XCTAssertEqual(ambiguous.status.first?.state, .searching)

        let named = try input("ble:Strap Bob")
        named.start()
        defer { named.stop() }
        XCTAssertTrue(PrivateBlueZ.waitFor(seconds: 10) { named.status.first?.state == .connected }, "\(named.status)")
        XCTAssertEqual(named.status.first?.device, "Strap Bob (00:AA:BB:CC:DD:02)")
    }

    /// A strap that disconnects (BlueZ says `Connected` false): the input says it is lost, the
    /// status says `lost`, and it connects again and the notifications come on. (BlueZoo refuses
    /// the first reconnection of a device it disconnected and then reports it connected; the
    /// back-off itself is tested through its seam, `SensorConnectorTests`.)
    func testADisconnectedStrapIsSaidLostAndReconnected() throws {
        let bus = try PrivateBlueZ()
        bluez = bus
        let rr = try TemporaryFolder("lost")
        defer { rr.remove() }
        try String(repeating: "0.8\n", count: 60).write(toFile: rr.file("rr.txt"), atomically: true, encoding: .utf8)
        let strap = try bus.startFake(["--adapter", "hci1", "--name", "Fickle Strap", "strap", "--rr", rr.file("rr.txt")])
        let lines = LockedBox<[String]>([])
        var configuration = SensorInput.Configuration()
        configuration.sensors = [SensorRequest(kind: .heartRate, match: .address("00:AA:BB:CC:DD:EE"))]
        configuration.busAddress = bus.address
        let input = SensorInput(configuration: configuration, clock: WallFrameClock(), hearts: nil,
                                log: { line in lines.withLockedValue { $0.append(line) } },
                                say: { line in lines.withLockedValue { $0.append(line) } })
        input.start()
        defer { input.stop() }
        XCTAssertTrue(strap.waitForNotifications(2, seconds: 15), strap.stderr)
        XCTAssertTrue(PrivateBlueZ.waitFor(seconds: 3) { input.status.first?.notifications ?? 0 >= 1 })
        let dropped = try Subprocess.run("/usr/bin/dbus-send", ["--bus=" + bus.address, "--print-reply", "--dest=org.bluez",
                                                                "/org/bluez/hci0/dev_00_AA_BB_CC_DD_EE", "org.bluez.Device1.Disconnect"], timeout: 10)
        XCTAssertEqual(dropped.status, 0, dropped.stderr)
        XCTAssertTrue(PrivateBlueZ.waitFor(seconds: 3) { input.status.first?.state == .lost }, "\(input.status)")
        XCTAssertTrue(PrivateBlueZ.waitFor(seconds: 10) { input.status.first?.state == .connected }, "\(input.status)")
        let back = input.status.first?.notifications ?? 0
        XCTAssertTrue(PrivateBlueZ.waitFor(seconds: 4) { input.status.first?.notifications ?? 0 > back }, "notifications come on")
        let said = lines.withLockedValue { $0 }
        XCTAssertEqual(said.first, "pulsejack: heart sensor: connected to Fickle Strap (00:AA:BB:CC:DD:EE), battery 87%")
        XCTAssertEqual(said.dropFirst().first, "heart sensor Fickle Strap (00:AA:BB:CC:DD:EE) lost; reconnecting")
        XCTAssertEqual(said.last, "pulsejack: heart sensor: connected to Fickle Strap (00:AA:BB:CC:DD:EE), battery 87%")
    }
}
