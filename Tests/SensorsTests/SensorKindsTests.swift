import Inputs
import Realtime
@testable import Sensors
import XCTest

/// The sensor kinds are one table: each kind described once, read by the request parser, the
/// scan, the status and each link's decoder.
final class SensorKindsTests: XCTestCase {
    /// What a decoder hands on, kept for the test.
    private final class Recorder: SensorSink {
        var messages: [ControlMessage] = []
        var status = SensorStatus(request: SensorRequest(kind: .heartRate))
        var heard = 0
        var bands: [EEGBand: Double] = [:]
        var problems: [String] = []
        func push(_ messages: [ControlMessage]) { self.messages += messages }
        func update(_ change: (inout SensorStatus) -> Void) { change(&status) }
        func heardHeart() { heard += 1 }
        func observe(_ band: EEGBand, _ value: Double) { bands[band] = value }
        func problem(_ text: String) { problems.append(text) }
        var deviceLabel: String? { "Test Device" }
    }

    private let setup = SensorDecoderSetup(sampleRate: 48_000, predictsBeats: false, ecgDelay: 1)

    func testEachKindIsDescribedOnceAndTheReadersReadTheTable() throws {
        let kinds = SensorKinds.all.map(\.kind)
        XCTAssertEqual(kinds.map(\.rawValue), ["ble", "polar-ecg", "muse"])
        XCTAssertEqual(Set(SensorKinds.all.map(\.service)).count, kinds.count, "a service a kind")
        XCTAssertEqual(SensorScan.services, SensorKinds.all.map(\.service), "the scan looks for every kind")
        XCTAssertEqual(SensorKinds.kinds(.heart), [.heartRate, .polarECG])
        XCTAssertEqual(SensorKinds.kinds(.eeg), [.muse])
        for descriptor in SensorKinds.all {
            XCTAssertEqual(SensorKinds.descriptor(descriptor.kind).kind, descriptor.kind)
            let request = try SensorRequest(parsing: descriptor.kind.rawValue + ":A0:9E:1A:00:00:01", kinds: SensorKinds.kinds(descriptor.role))
            XCTAssertEqual(request, SensorRequest(kind: descriptor.kind, match: .address("A0:9E:1A:00:00:01")))
            XCTAssertEqual(GATTNames.offers([descriptor.service.uppercased()]), [descriptor.summary], "what a device offering it offers")
            XCTAssertFalse(descriptor.profile.notify.isEmpty, "\(descriptor.kind.rawValue) streams something")
        }
        XCTAssertThrowsError(try SensorRequest(parsing: "muse", kinds: SensorKinds.kinds(.heart))) { error in
            XCTAssertEqual("\(error)", "'muse' is not a sensor: expected ble[:ADDRESS|NAME] or polar-ecg[:ADDRESS|NAME]")
        }
        XCTAssertEqual(SensorKinds.all.filter(\.givesBeats).map(\.kind), [.polarECG], "only an ECG's beats are the heart itself")
    }

    func testAStrapsMeasurementBecomesItsTempoAndStatus() throws {
        let decoder = HeartRateSensor().decoder(setup)
        let sink = Recorder()
        // Flags: RR present, contact supported and detected; 72 BPM; one RR interval of 1 s (1024/1024).
        try decoder.decode([0x16, 72, 0x00, 0x04], characteristic: GATTNames.heartRateMeasurement, at: 4800, performer: 1, into: sink)
        XCTAssertEqual(sink.status.bpm, 72)
        XCTAssertEqual(sink.status.contact, true)
        XCTAssertEqual(sink.status.notifications, 1)
        XCTAssertEqual(sink.heard, 1)
        XCTAssertEqual(sink.messages.map(\.performer), [1, 1])
        guard case .tempo(let bpm) = sink.messages.last?.event else { return XCTFail("\(sink.messages)") }
        XCTAssertEqual(bpm, 60, accuracy: 1e-9, "the last interval's tempo: 60 / 1 s")
        XCTAssertThrowsError(try decoder.decode([0x01], characteristic: GATTNames.heartRateMeasurement, at: 0, performer: 0, into: sink))
        // Another characteristic is not its own: nothing happens.
        try decoder.decode([1, 2, 3], characteristic: GATTNames.batteryLevel, at: 0, performer: 0, into: sink)
        XCTAssertEqual(sink.status.notifications, 1)
        XCTAssertEqual(HeartRateSensor().statusFields(sink.status).map(\.0), ["_contact"])
    }

    func testAnH10sRefusalIsSaidAndItsHeartRateIsStatusOnly() throws {
        let decoder = PolarECGSensor().decoder(setup)
        let sink = Recorder()
        try decoder.decode([0xF0, 0x02, 0x00, 0x00], characteristic: GATTNames.polarControlPoint, at: 0, performer: 0, into: sink)
        XCTAssertEqual(sink.problems, [], "a start that succeeded says nothing")
        try decoder.decode([0xF0, 0x02, 0x00, 0x03], characteristic: GATTNames.polarControlPoint, at: 0, performer: 0, into: sink)
        XCTAssertEqual(sink.problems, ["Test Device refused to start its ECG: not supported"])
        try decoder.decode([0x16, 64, 0x00, 0x04], characteristic: GATTNames.heartRateMeasurement, at: 0, performer: 0, into: sink)
        XCTAssertEqual(sink.status.bpm, 64)
        XCTAssertEqual(sink.messages, [], "beside the ECG, the heart rate drives nothing")
        XCTAssertEqual(sink.heard, 0)
        XCTAssertEqual(PolarECGSensor().statusFields(sink.status).map(\.0), ["_contact", "_ecg_beats", "_ecg_late"])
        XCTAssertThrowsError(try decoder.decode([0x00], characteristic: GATTNames.polarData, at: 0, performer: 0, into: sink))
    }

    func testAMusesGarbageIsRefusedAndItsFieldsAreItsBands() {
        let decoder = MuseSensor().decoder(setup)
        let sink = Recorder()
        XCTAssertThrowsError(try decoder.decode([0x00, 0x01], characteristic: GATTNames.museEEG[0], at: 0, performer: 0, into: sink))
        XCTAssertEqual(MuseSensor().statusFields(sink.status).map(\.0), EEGBand.allCases.map { "_" + $0.name + "_relative" })
    }
}
