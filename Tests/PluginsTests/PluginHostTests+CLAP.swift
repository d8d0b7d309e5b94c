import Foundation
import TestSupport
import EngineFixtures
import XCTest
import Realtime
@testable import Engine
@testable import Plugins
@testable import Presets

/// The CLAP host against its LV2 twin: zam-plugins ships each of its plugins as LV2 and as CLAP,
/// built by DPF from the same DSP code, so each build is the other's reference.
extension PluginHostTests {
    /// The zam plugins installed in both formats, by name (ZamDelay …).
    static func zamPairs() -> [String] {
        let clap = Set(((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/clap")) ?? []).map { ($0 as NSString).deletingPathExtension })
        let lv2 = Set(((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/lv2")) ?? []).map { ($0 as NSString).deletingPathExtension })
        return clap.intersection(lv2).sorted()
    }

    /// The input controls of `uri` in the plugin's order (DPF lists its parameters alike in
    /// both formats), each with its default, without a latency report.
    func inputControls(_ uri: String) throws -> [PluginPort] {
        let instance = try PluginInstance(uri: uri, sampleRate: 48_000, maxFrames: 256, offline: true)
        return instance.ports.filter { $0.kind == .control && $0.isInput }
    }

    /// The noise through `uri` as a voice's insert with `controls` set at the start and
    /// `changes` (control by order, value) at their frames.
    func renderInsert(_ uri: String, symbols: [String], start: [Int: Float], changes: [(frame: Int, control: Int, value: Float)],
                      frames: Int, period: Int) throws -> (left: [Float], right: [Float]) {
        let controls = start.sorted { $0.key < $1.key }.map { "\(symbols[$0.key]): \($0.value)" }.joined(separator: ", ")
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 256)
        let engine = try engine(inserts: "      - plugin: \(uri)\n        controls: {\(controls)}", period: period, sources: [ring])
        let plugin = try XCTUnwrap(engine.slots[0].inserts).stages[0].plugin
        let messages = try changes.map { change in
            let port = try XCTUnwrap(plugin.controlPort(symbols[change.control])).index
            return ControlMessage(frame: Int64(change.frame), .insertControl(InsertAddress(chain: 0, stage: 0, port: port), change.value))
        }
        return render(engine, ring: ring, frames: frames, period: period, messages: messages)
    }

    /// Pairs that cannot match, and why.
    static let unmatched = [
        "ZamCompX2": "a sidechain input (3 audio inputs): not an insert",
        "ZamGateX2": "a sidechain input (3 audio inputs): not an insert",
        "ZamHeadX2": "its CLAP build loads its HRTF convolution at init, before CLAP gives the rate (it says 'samplerate mismatch preset:48000 host:44100')",
    ]

    /// Every pair, with a control set and moved twice at frames (period boundaries), renders the
    /// same within 1e-5. Moved mid-period, DPF's CLAP build applies the value at the process's
    /// start (it does not split at the event's time): where that is audible, the two builds
    /// first differ exactly at the start of the period the change fell in.
    func testEveryZamPluginRendersAsItsLV2Twin() throws {
        let frames = 24_000, period = 256
        _ = try writeNoise(frames: frames)
        let pairs = Self.zamPairs()
        XCTAssertGreaterThanOrEqual(pairs.count, 17, "zam-plugins 4.1 ships 17 plugins in both formats")
        var matched = 0
        for name in pairs where Self.unmatched[name] == nil {
            let lv2 = try inputControls("urn:zamaudio:\(name)"), clap = try inputControls("clap:com.zamaudio.\(name)")
            XCTAssertEqual(lv2.map(\.name), clap.map(\.name), "\(name): the same controls in the same order")
            guard lv2.count == clap.count else { continue }
            // A continuous control: set at the start, moved twice, within its range.
            let moved = lv2.indices.first { !lv2[$0].isToggled && !lv2[$0].isInteger }
            var start: [Int: Float] = [:]
            func at(_ share: Float) -> Float { lv2[moved!].minimum + (lv2[moved!].maximum - lv2[moved!].minimum) * share }
            if moved != nil { start[moved!] = at(0.6) }
            for (label, f1, f2) in [("on period boundaries", 5_120, 13_824), ("mid-period", 5_001, 13_777)] {
                let changes = moved.map { [(frame: f1, control: $0, value: at(0.3)), (frame: f2, control: $0, value: at(0.8))] } ?? []
                let a = try renderInsert("urn:zamaudio:\(name)", symbols: lv2.map(\.symbol), start: start, changes: changes, frames: frames, period: period)
                let b = try renderInsert("clap:com.zamaudio.\(name)", symbols: clap.map(\.symbol), start: start, changes: changes, frames: frames, period: period)
                let worst = max(maxDifference(a.left[...], b.left[...]), maxDifference(a.right[...], b.right[...]))
                XCTAssertGreaterThan(a.left.map(abs).max() ?? 0, 0.01, "\(name): it sounds")
                if label == "on period boundaries" || worst <= 1e-5 {
                    XCTAssertLessThanOrEqual(worst, 1e-5, "\(name), changes \(label)")
                } else {
                    let first = a.left.indices.first { abs(a.left[$0] - b.left[$0]) > 1e-5 || abs(a.right[$0] - b.right[$0]) > 1e-5 }
                    // Identical until the period the change fell in; apart at the latest from the change's frame.
                    let part = try XCTUnwrap(first, name)
                    XCTAssertTrue((f1 / period * period...f1).contains(part), "\(name): the builds part at \(part), not within the change's period")
                }
            }
            matched += 1
        }
        XCTAssertEqual(matched, pairs.count - Self.unmatched.count)
    }

    /// pulsejack's own sample-accurate CLAP gain: each change lands at its frame inside one
    /// process — the sample before it at the old gain, the sample at it at the new — and the
    /// plugin runs once a period (no split).
    func testACLAPParameterChangeMidPeriodLandsAtItsFrameWithoutASplitRun() throws {
        setenv("CLAP_PATH", try MisbehavingPlugins.clapFolder(), 1)
        let frames = 12_000, period = 1024
        let noise = try writeNoise(frames: frames)
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 256)
        let engine = try engine(inserts: "      - plugin: \(MisbehavingPlugins.clapURI("clean"))\n        controls: {gain: 0.5}", period: period, sources: [ring])
        let plugin = try XCTUnwrap(engine.slots[0].inserts).stages[0].plugin
        XCTAssertTrue(plugin.takesControlsAtFrames)
        let gain = try XCTUnwrap(plugin.controlPort("gain")).index
        let changes: [(frame: Int, gain: Float)] = [(0, 0.5), (1_001, 2), (3_337, 0.25), (3_338, 1), (7_777, 0), (9_001, 3)]
        let messages = changes.dropFirst().map { ControlMessage(frame: Int64($0.frame), .insertControl(InsertAddress(chain: 0, stage: 0, port: gain), $0.gain)) }
        let output = render(engine, ring: ring, frames: frames, period: period, messages: messages)
        for (index, change) in changes.enumerated() {
            let end = index + 1 < changes.count ? changes[index + 1].frame : frames
            for frame in change.frame..<end {
                XCTAssertEqual(output.left[frame], noise.samples[frame] * change.gain, "frame \(frame)")
                if output.left[frame] != noise.samples[frame] * change.gain { return }
            }
        }
        XCTAssertEqual(plugin.runs, (frames + period - 1) / period, "one process a period, whatever the changes")
    }

    /// A CLAP state saved from a playing instance and restored into a fresh one renders the same
    /// (pulsejack's own plugin, whose state holds its gain and a count of loads; ZamDelay's,
    /// through DPF).
    func testACLAPStateSavedAndRestoredRendersTheSame() throws {
        setenv("CLAP_PATH", try MisbehavingPlugins.clapFolder(), 1)
        let frames = 4_096
        let noise = try writeNoise(frames: frames)
        for (uri, controls) in [(MisbehavingPlugins.clapURI("clean"), ["gain": Float(2.5)]),
                                ("clap:com.zamaudio.ZamDelay", ["time": 40, "feedback": 0.5, "lpf": 3000])] {
            func run(_ instance: PluginInstance) -> [Float] {
                var out = [Float](repeating: 0, count: frames), input = noise.samples, second = noise.samples, out2 = out
                for start in stride(from: 0, to: frames, by: 256) {
                    input.withUnsafeMutableBufferPointer { i in second.withUnsafeMutableBufferPointer { i2 in
                        out.withUnsafeMutableBufferPointer { o in out2.withUnsafeMutableBufferPointer { o2 in
                            let stereo = instance.audioInputs.count > 1
                            instance.run(inputs: i.baseAddress! + start, stereo ? i2.baseAddress! + start : nil, outputs: o.baseAddress! + start,
                                         stereo ? o2.baseAddress! + start : nil, frames: 256)
                        } }
                    } }
                }
                return out
            }
            let first = try PluginInstance(uri: uri, sampleRate: 48_000, maxFrames: 256, controls: controls, offline: true)
            first.activate()
            let heard = run(first)
            first.snapshotControls()
            let saved = folder.appendingPathComponent("state-\(uri.count)").path
            try first.saveState(to: saved)
            let second = try PluginInstance(uri: uri, sampleRate: 48_000, maxFrames: 256, offline: true)
            try second.restoreState(from: saved)
            second.activate()
            XCTAssertEqual(second.savedControls.filter { controls[$0.key] != nil }.mapValues(Float.init), controls, uri)
            let fresh = try PluginInstance(uri: uri, sampleRate: 48_000, maxFrames: 256, controls: controls, offline: true)
            fresh.activate()
            // Each from its start: the restored instance renders as the saved one did, and as one set by hand.
            let restored = run(second)
            XCTAssertEqual(maxDifference(restored[...], heard[...]), 0, "\(uri): restored renders as the saved one did")
            XCTAssertEqual(maxDifference(restored[...], run(fresh)[...]), 0, "\(uri): restored renders as set by hand")
        }
    }

    /// A latent CLAP insert (pulsejack's own, delaying by what it reports) is compensated as an
    /// LV2 one is: its voice's clicks land on the straight voice's frames.
    func testALatentCLAPInsertIsCompensated() throws {
        setenv("CLAP_PATH", try MisbehavingPlugins.clapFolder(), 1)
        let preset = folder.appendingPathComponent("clap-latency.yaml")
        try """
        name: latency
        voices:
          - {name: straight, kind: click, pan: -1}
          - name: delayed
            kind: click
            pan: 1
            inserts:
              - plugin: \(MisbehavingPlugins.clapURI("clean"))
                controls: {latency_frames: 1000}
        """.write(to: preset, atomically: true, encoding: .utf8)
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 16)
        let engine = try EngineGraph.build(preset: LoadedPreset.load(path: preset.path), sampleRate: 48_000, maxFrames: 256, offline: true) { $0.sources = [ring] }
        XCTAssertTrue(ring.producer.push(ControlMessage(frame: 24_000, .tempo(bpm: 97))))
        let output = Fixtures.run(engine, sizes: [256], periods: 48_000 * 5 / 256)
        XCTAssertEqual(engine.handle.publishedLatency.load(ordering: .relaxed), 1_000, "the path's latency")
        let straight = WavFile.onsets(output.left), delayed = WavFile.onsets(output.right)
        XCTAssertGreaterThanOrEqual(straight.count, 7)
        XCTAssertEqual(delayed, ([straight[0] + 1_000] + straight.dropFirst()).filter { $0 < output.right.count })
    }
}

/// A CLAP plugin's own presets: the project's CLAP plugin offers two inside it and one file
/// beside its bundle through preset discovery, and loads them through preset-load.
extension PluginHostTests {
    func testCLAPPresetsAreListedAndLoadExactlyTheirValuesAtStartLiveAndIsolated() throws {
        setenv("CLAP_PATH", try MisbehavingPlugins.clapFolder(), 1)
        let uri = MisbehavingPlugins.clapURI("clean")
        let folder = try MisbehavingPlugins.clapFolder()
        // The source's presets: "Quiet" 0.25 and "Loud" 3 inside it, the file's "Half" 0.5; not
        // "Elsewhere" (for another plugin), nor the README beside Half.gain (not a declared type).
        XCTAssertEqual(PluginWorld.shared.presets(of: uri), [
            PluginPreset(name: "Quiet", uri: "plugin#quiet"), PluginPreset(name: "Loud", uri: "plugin#loud"),
            PluginPreset(name: "Half", uri: "\(folder)/misbehave-presets/Half.gain"),
        ])
        let frames = 4_096
        let noise = try writeNoise(frames: frames)
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 16)
        for (preset, gain) in [("Quiet", Float(0.25)), ("Loud", 3), ("Half", 0.5)] {
            for isolate in [false, true] {
                let label = "\(preset)\(isolate ? ", isolated" : "")"
                let engine = try self.engine(inserts: "      - {plugin: '\(uri)', preset: \(preset), isolate: \(isolate)}", period: 256, sources: [ring])
                let plugin = try XCTUnwrap(engine.slots[0].inserts).stages[0].plugin
                XCTAssertEqual(plugin.control(try XCTUnwrap(plugin.controlPort("gain")).index), gain, label)
                let named = render(engine, ring: ring, frames: frames, period: 256, messages: [])
                let set = render(try self.engine(inserts: "      - {plugin: '\(uri)', controls: {gain: \(gain)}, isolate: \(isolate)}", period: 256,
                                                 sources: [ring]), ring: ring, frames: frames, period: 256, messages: [])
                XCTAssertEqual(maxDifference(named.left[...], set.left[...]), 0, "\(label): renders as its value set by hand")
                XCTAssertEqual(named.left[100], noise.samples[100] * gain, label)
            }
        }
        // Live: loaded off the process thread, swapped in at the message's frame.
        let engine = try self.engine(inserts: "      - {plugin: '\(uri)'}", period: 256, sources: [ring])
        XCTAssertTrue(ring.producer.push(try engine.handle.insertPresetMessage(place: "noise", insert: 1, preset: "Loud", frame: 1_000)))
        let live = render(engine, ring: ring, frames: frames, period: 256, messages: [])
        XCTAssertEqual(live.left[999], noise.samples[999], "before the swap: gain 1")
        XCTAssertEqual(live.left[1_000], noise.samples[1_000] * 3, "from its frame: the preset's gain")
        XCTAssertThrowsError(try engine.handle.insertPresetMessage(place: "noise", insert: 1, preset: "Elsewhere")) { error in
            XCTAssertTrue("\(error)".contains("has no preset 'Elsewhere'; its presets: 'Quiet', 'Loud', 'Half'"), "\(error)")
        }
    }
}

/// A CLAP instrument as an lv2 voice: the project's CLAP instrument answers each note-on with a
/// 1.0 impulse and each note-off with −0.75 at the event's frame.
extension PluginHostTests {
    func testACLAPInstrumentPlaysEachNoteAtItsFrame() throws {
        setenv("CLAP_PATH", try MisbehavingPlugins.clapFolder(), 1)
        let preset = folder.appendingPathComponent("clap-instrument.yaml")
        try """
        name: clap instrument
        voices:
          - {name: straight, kind: click, pan: -1}
          - name: keys
            kind: lv2
            plugin: clap:org.pulsejack.misbehave.instrument
            note: 60
            length: 0.1
            pan: 1
        """.write(to: preset, atomically: true, encoding: .utf8)
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 16)
        let engine = try EngineGraph.build(preset: LoadedPreset.load(path: preset.path), sampleRate: 48_000, maxFrames: 256, offline: true) { $0.sources = [ring] }
        XCTAssertTrue(ring.producer.push(ControlMessage(frame: 24_000, .tempo(bpm: 97))))
        let output = Fixtures.run(engine, sizes: [256], periods: 48_000 * 4 / 256)
        // The click's first loud sample each beat; the instrument's impulses, one sample each.
        let loud = WavFile.onsets(output.left)
        let beats = loud.indices.filter { $0 == 0 || loud[$0] - loud[$0 - 1] > 100 }.map { loud[$0] }
        XCTAssertGreaterThanOrEqual(beats.count, 5)
        let expected = beats.flatMap { [$0, $0 + 4_800] }.filter { $0 < output.right.count }
        XCTAssertEqual(WavFile.onsets(output.right), expected, "each note on at its beat, off 0.1 s later")
        XCTAssertEqual(expected.map { output.right[$0] > 0 }, expected.indices.map { $0 % 2 == 0 }, "on, then off")
    }
}
