import Foundation
@testable import Sensors
import XCTest

/// The reconnection logic through its seam (BlueZoo cannot take a device away and bring it
/// back): a scripted central whose device connects, goes away, refuses connections, and comes
/// back, stepped at chosen times.
final class SensorConnectorTests: XCTestCase {
    private final class ScriptedCentral: BLEAccess {
        var devices: [BLECentral.Device] = []
        /// What each coming `connect` does: nil succeeds, a text fails with it.
        var connectResults: [String?] = []
        var connects: [String] = []
        var notified: [String] = []
        var written: [(String, [UInt8])] = []
        var discoveries = 0

        func device(at path: String) -> BLECentral.Device? { devices.first { $0.path == path } }
        func startDiscovery(services: [String]) throws(SensorError) { discoveries += 1 }
        func stopDiscovery() {}
        func connect(_ device: BLECentral.Device) throws(SensorError) {
            connects.append(device.path)
            if let failure = connectResults.isEmpty ? nil : connectResults.removeFirst() { throw SensorError(failure) }
            setConnected(device.path, true)
        }
        func setConnected(_ path: String, _ connected: Bool) {
            guard let index = devices.firstIndex(where: { $0.path == path }) else { return }
            devices[index].connected = connected
            devices[index].servicesResolved = connected
        }
        func characteristic(_ uuid: String, of devicePath: String) -> String? {
            switch uuid {
            case GATTNames.heartRateMeasurement: devicePath + "/service0/char0"
            case GATTNames.batteryLevel: devicePath + "/service1/char0"
            default: nil
            }
        }
        func startNotify(_ characteristic: String) throws(SensorError) { notified.append(characteristic) }
        func read(_ characteristic: String) throws(SensorError) -> [UInt8] { [55] }
        func write(_ characteristic: String, _ bytes: [UInt8]) throws(SensorError) { written.append((characteristic, bytes)) }
    }

    private let strap = BLECentral.Device(path: "/org/bluez/hci0/dev_A0_9E_1A_00_00_01", address: "A0:9E:1A:00:00:01", name: "Polar H10 1A2B",
                                          rssi: -60, uuids: [GATTNames.heartRateService], connected: false, servicesResolved: false)

    func testAStrapThatGoesAwayIsTriedAgainAfterOneTwoFourSecondsAndStreamsWhenBack() {
        let central = ScriptedCentral()
        central.devices = [strap]
        let link = SensorLink(index: 0, request: SensorRequest(kind: .heartRate), sampleRate: 48_000, predicts: false)
        var states: [SensorStatus.State] = [], said: [String] = []
        var status = SensorStatus(request: link.request)
        var attempts: [Double] = []
        let start = Date(timeIntervalSinceReferenceDate: 1_000)
        let connector = SensorConnector(links: [link], report: { _, change in
            change(&status)
            if states.last != status.state { states.append(status.state) }
        }, tell: { _, text, _ in said.append(text) }, attempted: { attempts.append($0.timeIntervalSince(start)) })
        func step(at seconds: Double) { connector.step(central, now: start.addingTimeInterval(seconds)) }

        // Discovery for 3 s, then the strap is chosen, connected, subscribed.
        step(at: 0)
        step(at: 2.9)
        XCTAssertEqual(link.state, .searching, "a few seconds of discovery first")
        for time in [3.0, 3.1, 3.2] { step(at: time) }
        XCTAssertEqual(link.state, .connected)
        XCTAssertEqual(central.notified, [strap.path + "/service0/char0"])
        XCTAssertEqual(status.battery, 55)
        XCTAssertEqual(said, ["heart sensor: connected to Polar H10 1A2B (A0:9E:1A:00:00:01), battery 55%"])

        // It goes away; BlueZ refuses three connections, then the strap is back.
        central.setConnected(strap.path, false)
        connector.deviceWentAway(strap.path)
        central.connectResults = ["cannot connect to Polar H10 1A2B: Page Timeout", "cannot connect to Polar H10 1A2B: Page Timeout",
                                  "cannot connect to Polar H10 1A2B: Page Timeout", nil]
        for tenth in 100...300 { step(at: Double(tenth) / 10) }
        XCTAssertEqual(attempts.dropFirst(), [11.0, 13.0, 17.0, 25.0], "1, 2, 4, 8 s after each refusal (one step a tenth of a second)")
        XCTAssertEqual(link.state, .connected)
        XCTAssertEqual(said.dropFirst(), ["heart sensor Polar H10 1A2B (A0:9E:1A:00:00:01) lost; reconnecting",
                                          "cannot connect to Polar H10 1A2B: Page Timeout",
                                          "heart sensor: connected to Polar H10 1A2B (A0:9E:1A:00:00:01), battery 55%"],
                       "a refusal said once while it lasts")
        XCTAssertEqual(states, [.connecting, .connected, .lost, .connecting, .lost, .connecting, .lost, .connecting, .lost, .connecting, .connected])

        // Back-off starts at a second again; a device BlueZ forgot is searched for afresh.
        central.setConnected(strap.path, false)
        connector.deviceWentAway(strap.path)
        central.devices = []
        for tenth in 310...330 { step(at: Double(tenth) / 10) }
        XCTAssertEqual(link.state, .searching)
        XCTAssertEqual(attempts.count, 5, "no connection to a device that is not there")
        central.devices = [strap]
        for tenth in 331...380 { step(at: Double(tenth) / 10) }
        XCTAssertEqual(link.state, .connected)
    }

    /// A device BlueZ keeps connected but never resolves: given up after 15 s, tried again.
    func testServicesNeverResolvedAreGivenUpAndTriedAgain() {
        let central = ScriptedCentral()
        var stuck = strap
        stuck.connected = true
        central.devices = [stuck]
        let link = SensorLink(index: 0, request: try! SensorRequest(parsing: "ble:A0:9E:1A:00:00:01", kinds: [.heartRate]),
                              sampleRate: 48_000, predicts: false)
        var said: [String] = []
        let connector = SensorConnector(links: [link], report: { _, _ in }, tell: { _, text, _ in said.append(text) })
        let start = Date(timeIntervalSinceReferenceDate: 0)
        connector.step(central, now: start)
        XCTAssertEqual(link.state, .connecting, "an address is chosen at once")
        for second in 1...15 { connector.step(central, now: start.addingTimeInterval(Double(second))) }
        XCTAssertEqual(link.state, .connecting)
        connector.step(central, now: start.addingTimeInterval(15.5))
        XCTAssertEqual(link.state, .lost)
        XCTAssertEqual(said, ["Polar H10 1A2B (A0:9E:1A:00:00:01) connected but BlueZ resolved no services in 15 s"])
    }
}
