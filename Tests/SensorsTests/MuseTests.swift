import Foundation
import Inputs
import Realtime
import Sensors
import TestSupport
import XCTest

/// A Muse headband over BlueZ: BlueZoo, a fake Muse streaming known EEG (an alpha rhythm of 4 µV
/// over a beta one of 2 µV, then the other way round) on its four sensors once told to; the sensor input starts it, computes the band
/// powers ten times a second, and the mood follows them as it follows Mind Monitor's OSC.
final class MuseTests: XCTestCase {
    func testAMuseStreamsItsEEGAndTheMoodFollowsItsBandPowers() throws {
        let bluez = try PrivateBlueZ()
        defer { bluez.stop() }
        let muse = try bluez.startFake(["--adapter", "hci1", "--name", "Muse-TEST", "muse", "--calm", "4", "--seconds", "9"])
        let ranges = [MoodModel.Range(mood: "calm", bands: [.alpha: .init(atLeast: 0.6)]),
                      MoodModel.Range(mood: "focused", bands: [.beta: .init(atLeast: 0.6)])]
        let moods = MoodWatch(model: MoodModel(window: 1, ranges: ranges))
        var configuration = SensorInput.Configuration()
        configuration.sensors = [try SensorRequest(parsing: "muse:Muse-TEST", kinds: [.muse])]
        configuration.busAddress = bluez.address
        let lines = LockedBox<[String]>([])
        let input = SensorInput(configuration: configuration, clock: WallFrameClock(), hearts: nil, moods: moods,
                                log: { line in lines.withLockedValue { $0.append(line) } }, say: { line in lines.withLockedValue { $0.append(line) } })
        input.start()
        defer { input.stop() }
        XCTAssertTrue(PrivateBlueZ.waitFor(seconds: 15) { moods.mood() == "calm" }, "\(input.status) \(lines.withLockedValue { $0 }) \(muse.stderr)")
        let calm = try XCTUnwrap(input.status.first)
        XCTAssertEqual(calm.state, .connected)
        XCTAssertEqual(calm.device, "Muse-TEST (00:AA:BB:CC:DD:EE)")
        // log10 of the PSD summed over the band: near 0.9 for the 4 µV rhythm, 0.3 for the 2 µV one.
        XCTAssertEqual(calm.bands[.alpha] ?? 0, 0.9, accuracy: 0.1)
        XCTAssertEqual(calm.bands[.beta] ?? 0, 0.3, accuracy: 0.1)
        XCTAssertEqual(calm.relativeBands[.alpha] ?? 0, 0.8, accuracy: 0.05, "four times the beta's power")
        XCTAssertEqual(muse.records.compactMap { $0["command"] as? String }, ["p21", "d"], "the default preset, then the stream")
        XCTAssertTrue(PrivateBlueZ.waitFor(seconds: 10) { moods.mood() == "focused" }, "\(input.status)")
        XCTAssertEqual(input.status.first?.bands[.beta] ?? 0, 0.9, accuracy: 0.1)
        XCTAssertEqual(input.status.first?.malformed, 0)

        // Ten readings a second, each the five band powers, pushed as OSC's are.
        var readings: [EEGBand: Int] = [:]
        while let message = input.ring.consumer.pop() {
            if case .bandPower(let band, _) = message.event { readings[band, default: 0] += 1 }
        }
        XCTAssertEqual(Set(readings.keys), Set(EEGBand.allCases))
        let seconds = Double(muse.notifications.count) * 12 / 256
        XCTAssertEqual(Double(readings[.alpha] ?? 0), (seconds - 1) * 10, accuracy: 6, "\(readings) over \(seconds) s")
    }
}
