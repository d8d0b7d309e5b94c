import CAllocCounter
import CJack
import Inputs
import Foundation
import TestSupport
import XCTest
import Realtime
@testable import Engine
@testable import Presets

/// The shared grid without a network: a leading engine's grid beats (what `grid_out` sends) are
/// its ensemble heart's contract beats with their positions; a following engine fires its
/// ensemble voices exactly at the grid beats it is given, its `every: 4` voice on the leader's
/// bar, while its performers keep their own hearts.
final class SharedGridTests: XCTestCase {
    private static let preset = """
        performers: [alice, bob]
        ensemble: {tempo: mean}
        voices:
          - {name: own, kind: click, heart: alice}
          - {name: group, kind: click, heart: ensemble}
          - {name: bar, kind: click, heart: ensemble, every: 4}
        """

    /// An engine of the preset, leading or following the grid, with tempo messages (frame,
    /// performer, BPM) waiting in a ring of its own.
    private func engine(firedInto ring: SPSCRing<FiredVoice>, sendsGrid: Bool = false, followsGrid: Bool = false,
                        tempi: [(frame: Int64, performer: UInt8, bpm: Double)]) throws -> RealtimeEngine {
        let temporary = try TemporaryFolder("grid")
        defer { temporary.remove() }
        let folder = temporary.url
        try Self.preset.write(to: folder.appendingPathComponent("preset.yaml"), atomically: true, encoding: .utf8)
        let tempoRing = SPSCRing<ControlMessage>(minimumCapacity: 64)
        for tempo in tempi { tempoRing.producer.push(ControlMessage(frame: tempo.frame, performer: tempo.performer, .tempo(bpm: tempo.bpm))) }
        return try EngineGraph.build(preset: LoadedPreset.load(path: folder.path), sampleRate: 48_000, maxFrames: 256) {
            $0.firedReports = ring
            $0.sources = [tempoRing]
            $0.sendsGrid = sendsGrid
            $0.followsGrid = followsGrid
        }
    }

    func testTheSongPositionPointerCarriesTheBeatAndWrapsOnABarAndEveryRate() {
        for beat: Int64 in [0, 1, 3, 4, 127, 4095, 4096, 4097, 10_000] {
            let (status, lsb, msb) = SharedGrid.message(beat: beat)
            XCTAssertEqual(status, 0xF2)
            XCTAssertEqual(SharedGrid.beat(status: status, lsb: lsb, msb: msb), beat % 4096)
        }
        XCTAssertEqual(4096 % 16, 0)
        XCTAssertNil(SharedGrid.beat(status: 0x90, lsb: 1, msb: 2))
    }

    func testTheLeaderSendsItsEnsembleBeatsAndTheFollowerPlaysThemToTheFrame() throws {
        let leader = try engine(firedInto: SPSCRing<FiredVoice>(minimumCapacity: 4096), sendsGrid: true,
                                tempi: [(0, 0, 70), (0, 1, 90), (480_000, 1, 110)])
        let left = UnsafeMutablePointer<Float>.allocate(capacity: 256), right = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        defer { left.deallocate(); right.deallocate() }
        var sent: [(frame: Int64, beat: Int64)] = []
        for _ in 0..<(48_000 * 20 / 256) {
            leader.process(frames: 256, left: left, right: right)
            for index in 0..<leader.hearts.grid.outCount { sent.append((leader.hearts.grid.outFrames[index], leader.hearts.grid.outBeats[index])) }
        }
        // The grid is the ensemble heart's contract: the mean tempo, 80 then 90 BPM (reference computed independently).
        let reference = ReferenceBeats.frames(sampleRate: 48_000, changes: [(0, 80), (480_000, 90)], end: 48_000 * 20)
        XCTAssertEqual(sent.map(\.frame), reference)
        XCTAssertEqual(sent.map(\.beat), Array(0..<Int64(reference.count)))

        // The follower: the grid arrives at other frames (a network's constant latency, and it joined at beat 2).
        let followerFired = SPSCRing<FiredVoice>(minimumCapacity: 4096)
        // The ensemble's mean (111) is not its tempo now.
        let follower = try engine(firedInto: followerFired, followsGrid: true, tempi: [(0, 0, 72), (0, 1, 150)])
        let latency: Int64 = 768
        var pending = sent.dropFirst(2).map { (frame: $0.frame + latency, beat: $0.beat) }[...]
        var periodStart: Int64 = 0
        for _ in 0..<(48_000 * 21 / 256) {
            while let next = pending.first, next.frame < periodStart + 256 {
                follower.receiveGridBeat(position: next.beat, offset: Int(next.frame - periodStart))
                pending = pending.dropFirst()
            }
            follower.process(frames: 256, left: left, right: right)
            periodStart += 256
        }
        var fired: [String: [Int64]] = [:]
        while let report = followerFired.consumer.pop() { fired[follower.handle.voiceNames[Int(report.voice)], default: []].append(report.frame) }
        let grid = sent.dropFirst(2).map { $0.frame + latency }
        XCTAssertEqual(fired["group"], grid, "the follower's ensemble voice is off the grid")
        XCTAssertEqual(fired["bar"], sent.filter { $0.beat >= 2 && $0.beat % 4 == 0 }.map { $0.frame + latency }, "every: 4 is not on the leader's bar")
        XCTAssertEqual(fired["own"], ReferenceBeats.frames(sampleRate: 48_000, changes: [(0, 72)], end: 48_000 * 21 / 256 * 256),
                       "alice's own voice left her heart")
        XCTAssertEqual(follower.handle.gridBeatsReceived, grid.count)
        XCTAssertEqual(follower.handle.lastGridBeatFrame, grid.last)
    }

    func testLeadingAndFollowingTheGridAllocateNothingOnTheProcessThread() throws {
        guard pj_alloc_counter_live() != 0 else { throw XCTSkip("the allocation counter is left out under ThreadSanitizer") }
        let ring = SPSCRing<FiredVoice>(minimumCapacity: 8192)
        let leader = try engine(firedInto: ring, sendsGrid: true, tempi: [(0, 0, 240), (0, 1, 260)])
        let follower = try engine(firedInto: ring, followsGrid: true, tempi: [])
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 512)
        defer { buffer.deallocate() }
        leader.warmUp()
        follower.warmUp()
        pj_rt_counters_reset()
        for _ in 0..<2000 {
            leader.process(frames: 256, left: buffer, right: buffer + 256)
            // What grid_out carries goes straight to the follower's grid_in, in the same cycle.
            ProcessThread.enter()
            for index in 0..<leader.hearts.grid.outCount {
                let (status, lsb, msb) = SharedGrid.message(beat: leader.hearts.grid.outBeats[index])
                if let beat = SharedGrid.beat(status: status, lsb: lsb, msb: msb) {
                    follower.receiveGridBeat(position: beat, offset: Int(leader.hearts.grid.outFrames[index] - (leader.framePosition - 256)))
                }
            }
            ProcessThread.exit()
            follower.process(frames: 256, left: buffer, right: buffer + 256)
            while ring.consumer.pop() != nil {}
        }
        XCTAssertEqual(pj_rt_allocation_count(), 0, RealtimeAllocationTrace.first)
        XCTAssertEqual(pj_rt_lock_count(), 0)
        XCTAssertEqual(follower.handle.gridBeatsReceived, 45, "10.7 s at 250 BPM: 45 beats from frame 0")
    }
}
