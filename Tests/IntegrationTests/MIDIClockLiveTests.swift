import Foundation
import JackPeers
import TestSupport
import XCTest

/// `run --midi-clock` heard by a JACK MIDI capture, as a drum machine would: exactly 24 clocks
/// a beat of the heart (its click's notes on `midi_out` mark the beats), each within one frame
/// of its even place in the beat while the tempo holds and bending once where `/pulse/bpm`
/// changes it; Start when the transport starts from the top, Stop when it stops. A clock due in
/// a period pulsejack wound back (its stop line says how many frames) may sound a period early,
/// and one due in a period it skipped (an xrun) at the start of the next.
final class MIDIClockLiveTests: XCTestCase {
    func testTwentyFourClocksABeatOnTheBeatsAcrossATempoChangeWithStartAndStop() throws {
        try Subprocess.requirePulsejack()
        guard let server = TestServer.join() else { throw XCTSkip(TestServer.missing) }
        let folder = try TemporaryFolder("midi-clock")
        defer { folder.remove() }
        try "voices:\n  - {name: click, kind: click}\n".write(toFile: folder.file("preset.yaml"), atomically: true, encoding: .utf8)
        let name = "pj-clock-\(getpid())", port = OSCEncoder.freePort()
        let run = try LiveRun(["run", "--preset", folder.path, "--name", name, "--osc-port", "\(port)", "--bpm", "120", "--midi-clock"],
                              server: server)
        defer { run.stop() }
        XCTAssertTrue(try Subprocess.waitForPorts(of: name, server: server, port: "clock_out"))
        let clocks = try MidiCapture(name: "pj-clock-device-\(getpid())"), notes = try MidiCapture(name: "pj-clock-notes-\(getpid())")
        let transport = try TransportPeer(name: "pj-clock-transport-\(getpid())")
        defer { clocks.close(); notes.close(); transport.close() }
        try clocks.connect(from: "\(name):clock_out")
        try notes.connect(from: "\(name):midi_out")
        // Earlier tests on this server leave its transport anywhere: back to the top, stopped
        // (a move while stopped is its position alone), so the start is a Start.
        transport.stop()
        transport.locate(0)
        usleep(1_000_000)
        transport.start()
        usleep(1_500_000)
        _ = OSCEncoder.send(OSCEncoder.message("/pulse/bpm", [.float(150)]), port: port)
        usleep(2_000_000)
        transport.stop()
        usleep(500_000)
        let (status, printed) = run.stop()
        XCTAssertEqual(status, 0, printed)
        let events = clocks.received, beats = notes.received.filter(\.isNoteOn).map(\.frame)
        let transportMessages = events.filter { $0.status != 0xF8 }
        XCTAssertEqual(events.filter { $0.status == 0xFA }.count, 1, "one Start: \(transportMessages)")
        XCTAssertEqual(events.filter { $0.status == 0xFC }.count, 1, "one Stop: \(transportMessages)")
        XCTAssertEqual(events.filter { $0.status == 0xFB }.count, 0, "no Continue from the top: \(transportMessages)")
        let ticks = events.filter { $0.status == 0xF8 && $0.size == 1 }.map(\.frame)
        XCTAssertGreaterThan(beats.count, 8)
        let grid = MIDIClockGrid.check(clocks: ticks, beats: beats, steady: [24_000, 19_200], clockGaps: clocks.gaps, beatGaps: notes.gaps,
                                       cycleAfterGap: TestServer.isPipeWire ? 256 : 0, woundBack: LiveGrid.woundBack(in: printed) / 256,
                                       skipped: (LiveGrid.xruns(in: printed).skipped + 255) / 256)
        XCTAssertEqual(grid.problems, [], "the clocks' ear's gaps \(clocks.gaps), the notes' \(notes.gaps); \(printed)")
        XCTAssertEqual(grid.bent, 1, "one beat bends from 120 to 150 BPM: \(zip(beats, beats.dropFirst()).map { $1 - $0 })")
    }
}
