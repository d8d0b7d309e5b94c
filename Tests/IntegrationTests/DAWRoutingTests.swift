import OSC
import Inputs
import Foundation
import JackPeers
import TestSupport
import XCTest

/// `run --outputs voices|groups` and `--midi-out voices` on the private jackd, heard by real
/// peers as a DAW would: jack_capture records every port in one file (one cycle's buffers side
/// by side), capture clients stamp each port's onsets with JACK's frame time, MIDI captures
/// listen to each voice's MIDI port, and jack_property reads the ports' metadata.
final class DAWRoutingTests: XCTestCase {
    private var folder: URL!
    private var run: LiveRun?

    override func setUpWithError() throws {
        try Subprocess.requirePulsejack()
        folder = try TemporaryFolder("daw").url
    }

    override func tearDown() {
        run?.stop()
        try? FileManager.default.removeItem(at: folder)
    }

    /// Clicks on the heart (a beat; a quieter hat four to the beat), a pad that only OSC triggers
    /// (at irregular moments: a click train alone is periodic, and could not tell a heard beat
    /// from the next fired one), and a bell, which joins the beat in the "pulse" group.
    private func preset() throws -> String {
        let path = folder.appendingPathComponent("preset.yaml").path
        try """
            voices:
              - {name: beat, kind: click, gain: 0.9, pan: -0.4, group: pulse}
              - {name: hat, kind: click, gain: 0.3, pan: 0.5, subdivide: 4, midi_out_note: 42}
              - {name: pad, kind: click, gain: 0.6, on_beat: false, midi_out_note: 50}
              - {name: bell, kind: sample, file: \(Subprocess.repository.path)/presets/sounds/bell.wav, gain: 0.4, every: 2, group: pulse}
            """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The first frame of a capture where every port is heard. jack_capture connects its ports one
    /// by one after it starts recording, and a cycle can run between two connects: its first
    /// period may lack a port. Besides PipeWire's late links (`LiveGrid.linksSettle`), on jackd2 a
    /// cycle between two connects left the group port empty in one CI run (master − group 0.21).
    /// The first half second is left out on both.
    private static let linksSettled = Int(LiveGrid.linksSettle)

    private func stop() throws -> String {
        guard let run else { return "" }
        let (status, printed) = run.stop()
        XCTAssertEqual(status, 0, printed)
        return printed
    }

    /// jack_capture of `ports` of `client` for `seconds`, running while `during` does.
    private func capture(_ ports: [String], of client: String, server: String, seconds: Int, during: () throws -> Void) throws -> WavFile {
        let wav = folder.appendingPathComponent("capture-\(ports.count).wav").path
        guard let audio = try JackCapture.record(ports, of: client, server: server, seconds: seconds, into: wav, during: during)
        else { throw XCTSkip("jack_capture is not installed") }
        XCTAssertEqual(audio.channels.count, ports.count)
        return audio
    }

    func testEachVoicePortCarriesItsVoiceAndTheMasterIsTheirSum() throws {
        guard let server = TestServer.join() else { throw XCTSkip(TestServer.missing) }
        let client = "pj-daw-\(getpid())", events = folder.appendingPathComponent("events.jsonl").path
        let oscPort = OSCEncoder.freePort()
        run = try LiveRun(["run", "--preset", try preset(), "--bpm", "100", "--osc-port", "\(oscPort)", "--name", client,
                           "--outputs", "voices", "--midi-out", "voices", "--events-out", events], server: server)
        XCTAssertTrue(try Subprocess.waitForPorts(of: client, server: server, port: "bell_midi"), "the voice ports never appeared")

        // Ears on each voice's left port, in JACK's frame time; a DAW's MIDI tracks on the MIDI ports.
        let ears = try ["beat_L", "hat_L", "pad_L"].map { port -> CaptureClient in
            let ear = try CaptureClient(name: "pj-daw-\(port)-\(getpid())", threshold: 0.1)
            try ear.connect(from: "\(client):\(port)")
            return ear
        }
        let midi = try ["beat_midi", "hat_midi", "midi_out"].map { port -> MidiCapture in
            let capture = try MidiCapture(name: "pj-daw-\(port)-\(getpid())")
            try capture.connect(from: "\(client):\(port)")
            return capture
        }
        // The ports' metadata, as a patchbay reads it.
        let environment = ["JACK_DEFAULT_SERVER": server]
        let described = try Subprocess.run("/usr/bin/jack_property", ["-p", "-l", "\(client):hat_R"], environment: environment).stdout
        let describedMIDI = try Subprocess.run("/usr/bin/jack_property", ["-p", "-l", "\(client):bell_midi"], environment: environment).stdout
        // The master and every voice's pair in one file, channel by channel.
        let ports = ["out_L", "out_R", "beat_L", "beat_R", "hat_L", "hat_R", "pad_L", "pad_R", "bell_L", "bell_R"]
        let audio = try capture(ports, of: client, server: server, seconds: 4) {
            usleep(300_000)
            for pause in [137, 411, 229, 613, 347, 181, 523] {
                OSCEncoder.send(OSCEncoder.message("/voice/pad/trigger", [.float(1)]), port: oscPort)
                usleep(UInt32(pause) * 1000)
            }
        }
        try checkStatus(port: oscPort, client: client)
        for ear in ears { ear.close() }
        for capture in midi { capture.close() }
        let printed = try stop()
        XCTAssertTrue(printed.contains("4 voice port pairs (beat_L/beat_R, hat_L/hat_R, pad_L/pad_R, bell_L/bell_R) and 4 voice MIDI ports"), printed)
        // Order after the six fixed ports: the pairs in voice order, then the MIDI ports.
        XCTAssertTrue(described.contains("Voice hat Right") && described.contains("value: 10 "), described)
        XCTAssertTrue(describedMIDI.contains("MIDI Out bell") && describedMIDI.contains("value: 18 "), describedMIDI)
        checkTheMasterIsTheVoicesSum(audio, ports: ports)
        let beats = try checkOnsets(events: events, ears: ears, printed: printed)
        checkVoiceMIDI(midi, beats: beats)
    }

    /// The status says the layout, and sees the ears on the voices' ports.
    private func checkStatus(port oscPort: UInt16, client: String) throws {
        let reply = try XCTUnwrap(OSCEncoder.send(OSCEncoder.message("/pulse/status"), port: oscPort, awaitReply: true))
        let status = try XCTUnwrap(OSCPacket.decode(reply).first).arguments
        func value(_ name: String) -> OSCMessage.Argument? { status.firstIndex(of: .string(name)).map { status[$0 + 1] } }
        XCTAssertEqual(value("outputs"), .string("voices"))
        XCTAssertEqual(value("midi_out"), .string("voices"))
        XCTAssertEqual(value("output_ports"), .int(12))
        guard case .string(let connected)? = value("connected") else { return XCTFail("no connections in \(status)") }
        XCTAssertTrue(connected.contains("\(client):hat_L>pj-daw-hat_L-\(getpid()):in"), connected)
        XCTAssertTrue(connected.contains("\(client):beat_midi>pj-daw-beat_midi-\(getpid()):in"), connected)
    }

    /// The master is the sum of the voice ports, frame by frame; each voice at its gain and pan.
    private func checkTheMasterIsTheVoicesSum(_ audio: WavFile, ports: [String]) {
        // The master is the sum of the voice ports, frame by frame, in every period recorded.
        XCTAssertGreaterThan(audio.frameCount, 3 * 48_000)
        let settled = Self.linksSettled
        var largest: Float = 0, largestAt = 0, loudest: [Float] = Array(repeating: 0, count: ports.count)
        for frame in 0..<audio.frameCount {
            for side in 0..<2 where frame >= settled {
                let sum = stride(from: 2 + side, to: ports.count, by: 2).reduce(Float(0)) { $0 + audio.channels[$1][frame] }
                if abs(audio.channels[side][frame] - sum) > largest { (largest, largestAt) = (abs(audio.channels[side][frame] - sum), frame) }
            }
            for channel in 0..<ports.count { loudest[channel] = max(loudest[channel], abs(audio.channels[channel][frame])) }
        }
        XCTAssertLessThanOrEqual(largest, 1e-6, "master minus the voices' sum at frame \(largestAt)")
        // Each voice at its own gain and pan (the balance law: left gain·min(1, 1 − pan)).
        func left(_ gain: Float, _ pan: Float) -> Float { gain * min(1, 1 - pan) }
        XCTAssertEqual(loudest[2], left(0.9, -0.4), accuracy: 1e-5, "beat_L")
        XCTAssertEqual(loudest[4], left(0.3, 0.5), accuracy: 1e-5, "hat_L")
        XCTAssertEqual(loudest[6], left(0.6, 0), accuracy: 1e-5, "pad_L")
        XCTAssertGreaterThan(loudest[8], 0.01, "bell_L sounds")
    }

    /// Each voice's port holds that voice's events, on the contract; the beat voice's onsets.
    private func checkOnsets(events: String, ears: [CaptureClient], printed: String) throws -> [Int64] {
        // Onsets: each voice's port holds exactly that voice's events (pulsejack's --events-out,
        // in engine frames: JACK's frame time less one constant), nothing of the others.
        var fired: [String: [Int64]] = [:]
        for line in try String(contentsOfFile: events, encoding: .utf8).split(separator: "\n") {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            fired[object["voice"] as! String, default: []].append(Int64(object["frame"] as! Int))
        }
        let beats = ears[0].onsetJackFrames, hats = ears[1].onsetJackFrames, pads = ears[2].onsetJackFrames
        // The constant, from the pad's irregular triggers: the one offset that lines them up.
        let firedPads = fired["pad"] ?? []
        XCTAssertEqual(firedPads.count, 7)
        func matches(_ offset: Int64) -> Int { Set(pads).intersection(firedPads.map { $0 + offset }).count }
        let offset = try XCTUnwrap(firedPads.compactMap { event in pads.first.map { $0 - event } }.max { matches($0) < matches($1) })
        XCTAssertGreaterThanOrEqual(matches(offset), 6, "pad_L: \(pads) against \(firedPads)")
        func heard(_ voice: String, by ear: CaptureClient) -> Set<Int64> {
            let onsets = ear.onsetJackFrames
            guard let first = onsets.first, let last = onsets.last else { return [] }
            return Set((fired[voice] ?? []).map { $0 + offset }.filter { $0 >= first && $0 <= last })
        }
        XCTAssertGreaterThanOrEqual(beats.count, 4, "\(beats)")
        XCTAssertGreaterThanOrEqual(hats.count, 16, "\(hats)")
        // A cycle one ear was not run for (the dummy driver on a loaded machine) may lose an onset;
        // under PipeWire, onsets are placed as `LiveGrid.placedOnPipeWire` places them, under
        // jackd2 a period off only for a cycle the stop line shows disturbed.
        let disturbed = LiveGrid.disturbedCycles(in: printed)
        for (name, onsets, ear) in [("beat", beats, ears[0]), ("hat", hats, ears[1]), ("pad", pads, ears[2])] {
            let expected = heard(name, by: ear)
            let placed = TestServer.isPipeWire ? LiveGrid.placedOnPipeWire(onsets, expected: expected, gaps: ear.gaps)
                : LiveGrid.placedAroundDisturbances(onsets, expected: expected, disturbed: disturbed)
            XCTAssertLessThanOrEqual(Set(placed).symmetricDifference(expected).count, 1, "\(name)_L: \(onsets) against \(expected.sorted()); \(printed)")
        }
        // On the contract: 100 BPM is a beat every 28 800 frames and a hat every 7 200.
        XCTAssertTrue(LiveGrid.onGrid(beats, framesPerBeat: 28_800, output: printed), "\(beats) \(printed)")
        XCTAssertTrue(LiveGrid.onGrid(hats, framesPerBeat: 7_200, output: printed), "\(hats) \(printed)")
        return beats
    }

    private func checkVoiceMIDI(_ midi: [MidiCapture], beats: [Int64]) {
        // Each voice's MIDI port: that voice's notes only, at the frames the combined port has them.
        let beatNotes = midi[0].received.filter(\.isNoteOn), hatNotes = midi[1].received.filter(\.isNoteOn)
        let combined = midi[2].received.filter(\.isNoteOn)
        XCTAssertGreaterThanOrEqual(beatNotes.count, 4)
        XCTAssertTrue(midi[0].received.allSatisfy { $0.key == 36 }, "\(midi[0].received)")
        XCTAssertTrue(midi[1].received.allSatisfy { $0.key == 42 }, "\(midi[1].received)")
        for (notes, key) in [(beatNotes, UInt8(36)), (hatNotes, 42)] {
            let mine = Set(notes.map(\.frame)), theirs = Set(combined.filter { $0.key == key }.map(\.frame))
            let span = max(mine.min() ?? 0, theirs.min() ?? 0)...min(mine.max() ?? 0, theirs.max() ?? 0)
            XCTAssertLessThanOrEqual(mine.filter(span.contains).symmetricDifference(theirs.filter(span.contains)).count, 1,
                                     "key \(key): \(mine.sorted()) against \(theirs.sorted())")
        }
        // A beat's note-on is on its sound's frame (both in JACK's frame time).
        let beatSpan = (beats.first ?? 0)...(beats.last ?? 0)
        XCTAssertLessThanOrEqual(Set(beats).symmetricDifference(Set(beatNotes.map(\.frame)).filter(beatSpan.contains)).count, 1,
                                 "\(beats) against \(beatNotes.map(\.frame))")
    }

    func testGroupPortsCarryTheirVoicesAndTheRestStayOnTheMaster() throws {
        guard let server = TestServer.name else { throw XCTSkip(TestServer.missing) }
        let client = "pj-groups-\(getpid())"
        run = try LiveRun(["run", "--preset", try preset(), "--bpm", "100", "--no-osc", "--name", client, "--outputs", "groups"],
                          server: server)
        XCTAssertTrue(try Subprocess.waitForPorts(of: client, server: server, port: "pulse_R"), "the group ports never appeared")
        let listed = try Subprocess.run("/usr/bin/jack_lsp", [], environment: ["JACK_DEFAULT_SERVER": server]).stdout
        let ours = listed.split(separator: "\n").filter { $0.hasPrefix("\(client):") }.map { String($0.dropFirst(client.count + 1)) }
        XCTAssertEqual(ours.sorted(), ["in_L", "in_R", "midi_in", "midi_out", "out_L", "out_R", "pulse_L", "pulse_R"])
        let audio = try capture(["out_L", "out_R", "pulse_L", "pulse_R"], of: client, server: server, seconds: 3) {}
        let printed = try stop()
        XCTAssertTrue(printed.contains("1 group port pair (pulse_L/pulse_R)"), printed)
        // The group carries the beat (0.9 at its onsets) and the bell; the hat (0.3, no group)
        // only the master: master − group is exactly the hat's impulses, and nothing else.
        var hatImpulses = 0, largestRest: Float = 0, groupPeak: Float = 0
        for frame in Self.linksSettled..<audio.frameCount {
            let rest = audio.channels[0][frame] - audio.channels[2][frame]
            if abs(rest - 0.3 * 0.5) < 1e-5 { hatImpulses += 1 } else { largestRest = max(largestRest, abs(rest)) }
            groupPeak = max(groupPeak, abs(audio.channels[2][frame]))
        }
        XCTAssertLessThanOrEqual(largestRest, 1e-6)
        XCTAssertGreaterThanOrEqual(hatImpulses, 12, "the hat is on the master only")
        XCTAssertGreaterThan(groupPeak, 0.5, "the beat is in the group")
    }
}
