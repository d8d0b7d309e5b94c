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
        let start = 1_000.0
        let connector = SensorConnector(links: [link], report: { _, change in
            change(&status)
            if states.last != status.state { states.append(status.state) }
        }, tell: { _, text, _ in said.append(text) }, attempted: { attempts.append($0 - start) })
        func step(at seconds: Double) { connector.step(central, now: start + seconds) }

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
        let start = 0.0
        connector.step(central, now: start)
        XCTAssertEqual(link.state, .connecting, "an address is chosen at once")
        for second in 1...15 { connector.step(central, now: start + Double(second)) }
        XCTAssertEqual(link.state, .connecting)
        connector.step(central, now: start + 15.5)
        XCTAssertEqual(link.state, .lost)
        XCTAssertEqual(said, ["Polar H10 1A2B (A0:9E:1A:00:00:01) connected but BlueZ resolved no services in 15 s"])
    }

    /// The sensor thread sleeps on the bus as long as `sleepSeconds` says. Stepped only when it
    /// wakes — at that deadline, or at once when the bus brings something (here: the scripted
    /// central's changes) — the strap is still chosen when discovery ends, retried 1, 2, 4 and 8 s
    /// after each refusal, and streams again; while it streams, no timer wakes the thread at all.
    func testTheSensorThreadSleepsUntilItsNextDeadlineAndNotAtAllWhileStreaming() {
        let central = ScriptedCentral()
        central.devices = [strap]
        let link = SensorLink(index: 0, request: SensorRequest(kind: .heartRate), sampleRate: 48_000, predicts: false)
        var attempts: [Double] = []
        let start = 1_000.0
        let connector = SensorConnector(links: [link], report: { _, _ in }, tell: { _, _, _ in },
                                        attempted: { attempts.append($0 - start) })
        var now = 0.0, wakes: [Double] = []
        /// Steps at `now`, then sleeps: until the deadline, or no later than the bus's next news.
        func stepAndSleep(busNewsAt news: Double? = nil) -> Double? {
            wakes.append(now)
            let before = (link.state, central.devices.first?.connected)
            connector.step(central, now: start + now)
            // The scripted central changed a device: BlueZ would say so on the bus at once.
            let busNews = (link.state, central.devices.first?.connected) != before ? now : news
            let sleep = connector.sleepSeconds(now: start + now)
            if let sleep, sleep < 0.1 || sleep > 1.001 { XCTFail("a sleep of \(sleep) s outside 0.1…1 s") }
            guard let wake = [sleep.map { now + $0 }, busNews].compactMap({ $0 }).min() else { return nil }
            now = wake
            return sleep
        }

        // Discovery by kind lasts 3 s: its end wakes the thread, which chooses and connects.
        while link.state != .connected, now < 10 { _ = stepAndSleep() }
        XCTAssertEqual(link.state, .connected)
        XCTAssertEqual(wakes.filter { $0 < 3 }.count, 3, "once at the start, then at most a second apart: \(wakes)")
        XCTAssertEqual(attempts.first ?? -1, 3, accuracy: 0.01, "connected when discovery ended: \(wakes)")
        XCTAssertNil(connector.sleepSeconds(now: start + now), "streaming: only the bus wakes the thread")

        // At 10 s it goes away (the bus says so); BlueZ refuses three connections, then it is back.
        now = 10
        central.setConnected(strap.path, false)
        connector.deviceWentAway(strap.path)
        central.connectResults = ["Page Timeout", "Page Timeout", "Page Timeout", nil]
        wakes = []
        while link.state != .connected || attempts.count < 5, now < 40 { _ = stepAndSleep() }
        XCTAssertEqual(link.state, .connected)
        XCTAssertEqual(attempts.dropFirst().count, 4)
        for (attempt, expected) in zip(attempts.dropFirst(), [11.0, 13.0, 17.0, 25.0]) {
            XCTAssertEqual(attempt, expected, accuracy: 0.01, "1, 2, 4, 8 s after each refusal: \(attempts)")
        }
        XCTAssertLessThanOrEqual(wakes.count, 25, "about once a second over the 15 s of waiting, not ten times a second: \(wakes)")
        XCTAssertNil(connector.sleepSeconds(now: start + now))
    }
}
