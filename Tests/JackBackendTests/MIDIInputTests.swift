import Inputs
import Foundation
import JackPeers
import TestSupport
import XCTest
import JackBackend
import Presets

/// JACK MIDI in against a real jackd: a pad client runs before pulsejack in the graph.
final class MIDIInputTests: XCTestCase {
    func testANoteAtOffsetKSoundsAtOffsetKOfTheSamePeriodAndCCSetsTheGain() throws {
        guard TestServer.join() != nil else { throw XCTSkip(TestServer.missing) }
        let folder = try TemporaryFolder("midi").path
        try "voices:\n  - {name: pad, kind: click, on_beat: false, midi_note: 60}\nmidi_cc:\n  7: pad.gain\n"
            .write(toFile: folder + "/preset.yaml", atomically: true, encoding: .utf8)
        let client = try JackClient(name: "pj-midi-test")
        let engine = try EngineGraph.build(preset: LoadedPreset.load(path: folder), sampleRate: client.sampleRate,
                                           maxFrames: client.bufferSize)
        let ear = try CaptureClient(name: "pj-midi-ear", threshold: 0.05)
        try client.activate(engine: engine)
        try ear.connect(from: "\(client.name):out_L")
        let pad = try MidiSender(name: "pj-midi-pad", note: 60, everyPeriods: 5)
        try pad.connect(to: "\(client.name):midi_in")
        usleep(1_500_000)
        pad.pendingControlChange.store(7 << 8 | 32, ordering: .releasing)  // gain 32/127
        usleep(1_000_000)
        client.deactivate()
        pad.close()
        ear.close()
        client.close()

        let sent = pad.sentFrames, heard = ear.onsetJackFrames
        let heardSet = Set(heard)
        let matched = sent.filter { heardSet.contains($0) }
        XCTAssertGreaterThan(sent.count, 30)
        // Notes sent before the ear was connected may be unheard. The dummy driver on a loaded test
        // machine now and then runs a cycle late (an xrun); allow for a few such notes, no more.
        XCTAssertGreaterThanOrEqual(Double(matched.count), 0.9 * Double(sent.count), "sent \(sent.prefix(5)), heard \(heard.prefix(5))")
        XCTAssertLessThanOrEqual(Double(heard.count - matched.count), 0.05 * Double(heard.count), "onsets elsewhere than sent")
        XCTAssertTrue(Set(sent.map { $0 % Int64(client.bufferSize) }).count > 10, "offsets vary within the period")
        // Before the CC the impulses are 100/127; after it, scaled by the new gain (after its 10 ms slew).
        let levels = ear.onsetLevels
        XCTAssertEqual(levels.first!, 100 / 127, accuracy: 1e-5)
        XCTAssertEqual(levels.last!, 100 / 127 * 32 / 127, accuracy: 1e-5)
    }
}
