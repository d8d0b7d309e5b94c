import Foundation
import TestSupport
import EngineFixtures
import XCTest
import Realtime
import Inputs
@testable import Engine
@testable import Presets

/// Body signals shaping the sound, offline: every pulse's height against the mapping's formula
/// computed here from the values sent, through the voice's gain, an LV2 insert's control in dB,
/// the one-pole smoothing, a dropout's hold and glide, and the switch.
final class ModulationTests: XCTestCase {
    private let rate = 48_000

    /// The engine a preset (`yaml`, written to a folder of its own) describes, fed by one ring
    /// that starts it at its `bpm:` (as a render does).
    private func engine(_ yaml: String, maxFrames: Int = 256) throws -> (engine: RealtimeEngine, ring: SPSCRing<ControlMessage>) {
        let folder = try TemporaryFolder("modulation")
        defer { folder.remove() }
        try yaml.write(toFile: folder.file("preset.yaml"), atomically: true, encoding: .utf8)
        let loaded = try LoadedPreset.load(path: folder.path)
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 8192)
        let engine = try EngineGraph.build(preset: loaded, sampleRate: rate, maxFrames: maxFrames, offline: true) { $0.sources = [ring] }
        if let bpm = loaded.preset.bpm { ring.producer.push(ControlMessage(frame: 0, .tempo(bpm: bpm))) }
        return (engine, ring)
    }

    /// Every click in `samples`: its frame and height (a click is one nonzero sample).
    private static func clicks(_ samples: [Float]) -> [(frame: Int, height: Float)] {
        samples.indices.filter { samples[$0] != 0 }.map { ($0, samples[$0]) }
    }

    /// Changes of a signal at `frames` with `values`, and the value in force at `frame` (nil before the first).
    private static func inForce(_ changes: [(frame: Int, value: Double)], at frame: Int) -> Double? {
        changes.last { $0.frame <= frame }?.value
    }

    func testASignalSetsTheClicksGainAtItsFrame() throws {
        let (engine, ring) = try engine("""
            bpm: 75
            modulations:
              - from: signal.knob
                to: voice.click.gain
                from_range: [0, 10]
                to_range: [0, 2]
            voices:
              - {name: click, kind: click}
            """)
        // A value every 0.37 s, some outside the range (clamped), none within the clicks' ramps by design of the check below.
        var generator = SplitMix64(seed: 47)
        let changes: [(frame: Int, value: Double)] = (0..<60).map { (index: Int) -> (frame: Int, value: Double) in
            (4_000 + index * 17_760, Double(generator.next() % 1500) / 100 - 2)
        }
        for change in changes { ring.producer.push(ControlMessage(frame: Int64(change.frame), .signal(index: 0, Float(change.value)))) }
        let output = Fixtures.run(engine, sizes: [256, 100, 1024], periods: 2400)
        let clicks = Self.clicks(output.left)
        XCTAssertGreaterThan(clicks.count, 20)
        let ramp = 2 * 480 + 1  // the mixer's slew: a full-scale change takes 10 ms; 2 takes 20
        var checked = 0
        for click in clicks {
            let previous = changes.last { $0.frame <= click.frame }
            // Exact only where no change's ramp is still under way.
            guard let previous, click.frame - previous.frame > ramp else { continue }
            let expected = min(max(previous.value / 10, 0), 1) * 2
            XCTAssertEqual(Double(click.height), expected, accuracy: 1e-6, "click at \(click.frame)")
            checked += 1
        }
        XCTAssertGreaterThan(checked, 15)
        XCTAssertEqual(output.left, output.right, "centred")
        let before = clicks.filter { $0.frame < changes[0].frame }
        XCTAssertFalse(before.isEmpty)
        XCTAssertTrue(before.allSatisfy { $0.height == 1 }, "before the first value, the voice's own gain")
    }

    func testAnInsertControlInDecibelsSetsTheClicksHeight() throws {
        let (engine, ring) = try engine("""
            bpm: 240
            modulations:
              - from: signal.level
                to: voice.click.insert.1.gain
                from_range: [0, 1]
                to_range: [-40, 6]
            voices:
              - name: click
                kind: click
                inserts:
                  - plugin: http://lv2plug.in/plugins/eg-amp
            """)
        let changes: [(frame: Int, value: Double)] = (0..<40).map { (index: Int) -> (frame: Int, value: Double) in
            (1_000 + index * 12_345, Double((index * 37) % 101) / 100)
        }
        for change in changes { ring.producer.push(ControlMessage(frame: Int64(change.frame), .signal(index: 0, Float(change.value)))) }
        let output = Fixtures.run(engine, sizes: [256], periods: 2000)
        let clicks = Self.clicks(output.left)
        XCTAssertGreaterThan(clicks.count, 35)
        var checked = 0
        for click in clicks {
            // The plugin takes its control at the frame itself: no ramp of ours.
            guard let value = Self.inForce(changes, at: click.frame) else {
                XCTAssertEqual(click.height, 1, accuracy: 1e-6, "eg-amp's default: 0 dB")
                continue
            }
            let decibels: Double = -40 + 46 * value
            let linear: Double = pow(10, decibels / 20)
            XCTAssertEqual(Double(click.height), linear, accuracy: 1e-5 * max(1, linear), "click at \(click.frame)")
            checked += 1
        }
        XCTAssertGreaterThan(checked, 30)
    }

    func testSmoothingFollowsTheOnePoleAtEachControlBlock() throws {
        let (engine, ring) = try engine("""
            bpm: 181
            modulations:
              - from: signal.breath
                to: voice.click.gain
                from_range: [0, 1]
                to_range: [0.2, 1.2]
                smooth: 1.5
            voices:
              - {name: click, kind: click}
            """)
        let changes = [(frame: 7_001, value: 0.1), (frame: 100_000, value: 0.9), (frame: 260_017, value: 0.3), (frame: 400_000, value: 1.0)]
        for change in changes { ring.producer.push(ControlMessage(frame: Int64(change.frame), .signal(index: 0, Float(change.value)))) }
        let output = Fixtures.run(engine, sizes: [128, 333], periods: 6000)
        // The one-pole at each 32-frame boundary, from the first value on (it starts there, no glide from nothing).
        let coefficient = 1 - exp(-32 / (1.5 * Double(rate)))
        var smoothed = [Int: Double]()
        var y = Double.nan
        for boundary in stride(from: 0, to: output.left.count, by: 32) {
            guard let x = Self.inForce(changes, at: boundary) else { continue }
            y = y.isNaN ? x : y + coefficient * (x - y)
            smoothed[boundary] = y
        }
        var checked = 0
        for click in Self.clicks(output.left) {
            guard let y = smoothed[click.frame / 32 * 32] else {
                XCTAssertEqual(click.height, 1, "before the first value")
                continue
            }
            XCTAssertEqual(Double(click.height), 0.2 + y, accuracy: 1e-4, "click at \(click.frame)")
            checked += 1
        }
        XCTAssertGreaterThan(checked, 60)
    }

    /// A value far beyond the source's range (1e38) is its range's end before the one-pole sees
    /// it: 0.5 after it follows the one-pole from the range's top, the formula on clamped values.
    /// A quiet source after 1e20 glides to its dropout value exactly.
    func testAHugeValueIsClampedBeforeItIsSmoothedOrGlided() throws {
        let (engine, ring) = try engine("""
            bpm: 181
            modulations:
              - {from: signal.level, to: voice.a.gain, from_range: [0, 1], to_range: [0.2, 1.2], smooth: 0.2}
              - {from: signal.lost, to: voice.b.gain, on_dropout: {value: 0.5, seconds: 1, after: 3}}
            voices:
              - {name: a, kind: click, pan: -1}
              - {name: b, kind: click, pan: 1}
            """)
        let changes = [(frame: 7_001, value: 1e38), (frame: 100_000, value: 0.5)]
        for change in changes { ring.producer.push(ControlMessage(frame: Int64(change.frame), .signal(index: 0, Float(change.value)))) }
        ring.producer.push(ControlMessage(frame: 1_000, .signal(index: 1, 1e20)))
        let output = Fixtures.run(engine, sizes: [256], periods: 1500)
        let coefficient = 1 - exp(-32 / (0.2 * Double(rate)))
        var y = Double.nan
        var smoothed = [Int: Double]()
        for boundary in stride(from: 0, to: output.left.count, by: 32) {
            guard let x = Self.inForce(changes, at: boundary) else { continue }
            let clamped = min(max(x, 0), 1)
            y = y.isNaN ? clamped : y + coefficient * (clamped - y)
            smoothed[boundary] = y
        }
        var checked = 0
        for click in Self.clicks(output.left) where click.frame > 7_032 {
            XCTAssertEqual(Double(click.height), 0.2 + (smoothed[click.frame / 32 * 32] ?? .nan), accuracy: 1e-4, "click at \(click.frame)")
            checked += 1
        }
        XCTAssertGreaterThan(checked, 20)
        // Within a second (5 time constants) of 0.5, its mapped 0.7 to e^-5 of the step.
        let settled = Self.clicks(output.left).filter { $0.frame > 100_000 + rate }
        XCTAssertFalse(settled.isEmpty)
        for click in settled { XCTAssertEqual(Double(click.height), 0.7, accuracy: 0.5 * exp(-5.0)) }
        // b: 1e20 held (the range's top, 1), quiet after 3 s, at 0.5 a second later, and there to the end.
        let rested = Self.clicks(output.right).filter { $0.frame > 1_000 + 4 * rate + 32 }
        XCTAssertFalse(rested.isEmpty)
        for click in rested { XCTAssertEqual(click.height, 0.5, accuracy: 1e-6, "click at \(click.frame)") }
    }

    func testASilentSourceHoldsOrGlidesToItsDropoutValue() throws {
        let (engine, ring) = try engine("""
            bpm: 60
            modulations:
              - from: signal.held
                to: voice.a.gain
              - from: signal.lost
                to: voice.b.gain
                on_dropout: {value: 0.25, seconds: 2, after: 1.5}
            voices:
              - {name: a, kind: click, pan: -1}
              - {name: b, kind: click, pan: 1}
            """)
        ring.producer.push(ControlMessage(frame: 1_000, .signal(index: 0, 0.75)))
        ring.producer.push(ControlMessage(frame: 1_000, .signal(index: 1, 0.75)))
        let output = Fixtures.run(engine, sizes: [512], periods: 1000)
        // a sounds on the left only, b on the right only.
        let held = Self.clicks(output.left).filter { $0.frame > 2_000 }.map(\.height)
        XCTAssertTrue(held.allSatisfy { abs($0 - 0.75) < 1e-6 }, "held: \(held)")
        for click in Self.clicks(output.right) where click.frame > 2_000 {
            let quiet = 1_000 + Int(1.5 * Double(rate))
            let progress = min(1, max(0, Double(click.frame / 32 * 32 - quiet) / (2 * Double(rate))))
            let expected = 0.75 + (0.25 - 0.75) * progress
            // The glide moves at each block; the mixer's slew follows within the block.
            XCTAssertEqual(Double(click.height), expected, accuracy: 1e-3, "click at \(click.frame)")
        }
        XCTAssertEqual(Double(Self.clicks(output.right).last!.height), 0.25, accuracy: 1e-6, "it rests at the dropout's value, never 0")
    }

    func testTheSwitchLetsGoToTheManualValueAndTakesBackOver() throws {
        let (engine, ring) = try engine("""
            bpm: 60
            modulations:
              - from: midi.cc.7
                to: voice.click.gain
                from_range: [0, 127]
                to_range: [0, 1]
            voices:
              - {name: click, kind: click, gain: 0.8}
            """)
        ring.producer.push(ControlMessage(frame: 1_000, .controller(number: 7, value: 127)))
        ring.producer.push(ControlMessage(frame: 50_000, .voiceParameter(voice: 0, .gain(0.3))))  // becomes the base
        ring.producer.push(ControlMessage(frame: 100_000, .modulationEnable(index: 0, false)))
        ring.producer.push(ControlMessage(frame: 200_000, .modulationEnable(index: 0, true)))
        let output = Fixtures.run(engine, sizes: [256], periods: 1200)
        let heights = Dictionary(uniqueKeysWithValues: Self.clicks(output.left).map { ($0.frame, $0.height) })
        XCTAssertEqual(heights[48_000], 1, "the controller's value")
        XCTAssertEqual(heights[96_000], 1, "a manual change while modulated is not heard")
        XCTAssertEqual(heights[144_000], 0.3, "switched off: the manual value")
        XCTAssertEqual(heights[240_000], 1, "switched on: the controller's value again")
        XCTAssertEqual(engine.handle.modulationReadings.reading(0).enabled, true)
        XCTAssertEqual(engine.handle.modulationReadings.reading(0).source, 127)
    }

    /// x42's balance: `delayLeft` is `lv2:integer` (samples), `phaseL` `lv2:toggled`, `monoswap` an enumeration.
    func testAnLV2ControlGetsAValueItTakes() throws {
        let (engine, ring) = try engine("""
            bpm: 60
            modulations:
              - from: signal.delay
                to: voice.click.insert.1.delayLeft
                from_range: [0, 1]
                to_range: [0, 100]
              - from: signal.flip
                to: voice.click.insert.1.phaseL
            voices:
              - name: click
                kind: click
                inserts:
                  - plugin: http://gareus.org/oss/lv2/balance
            """)
        let destinations = Dictionary(uniqueKeysWithValues: engine.handle.modulationDestinations().map { ($0.name, $0.step) })
        XCTAssertEqual(destinations["voice.click.insert.1.delayLeft"], .integer)
        XCTAssertEqual(destinations["voice.click.insert.1.phaseL"], .toggled)
        XCTAssertEqual(destinations["voice.click.insert.1.monoswap"], .enumeration([0, 1, 2, 3, 4]))
        ring.producer.push(ControlMessage(frame: 1_000, .signal(index: 0, 0.1043)))  // 10.43 samples → 10
        ring.producer.push(ControlMessage(frame: 1_000, .signal(index: 1, 0.7)))  // past half: on
        let output = Fixtures.run(engine, sizes: [256], periods: 800)
        let left = Self.clicks(output.left).filter { $0.frame > 60_000 }, right = Self.clicks(output.right).filter { $0.frame > 60_000 }
        XCTAssertFalse(right.isEmpty)
        for (l, r) in zip(left, right) {
            XCTAssertEqual(l.frame - r.frame, 10, "delayed by a whole 10 samples")
            XCTAssertLessThan(l.height, 0, "the left phase inverted")
        }
    }

    func testAModulatedMasterGainRampsAndLandsOnItsValue() throws {
        let (engine, ring) = try engine("""
            bpm: 60
            modulations:
              - from: eeg.alpha
                to: master.gain
                to_range: [0, 2]
            voices:
              - {name: click, kind: click, gain: 0.5}
            """)
        ring.producer.push(ControlMessage(frame: 10_000, .bandPower(.alpha, 0.6)))
        let output = Fixtures.run(engine, sizes: [64, 256], periods: 800)
        let heights = Self.clicks(output.left)
        XCTAssertEqual(heights.first?.height, 0.5, "before any EEG")
        XCTAssertTrue(heights.dropFirst().allSatisfy { abs($0.height - 0.6) < 1e-6 }, "\(heights)")
        XCTAssertEqual(engine.handle.modulationReadings.reading(0).destination, 1.2, accuracy: 1e-6)
    }

    func testEverySourceKindDrivesItsDestination() throws {
        let (engine, ring) = try engine("""
            bpm: 60
            modulations:
              - {from: heart.bpm, to: voice.a.gain, from_range: [0, 100], to_range: [0, 1]}
              - {from: pose.spread, to: voice.b.gain, from_range: [0, 4], to_range: [0, 1]}
              - {from: eeg.relaxation, to: voice.c.gain}
              - {from: beat.phase, to: voice.d.pan}
              - {from: heart.rr, to: voice.e.velocity, from_range: [0, 2]}
            voices:
              - {name: a, kind: click}
              - {name: b, kind: click}
              - {name: c, kind: click}
              - {name: d, kind: click}
              - {name: e, kind: click}
            """)
        ring.producer.push(ControlMessage(frame: 100, .pose(leftX: -1, leftY: 0, rightX: 1, rightY: 0)))
        ring.producer.push(ControlMessage(frame: 100, .bandPower(.alpha, 0.3)))
        ring.producer.push(ControlMessage(frame: 100, .bandPower(.beta, 0.1)))
        _ = Fixtures.run(engine, sizes: [256], periods: 500)
        let readings = (0..<5).map { engine.handle.modulationReadings.reading($0) }
        XCTAssertEqual(readings[0].destination, 0.6, accuracy: 1e-6, "60 bpm")
        XCTAssertEqual(readings[1].destination, 0.5, accuracy: 1e-6, "hands 2 apart")
        XCTAssertEqual(readings[2].destination, 0.75, accuracy: 1e-6, "alpha / (alpha + beta)")
        XCTAssertEqual(readings[3].source, Float(500 * 256 % 48_000) / 48_000, accuracy: Float(33) / 48_000, "the phase within the beat")
        XCTAssertEqual(readings[4].destination, 0.5, accuracy: 1e-6, "a 1 s beat")
    }

    func testHeartRateVariabilityIsTheFormulaOnMITBIH208() throws {
        let intervals = try ReferenceVariability.mitBIH208().map { ($0 * 1024).rounded() / 1024 }
        XCTAssertGreaterThan(intervals.count, 300)
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 64)
        let engine = Fixtures.clickEngine(maxFrames: 256, sources: [ring]) { $0.hrvWindowSeconds = 30 }
        var checked = 0
        for (index, interval) in intervals.enumerated() {
            ring.producer.push(ControlMessage(.rrIntervals(RRIntervals([UInt16(interval * 1024)])!)))
            _ = Fixtures.run(engine, sizes: [256], periods: 1)
            let reading = engine.handle.variability.reading(0)
            guard let expected = ReferenceVariability.of(Array(intervals[...index]), window: 30) else {
                XCTAssertNil(reading.rmssd)
                continue
            }
            XCTAssertEqual(reading.rmssd ?? .nan, expected.rmssd, accuracy: 1e-4 * expected.rmssd, "after interval \(index)")
            XCTAssertEqual(reading.sdnn ?? .nan, expected.sdnn, accuracy: 1e-4 * expected.sdnn, "after interval \(index)")
            checked += 1
        }
        XCTAssertGreaterThan(checked, 300)
    }

    /// An RR series with a known breathing rate: respiratory sinus arrhythmia (±40 ms) at each
    /// rate, on a 70 bpm heart with a slow drift and beat-to-beat noise of ±`noise` s (uniform).
    private static func breathingEstimate(breaths: Double, noise: Double, seed: UInt64) -> Double {
        let variability = HeartRateVariability(window: 30)
        var generator = SplitMix64(seed: seed)
        var time = 0.0
        while time < 120 {
            let jitter = (Double(generator.next() % 100_001) / 100_000 * 2 - 1) * noise
            let interval = 60 / 70 + 0.04 * sin(2 * .pi * breaths / 60 * time) + 0.02 * sin(2 * .pi * time / 97) + jitter
            variability.add(interval)
            time += interval
        }
        return variability.breathRate
    }

    func testTheBreathingRateIsFoundInTheIntervals() {
        // The error at each noise level over 6…24 breaths a minute and 10 seeds: stated in the README.
        for noise in [0.015, 0.03, 0.05] {
            var worst = 0.0, sum = 0.0, count = 0.0
            for breaths in [6.0, 9, 12, 15, 18, 24] {
                for seed in 1...10 {
                    let error = abs(Self.breathingEstimate(breaths: breaths, noise: noise, seed: UInt64(seed)) - breaths)
                    worst = max(worst, error)
                    sum += error
                    count += 1
                    if noise == 0.015 { XCTAssertLessThan(error, 0.6, "\(breaths) breaths a minute, noise ±15 ms, seed \(seed)") }
                }
            }
            print(String(format: "breathing estimate, RSA ±40 ms, noise ±%.0f ms: mean error %.2f, worst %.2f breaths/min", noise * 1000, sum / count, worst))
        }
    }

    /// The shipped breathing session (6 breaths a minute, then 15) through the engine as a render
    /// reads it: the estimate at the end of each part, with its error.
    func testTheBreathingSessionsRatesAreFound() throws {
        let session = try SessionSource.load(path: Fixtures.presets.appendingPathComponent("sessions/breathing-rr.csv").path, sampleRate: rate)
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 1024)
        let engine = Fixtures.clickEngine(maxFrames: 256, sources: [ring])
        var pending = session.messages[...]
        var estimates: [Double] = []
        for seconds in [88.0, 178.0] {
            while let message = pending.first, message.frame < Int64(seconds * Double(rate)) {
                XCTAssertTrue(ring.producer.push(message))
                pending = pending.dropFirst()
            }
            while engine.framePosition < Int64(seconds * Double(rate)) { _ = Fixtures.run(engine, sizes: [256], periods: 1) }
            estimates.append(try XCTUnwrap(engine.handle.variability.reading(0).breathRate))
        }
        XCTAssertEqual(estimates[0], 6, accuracy: 0.5)
        XCTAssertEqual(estimates[1], 15, accuracy: 0.5)
        print("breathing-rr.csv: \(estimates[0]) breaths/min (6 breathed), \(estimates[1]) (15 breathed)")
    }

    /// A controller on `midi_in` at its offset in the period, and a hosted instrument's control:
    /// mda ePiano's `modulation` takes the mapped value for the next run, and the controller's
    /// value is applied as a message (what the session log records).
    func testAMIDIControllerMovesAnInstrumentsControl() throws {
        let (engine, _) = try engine("""
            modulations:
              - {from: midi.cc.1, to: voice.piano.control.modulation, to_range: [0.5, 1]}
            voices:
              - {name: piano, kind: lv2, plugin: 'http://drobilla.net/plugins/mda/EPiano', length: 0.1}
            """)
        let piano = try XCTUnwrap(engine.slots[0].instrument)
        let port = try XCTUnwrap(piano.ports.first { $0.symbol == "modulation" }).index
        XCTAssertEqual(piano.controlValues[Int(port)], 0.5, "the plugin's default")
        engine.receiveMIDI(status: 0xB3, key: 1, value: 127, offset: 17)  // channel 4: any channel
        _ = Fixtures.run(engine, sizes: [256], periods: 1)
        XCTAssertEqual(piano.controlValues[Int(port)], 1)
        engine.receiveMIDI(status: 0xB0, key: 1, value: 0, offset: 200)
        engine.receiveMIDI(status: 0xB0, key: 2, value: 99, offset: 201)  // a controller no modulation reads
        _ = Fixtures.run(engine, sizes: [256], periods: 1)
        XCTAssertEqual(piano.controlValues[Int(port)], 0.5)
        XCTAssertEqual(engine.handle.modulationReadings.reading(0).source, 0)
        XCTAssertEqual(engine.handle.counters.value(.messagesApplied), 2, "two controllers applied; the unread one never queued")
    }

    /// A hosted instrument's control moved mid-period takes effect at its frame: the instrument's
    /// run is split there, so renders at any period size agree — within what mda ePiano itself
    /// differs by between block sizes (its LFO steps per run: about 5e-6 here with no
    /// modulation at all), far below what a change moved to its period's start makes.
    func testAnInstrumentsControlChangesAtItsFrameWhateverThePeriod() throws {
        func render(periodFrames: Int, changesAtPeriodStarts: Bool = false) throws -> [Float] {
            let (engine, ring) = try engine("""
                bpm: 100
                modulations:
                  - {from: signal.wheel, to: voice.piano.control.modulation, to_range: [0.5, 1]}
                voices:
                  - {name: piano, kind: lv2, plugin: 'http://drobilla.net/plugins/mda/EPiano', length: 0.4}
                """, maxFrames: periodFrames)
            for index in 0..<20 {
                var frame = 5_000 + index * 17_777
                if changesAtPeriodStarts { frame = frame / periodFrames * periodFrames }
                ring.producer.push(ControlMessage(frame: Int64(frame), .signal(index: 0, Float(index % 5) / 4)))
            }
            return Array(Fixtures.run(engine, sizes: [periodFrames], periods: 400_000 / periodFrames).left.prefix(380_000))
        }
        func difference(_ a: [Float], _ b: [Float]) -> Float { zip(a, b).map { abs($0 - $1) }.max()! }
        let reference = try render(periodFrames: 256)
        XCTAssertGreaterThan(reference.map(abs).max() ?? 0, 0.05, "the ePiano plays")
        for periodFrames in [96, 1024] {
            XCTAssertLessThan(difference(try render(periodFrames: periodFrames), reference), 2e-5, "\(periodFrames)-frame periods")
        }
        let atPeriodStarts = difference(try render(periodFrames: 1024, changesAtPeriodStarts: true), reference)
        XCTAssertGreaterThan(atPeriodStarts, 1e-3, "changes at their periods' starts instead would be heard")
    }

    func testTheMappingCurvesAreTheirFormulas() {
        let exp = ModulationMapping(from: (60, 140), to: (400, 4000), curve: .exp)
        XCTAssertEqual(exp.value(100), 400 * pow(10, 0.5), accuracy: 1e-9)
        XCTAssertEqual(exp.value(20), 400)
        let log = ModulationMapping(from: (0.01, 1), to: (0, 1), curve: .log)
        XCTAssertEqual(log.value(0.1), 0.5, accuracy: 1e-12)
        let smooth = ModulationMapping(from: (0, 1), to: (10, 20), curve: .smooth)
        XCTAssertEqual(smooth.value(0.25), 10 + 10 * (0.0625 * 2.5), accuracy: 1e-12)
        let inverted = ModulationMapping(from: (0, 10), to: (1, 0))
        XCTAssertEqual(inverted.value(2.5), 0.75)
        XCTAssertEqual(ModulationMapping(from: (140, 60), to: (0, 1)).value(120), 0.25, accuracy: 1e-12)
        XCTAssertNotNil(ModulationMapping(from: (0, 1), to: (-1, 1), curve: .exp).problem)
    }
}
