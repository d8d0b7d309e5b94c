import Foundation
import Presets
import Sensors
import TestSupport
import XCTest

/// A preset's body sensors: `sensors:` for the first performer, `heart:`/`eeg:` on a performer,
/// the command line over the preset, and a spec that does not parse named by its line.
final class SensorPresetTests: XCTestCase {
    private func load(_ yaml: String) throws -> LoadedPreset {
        let folder = try TemporaryFolder("sensor-preset")
        addTeardownBlock { folder.remove() }
        try yaml.write(toFile: folder.file("preset.yaml"), atomically: true, encoding: .utf8)
        return try LoadedPreset.load(path: folder.path)
    }

    func testSensorsAndPerformersSensorsBecomeRequests() throws {
        let preset = try load("""
        name: duo
        sensors: {heart: "ble:Polar H10", eeg: muse}
        performers:
          - alice
          - {name: bob, heart: "ble:A0:9E:1A:00:00:02", eeg: "muse:Muse-S 1A2B"}
        voices:
          - {name: click, kind: click}
        """)
        XCTAssertEqual(preset.performerNames, ["alice", "bob"])
        XCTAssertEqual(try preset.sensorRequests(), [
            SensorRequest(kind: .heartRate, match: .name("Polar H10"), performer: 0), SensorRequest(kind: .muse, performer: 0),
            SensorRequest(kind: .heartRate, match: .address("A0:9E:1A:00:00:02"), performer: 1),
            SensorRequest(kind: .muse, match: .name("Muse-S 1A2B"), performer: 1),
        ])
        XCTAssertEqual(try preset.sensorRequests(heart: "ble").first, SensorRequest(kind: .heartRate), "--heart over the preset's")
        XCTAssertEqual(try preset.sensorRequests(heart: "polar-ecg:Polar H10").first, SensorRequest(kind: .polarECG, match: .name("Polar H10")))
    }

    func testABadSensorIsOneErrorNamingItsLine() {
        XCTAssertThrowsError(try load("""
        name: bad
        performers:
          - alice
          - {name: bob, heart: "bluetooth:bob"}
        voices:
          - {name: click, kind: click}
        """)) { error in
            XCTAssertTrue("\(error)".hasSuffix("preset.yaml:4: performers[1].heart: 'bluetooth:bob' is not a sensor: expected ble[:ADDRESS|NAME] or polar-ecg[:ADDRESS|NAME]"), "\(error)")
        }
        XCTAssertThrowsError(try load("name: bad\nsensors: {eeg: ble}\nvoices:\n  - {name: click, kind: click}\n")) { error in
            XCTAssertTrue("\(error)".hasSuffix("preset.yaml:2: sensors.eeg: 'ble' is not a sensor: expected muse[:ADDRESS|NAME]"), "\(error)")
        }
    }
}
