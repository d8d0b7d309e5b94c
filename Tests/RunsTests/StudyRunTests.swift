import Foundation
import Inputs
import Realtime
import Runs
import TestSupport
import XCTest

/// The study's live run in process, against the private jackd: heart rates sent over OSC by a
/// peer before and during the clip are the samples saved, in their windows.
final class StudyRunTests: XCTestCase {
    func testALiveStudyRecordsTheHeartRateSentOverOSCBeforeAndDuringTheClip() throws {
        guard TestServer.join() != nil else { throw XCTSkip(TestServer.missing) }
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("pulsejack-study-\(getpid())-\(UUID().uuidString)")
        let clips = folder.appendingPathComponent("clips")
        try FileManager.default.createDirectory(at: clips, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(at: Shipped.presets.appendingPathComponent("sounds/snap.wav"), to: clips.appendingPathComponent("snap.wav"))
        var study = StudyRun(clips: clips.path, out: folder.appendingPathComponent("out").path)
        study.baseline = 1
        study.duration = 1
        study.oscPort = 0
        study.seed = 7
        // The peer sends 72 BPM once the port is known, and 96 BPM half-way through the clip.
        let port = LockedBox<UInt16?>(nil)
        study.say = { line in
            if let range = line.range(of: "127.0.0.1:"), let number = UInt16(line[range.upperBound...].prefix { $0.isNumber }) {
                port.withLockedValue { $0 = number }
            }
        }
        let peer = Thread {
            let started = Date()
            while port.withLockedValue({ $0 }) == nil, Date().timeIntervalSince(started) < 10 { usleep(5_000) }
            guard let number = port.withLockedValue({ $0 }) else { return }
            _ = OSCEncoder.send(OSCEncoder.message("/pulse/bpm", [.float(72)]), port: number)
            usleep(1_500_000)
            _ = OSCEncoder.send(OSCEncoder.message("/pulse/bpm", [.float(96)]), port: number)
        }
        peer.start()
        let outcome = try study.run()
        XCTAssertEqual(outcome.summary.clip, "snap.wav")
        XCTAssertEqual(outcome.samples, 2, "the two heart rates sent")
        XCTAssertEqual(outcome.summary.before.samples, 1)
        XCTAssertEqual(outcome.summary.before.mean, 72)
        XCTAssertEqual(outcome.summary.during.samples, 1)
        XCTAssertEqual(outcome.summary.during.mean, 96)
        let saved = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: outcome.folder).appendingPathComponent("heart-rate.json")))
        let items = try XCTUnwrap((saved as? [String: Any])?["items"] as? [[String: Any]])
        XCTAssertEqual(items.compactMap { $0["value"] as? Double }, [72, 96])
        XCTAssertEqual(try String(contentsOf: URL(fileURLWithPath: outcome.folder).appendingPathComponent("clip.txt"), encoding: .utf8), "snap.wav\n")
    }
}
