import Foundation
import Presets
import Runs
import Sensors
import LSL
import TestSupport
import XCTest

/// A preset's body sensors as a live run resolves them (`BodySources`): `sensors:` for the first
/// performer, `heart:`/`eeg:` on a performer, the command line over the preset, and a spec that
/// does not parse named by its line.
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
        XCTAssertEqual(try BodySources(preset).sensors, [
            SensorRequest(kind: .heartRate, match: .name("Polar H10"), performer: 0), SensorRequest(kind: .muse, performer: 0),
            SensorRequest(kind: .heartRate, match: .address("A0:9E:1A:00:00:02"), performer: 1),
            SensorRequest(kind: .muse, match: .name("Muse-S 1A2B"), performer: 1),
        ])
        XCTAssertEqual(try BodySources(preset, heart: "ble").sensors.first, SensorRequest(kind: .heartRate), "--heart over the preset's")
        XCTAssertEqual(try BodySources(preset, heart: "polar-ecg:Polar H10").sensors.first, SensorRequest(kind: .polarECG, match: .name("Polar H10")))
    }

    func testABadSensorIsOneErrorNamingItsLine() {
        XCTAssertThrowsError(try BodySources(load("""
        name: bad
        performers:
          - alice
          - {name: bob, heart: "bluetooth:bob"}
        voices:
          - {name: click, kind: click}
        """))) { error in
            XCTAssertTrue("\(error)".hasSuffix("preset.yaml:4: performers[1].heart: 'bluetooth:bob' is not a sensor: expected ble[:ADDRESS|NAME] or polar-ecg[:ADDRESS|NAME]"), "\(error)")
        }
        XCTAssertThrowsError(try BodySources(load("name: bad\nsensors: {eeg: ble}\nvoices:\n  - {name: click, kind: click}\n"))) { error in
            XCTAssertTrue("\(error)".hasSuffix("preset.yaml:2: sensors.eeg: 'ble' is not a sensor: expected muse[:ADDRESS|NAME]"), "\(error)")
        }
    }

    /// `lsl:` where a sensor is named: an LSL stream, the first performer's from `sensors:` (or
    /// the options), each other performer's own; a spec that does not parse is named by its line,
    /// and so is an `lsl.` modulation source that is not lsl.STREAM.CHANNEL.
    func testLSLStreamsAreNamedWhereSensorsAre() throws {
        let preset = try load("""
        name: lab
        sensors: {heart: "lsl:type=ECG", eeg: "lsl:Muse"}
        performers:
          - alice
          - {name: bob, heart: "lsl:name=bob-hrv,type=RR"}
        voices:
          - {name: click, kind: click}
        modulations:
          - {from: lsl.Muse.AF7, to: voice.click.gain}
        """)
        XCTAssertEqual(try BodySources(preset).sensors, [], "no Bluetooth sensor")
        XCTAssertEqual(try BodySources(preset).streams, [
            try LSLStreamQuery(parsing: "lsl:type=ECG", role: .heart), LSLStreamQuery(role: .eeg, name: "Muse"),
            try LSLStreamQuery(parsing: "lsl:name=bob-hrv,type=RR", role: .heart, performer: 1),
        ])
        XCTAssertEqual(try BodySources(preset, heart: "lsl:Polar H10").streams.first, LSLStreamQuery(role: .heart, name: "Polar H10"), "--heart over the preset's")
        XCTAssertEqual(try BodySources(preset, heart: "ble").streams.count, 2, "a Bluetooth heart over the preset's LSL one")
        XCTAssertEqual(ModulationTable.signalNames(preset.preset), ["lsl.Muse.AF7"])
        XCTAssertThrowsError(try BodySources(load("name: bad\nsensors: {heart: \"lsl:colour=red\"}\nvoices:\n  - {name: click, kind: click}\n"))) { error in
            XCTAssertTrue("\(error)".contains("preset.yaml:2: sensors.heart: 'lsl:colour=red': 'colour' is not one of name, type, source_id, hostname, channel"), "\(error)")
        }
        XCTAssertThrowsError(try load("name: bad\nvoices:\n  - {name: click, kind: click}\nmodulations:\n  - {from: lsl.Muse, to: voice.click.gain}\n")) { error in
            XCTAssertTrue("\(error)".contains("preset.yaml:5") && "\(error)".contains("lsl.STREAM.CHANNEL"), "\(error)")
        }
    }
}
