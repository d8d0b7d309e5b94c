import CJack
import Foundation
import JackPeers
import TestSupport
import XCTest

/// An ensemble across machines, on one machine: three network namespaces joined by veth pairs
/// (scripts/ensemble-netns.sh), a studio jackd with NetJACK2's netmanager and a timebase
/// pulsejack at 100 BPM, and in each performer's namespace `pulsejack run --start-server net
/// --follow-transport` replaying that performer's session (alice finds the master by multicast,
/// bob by address). A JACK client at the studio captures what both slaves send back.
final class EnsembleNetworkTests: XCTestCase {
    static let sampleRate = 48_000, period = 256

    func testTwoSlavesShareTheStudioGridToTheFrameAndOneRejoinsAfterItsLinkIsCut() throws {
        try TestServer.requireJackd2("NetJACK2 needs PipeWire ≥ 0.3.72's netjack2 modules (0.3.65's libjacknet is a stub)")
        try Subprocess.requirePulsejack()
        guard getuid() == 0, let ip = Subprocess.which("ip") else { throw XCTSkip("network namespaces need root and iproute2's ip") }
        let ensemble = try NetworkEnsemble(ip: ip)
        defer { ensemble.tearDown() }
        let report = try ensemble.play(seconds: 60, cut: 5)
        print("ensemble: " + report.description)
        // Each slave's summary (its xruns and skipped frames), for any failure below.
        let summaries = [report.aliceLog, report.bobLog].map { $0.split(separator: "\n").filter { $0.contains("stopped after") }.joined() }
        print(summaries.joined(separator: "\n"))
        let grid = checkStudioGrid(report)
        for slave in [report.alice, report.bob] {
            let measured = checkRoundTrip(slave, grid: grid, report: report)
            checkPerformer(slave, measured: measured, report: report, summaries: summaries)
        }
        checkBothSlavesShareTheGrid(report, grid: grid, summaries: summaries)
        try checkTheCut(report)

        // Nothing stays behind: no namespace (so no veth or bridge), no jackd, no pulsejack.
        ensemble.tearDown()
        XCTAssertEqual(try ensemble.leftovers(), "")
    }

    /// The path from a slave's frames to the studio's, on the slips of a run under a CPU burner
    /// (alice's grid beats: 8 periods between two beats, 10 between two others, 49 in all).
    func testAPathSlipsAnyWholePeriodsForwardButNeverBack() throws {
        let period: Int64 = 256, constant: Int64 = 45_824
        let fired = (0..<100).map { 7_552 + Int64($0) * 28_800 }
        let slips: [Int64] = Array(repeating: 0, count: 25) + Array(repeating: 1, count: 6) + Array(repeating: 3, count: 9)
            + Array(repeating: 6, count: 15) + Array(repeating: 14, count: 19) + [16, 17, 20, 21, 22, 28, 31, 41, 44, 44] + Array(repeating: 49, count: 16)
        let heard = zip(fired, slips).map { $0 + constant + $1 * period }
        let limit = EnsembleNetworkTests.slipLimit(fired, period: period)
        XCTAssertEqual(limit, 113, "112 periods are 28672 frames, under the 28800 between two beats")
        let path = try XCTUnwrap(EnsembleNetworkTests.path(from: fired, to: heard, period: period, limit: limit))
        XCTAssertEqual(path.constant, constant)
        XCTAssertEqual(path.slips.count, 49)
        XCTAssertEqual(slips.count, fired.count)
        XCTAssertEqual(path.slips.filter { $0 == heard[55] }.count, 8, "the 8 periods slipped before the 56th beat")
        // A beat the ear missed, or one the slave never fired, changes nothing.
        XCTAssertNotNil(EnsembleNetworkTests.path(from: fired, to: heard.enumerated().filter { $0.offset != 50 }.map(\.element), period: period, limit: limit))
        // A beat a period back, or one slipped as far as the limit, has no path.
        var back = heard
        back[60] -= period
        XCTAssertNil(EnsembleNetworkTests.path(from: fired, to: back, period: period, limit: limit))
        var far = heard
        far[99] = fired[99] + constant + limit * period
        XCTAssertNil(EnsembleNetworkTests.path(from: fired, to: far, period: period, limit: limit))
        // One beat a period past the path, the next back on it: late, the path unchanged.
        var late = heard
        late[60] += period
        let withLate = try XCTUnwrap(EnsembleNetworkTests.path(from: fired, to: late, period: period, limit: limit))
        XCTAssertEqual(withLate.late, [late[60]])
        XCTAssertEqual(withLate.slips, path.slips)
        XCTAssertEqual(path.late, [])
        XCTAssertEqual(EnsembleNetworkTests.slipLimit([0, 32_000, 64_000], period: period), 125)
    }

    /// The studio's beats (before the stop), checked on the grid.
    private func checkStudioGrid(_ report: NetworkEnsemble.Report) -> [Int64] {
        // The studio's grid: its own click, every 60·48000/100 frames, never stopping (also while alice's link is cut).
        // Every beat heard is on that grid; a beat may be missing only where a cycle was lost: one
        // the ear was not run for (the test's clients on a loaded machine), or one of the studio's
        // own xruns (a pulse due in a lost cycle is passed over, and counted). With xruns, a beat
        // may also be heard whole periods off the grid, as `LiveGrid.offGrid` allows them (seen
        // once in a full local pass: 1366656 for 1366400, the slaves at 18 and 14 xruns).
        let grid = report.studioBeats.filter { $0 < report.stopFrame }, beat: Int64 = 28_800
        XCTAssertGreaterThan(grid.count, 100)
        let (studioXruns, studioSkipped) = LiveGrid.xruns(in: report.studioLog)
        let studioOffGrid = LiveGrid.offGrid(grid, spacing: beat, period: Int64(Self.period),
                                       lateBudget: Int64(studioSkipped + studioXruns * Self.period))
        XCTAssertNotNil(studioOffGrid, "the studio's beats are not on the 100 BPM grid: \(grid)")
        XCTAssertLessThanOrEqual(studioOffGrid?.count ?? 0, studioXruns,
                                 "studio beats off the grid at \(studioOffGrid ?? []) with \(studioXruns) studio xruns: \(grid)")
        let onGrid = grid.filter { !(studioOffGrid ?? []).contains($0) }
        let missing = stride(from: onGrid.first ?? 0, to: onGrid.last ?? 0, by: Int(beat)).filter { !onGrid.contains($0) }
        let unexplained = missing.filter { frame in !report.studioEarGaps.contains { $0.contains(frame) } }
        XCTAssertLessThanOrEqual(unexplained.count, studioXruns,
                                 "studio beats missing at \(missing); the ear missed \(report.studioEarGaps); \(studioXruns) studio xruns")
        XCTAssertLessThanOrEqual(missing.count, 3, "too many studio beats lost: \(missing)")
        return grid
    }

    /// `slave`'s shared-grid beats heard at the studio before the cut.
    private func checkRoundTrip(_ slave: NetworkEnsemble.Slave, grid: [Int64], report: NetworkEnsemble.Report) -> [Int64] {
        // Every shared-grid beat of the slave lands a round trip of whole periods after the
        // studio's grid beat (its 100 BPM grid, where the studio's ear may have missed the beat
        // itself): NetJACK2's reported latency, over 60 s, never less. Under load the master may
        // take a slave's packet a cycle later (its reply queued behind a late one), from some
        // point on or for a beat or two (CI: 768 ×64, 1024 once, 768 again, alice at 12 xruns
        // and 2304 frames skipped): each change of the round trip is one of the slave's lost
        // cycles, an xrun or a period it skipped.
        let measured = slave.gridBeats.filter { $0 < report.cutFrame }
        XCTAssertGreaterThan(measured.count, 90, "\(slave.name): too few grid beats came back")
        let beat = Int64(28_800), origin = LiveGrid.gridPhase(grid, spacing: 28_800) ?? 0
        let roundTrips = measured.map { heard in ((heard - origin) % beat + beat) % beat }
        let changes = zip(roundTrips.dropFirst(), roundTrips).filter { $0 != $1 }.count
        let (xruns, skipped) = LiveGrid.xruns(in: slave.name == "alice" ? report.aliceLog : report.bobLog)
        XCTAssertTrue(roundTrips.allSatisfy { $0 % Int64(Self.period) == 0 }, "\(slave.name): the round trip is not whole periods: \(Set(roundTrips).sorted())")
        XCTAssertTrue(roundTrips.allSatisfy { $0 >= Int64(slave.reportedLatency) }, "\(slave.name): a round trip under NetJACK2's latency: \(roundTrips)")
        XCTAssertLessThanOrEqual(changes, xruns + skipped / Self.period,
                                 "\(slave.name): grid beats scatter beyond its lost cycles (\(xruns) xruns, \(skipped) frames skipped): \(roundTrips)")
        // NetJACK2's own latencies for the slave's ports at the studio, as JACK reports them.
        XCTAssertEqual(roundTrips.first, Int64(slave.reportedLatency), "\(slave.name): the round trip is not NetJACK2's reported latency")
        if let change = roundTrips.firstIndex(where: { $0 != roundTrips.first }) {
            print("\(slave.name): the round trip first changed to \(roundTrips[change]) frames at \(measured[change])")
        }
        return measured
    }

    /// `slave`'s own performer: on its contract, heard on the grid beats' path, and sent as MIDI.
    private func checkPerformer(_ slave: NetworkEnsemble.Slave, measured: [Int64], report: NetworkEnsemble.Report, summaries: [String]) {
        // The slave's own performer: every beat at its contract frame (the independent
        // reference from the session's tempi, in the slave's engine frames) and heard at the
        // studio on the same path as the slave's grid beats. A beat due in a cycle the slave
        // lost (its frames skipped, in its summary) is passed over, and only such a beat.
        let contract = ReferenceBeats.frames(sampleRate: Self.sampleRate, changes: slave.tempi, end: 200 * 48_000)
        let fired = slave.performerEvents
        XCTAssertGreaterThan(fired.count, 60)
        let relative = fired.map { $0 - fired[0] }
        let due = contract.prefix { $0 <= (relative.last ?? 0) }
        let skipped = LiveGrid.xruns(in: slave.name == "alice" ? report.aliceLog : report.bobLog).skipped
        XCTAssertTrue(Set(due).isSuperset(of: relative), "\(slave.name): performer beats off the contract: \(relative.filter { !due.contains($0) }); \(summaries)")
        XCTAssertLessThanOrEqual(due.count - relative.count, skipped / Self.period,
                                 "\(slave.name): performer beats missing at \(due.filter { !relative.contains($0) }); \(summaries)")
        let heard = slave.performerBeats.filter { $0 < report.cutFrame }
        XCTAssertGreaterThan(heard.count, 60)
        checkSharedPath(slave, fired: fired, heard: heard, measured: measured, report: report, summaries: summaries)

        // MIDI out went through NetJACK2's MIDI channel: a note-on at the studio for every beat
        // heard, where all three of the studio's ears ran (a cycle the MIDI ear was not run for
        // loses its notes to it: CI, alice's beat at 2204928 heard, its note not).
        let earGaps = slave.gridEarGaps + slave.performerEarGaps + slave.midiEarGaps
        func judged(_ frame: Int64) -> Bool {
            frame < report.cutFrame && frame >= report.firstCommonFrame && !earGaps.contains { $0.contains(frame) }
        }
        // A cycle the slave's client at the studio left unfinished leaves its ports as they were:
        // one onset, a note or a beat, may be heard in it that the other channel does not carry
        // (under a burner: a note heard twice, a cycle apart, with its beat the second time).
        let notes = Set(slave.midiNoteOns.filter(judged)), audio = Set((slave.performerBeats + slave.gridBeats).filter(judged))
        XCTAssertLessThanOrEqual(notes.symmetricDifference(audio).count, slave.unfinishedCycles,
                                 "\(slave.name): MIDI notes and audio onsets differ at the studio: notes alone \(notes.subtracting(audio).sorted()), "
                                 + "beats alone \(audio.subtracting(notes).sorted()), with \(slave.unfinishedCycles) cycles its client left unfinished; "
                                 + "the MIDI ear's gaps \(slave.midiEarGaps)")
        XCTAssertGreaterThan(notes.intersection(audio).count, 60, "\(slave.name): notes heard with their beats")
    }

    /// The slave's performer beats and its grid beats, from its frames to the studio's.
    private func checkSharedPath(_ slave: NetworkEnsemble.Slave, fired: [Int64], heard: [Int64], measured: [Int64],
                                 report: NetworkEnsemble.Report, summaries: [String]) {
        // Under load the slave's frames fall whole periods behind the studio's, and never back:
        // NetJACK2's slave lets a master cycle pass uncounted, and does not always report it as
        // an xrun (4 periods with 1 xrun, seen here; under a CPU burner, 8 periods between two
        // grid beats and 49 in 50 s, with 23 periods skipped). The grid beats stay on the
        // studio's grid (`checkRoundTrip`: they follow the master's transport); what the slave
        // plays on its own frames, its performer, arrives that much later from then on. So from
        // the slave's frames to the studio's: one constant plus the periods slipped so far, the
        // same for the performer's beats and the grid's, which take the same path. Besides, the
        // master may take one reply a cycle late (as `checkRoundTrip` allows): a beat a period
        // behind the path, the next one back on it, is late, once for each of the slave's lost
        // cycles or the cycles its client at the studio left unfinished (under a burner: bob's
        // beat at 1399631, at 12 xruns and 18 periods skipped).
        let period = Int64(Self.period)
        let (xruns, skipped) = LiveGrid.xruns(in: slave.name == "alice" ? report.aliceLog : report.bobLog)
        let lost = xruns + skipped / Self.period + slave.unfinishedCycles
        let performerLimit = Self.slipLimit(fired, period: period), gridLimit = Self.slipLimit(slave.gridEvents, period: period)
        let paths = [Self.path(from: fired, to: heard, period: period, limit: performerLimit),
                     Self.path(from: slave.gridEvents, to: measured, period: period, limit: gridLimit),
                     Self.path(from: [fired, slave.gridEvents], to: [heard, measured], period: period, limit: min(performerLimit, gridLimit))]
        XCTAssertNotNil(paths[0], "\(slave.name): performer beats scatter at the studio: \(Self.offsets(from: fired, to: heard)); \(summaries)")
        XCTAssertNotNil(paths[1], "\(slave.name): grid beats scatter at the studio: \(Self.offsets(from: slave.gridEvents, to: measured)); \(summaries)")
        XCTAssertNotNil(paths[2], "\(slave.name): performer beats and grid beats take different paths: the performer's \(paths[0].map { "\($0)" } ?? "none"), "
                        + "the grid's \(paths[1].map { "\($0)" } ?? "none"); \(summaries)")
        for path in paths.compactMap({ $0 }) {
            XCTAssertLessThanOrEqual(path.late.count, lost, "\(slave.name): beats a period late at \(path.late), beyond its \(lost) lost cycles; \(summaries)")
        }
        if let both = paths[2], !both.slips.isEmpty || !both.late.isEmpty {
            print("\(slave.name): its frames slipped a period behind the studio's at \(both.slips); a beat was a period late at \(both.late)")
        }
    }

    private func checkBothSlavesShareTheGrid(_ report: NetworkEnsemble.Report, grid: [Int64], summaries: [String]) {
        // Both slaves' shared-grid beats coincide at the studio, to the frame, where both ears ran:
        // each is the studio's grid beat plus its round trip, NetJACK2's latency but around the
        // cycles that slave lost (`checkRoundTrip`), so most coincide. A grid beat due in a cycle
        // one slave lost is passed over there: heard from the other only, and only such a beat.
        let window = report.firstCommonFrame..<report.cutFrame
        let earGaps = report.alice.gridEarGaps + report.bob.gridEarGaps
        let origin = LiveGrid.gridPhase(grid, spacing: 28_800) ?? 0, beat = Int64(28_800)
        func byBeat(_ heard: [Int64]) -> [Int64: Int64] {
            let judged = heard.filter { frame in window.contains(frame) && !earGaps.contains { $0.contains(frame) } }
            return Dictionary(judged.map { (($0 - origin) / beat, $0) }) { first, _ in first }
        }
        let (alice, bob) = (byBeat(report.alice.gridBeats), byBeat(report.bob.gridBeats))
        let coincide = Set(alice.keys).intersection(bob.keys).filter { alice[$0] == bob[$0] }
        XCTAssertGreaterThan(coincide.count, 60, "grid beats at the same frame from both slaves; \(summaries)")
        let lost = [report.aliceLog, report.bobLog].map { LiveGrid.xruns(in: $0) }.reduce(0) { $0 + $1.xruns + $1.skipped / Self.period }
        let oneOnly = Set(alice.keys).symmetricDifference(bob.keys).map { alice[$0] ?? bob[$0] ?? 0 }.sorted()
        XCTAssertLessThanOrEqual(oneOnly.count, lost, "grid beats heard from one slave only: \(oneOnly); \(summaries)")
    }

    private func checkTheCut(_ report: NetworkEnsemble.Report) throws {
        // The cut: bob played on through it, alice came back on the grid, and said so.
        let during = report.cutFrame..<report.mendFrame
        XCTAssertGreaterThanOrEqual(report.bob.gridBeats.filter(during.contains).count, 7, "bob stopped while alice's link was cut")
        XCTAssertTrue(report.alice.gridBeats.filter(during.contains).count <= 3, "alice kept sounding with her link cut")
        let rejoin = try XCTUnwrap(report.rejoinSeconds, "alice never came back on the grid")
        XCTAssertLessThan(rejoin, 15)
        // Until the slaves are stopped (one after the other: then one may still play alone).
        let backOnGrid = report.alice.gridBeats.filter { $0 > report.mendFrame && $0 < report.stopFrame }
        XCTAssertGreaterThanOrEqual(backOnGrid.count, 6)
        let offGrid = backOnGrid.filter { beat in !report.bob.gridBeats.contains(beat) && !report.bob.gridEarGaps.contains { $0.contains(beat) } }
        XCTAssertEqual(offGrid, [], "alice came back off the grid (bob's ear missed \(report.bob.gridEarGaps))")
        XCTAssertTrue(report.aliceStatus.contains("cycle_stalls           1"), report.aliceStatus)
        XCTAssertTrue(report.aliceStatus.contains("grid                   following"), report.aliceStatus)
        XCTAssertTrue(report.aliceLog.contains("the NetJACK2 link to the master is down"), report.aliceLog)
        XCTAssertTrue(report.aliceLog.contains("(the NetJACK2 master is back)"), report.aliceLog)
    }

    /// For a failure: the offsets from fired to heard in order, as (first heard frame, offset to
    /// the latest fired frame before it, beats).
    static func offsets(from fired: [Int64], to heard: [Int64]) -> [(Int64, Int64, Int)] {
        var found: [(Int64, Int64, Int)] = []
        for beat in heard {
            let offset: Int64 = fired.map { beat - $0 }.filter { $0 >= 0 }.min() ?? -1
            if let last = found.last, last.1 == offset { found[found.count - 1].2 += 1 } else { found.append((beat, offset, 1)) }
        }
        return found
    }

    typealias Path = (constant: Int64, slips: [Int64], late: [Int64])

    /// The one offset c, the heard frames where one more period was added to it, and those
    /// heard a period behind it once, with every heard frame = some fired frame + c + (periods
    /// slipped so far) · period, or one period more for a late one; nil when none fits. Any
    /// number of periods may slip between two heard beats (a stalled slave loses as many cycles
    /// as the stall is long), but never back, and fewer than `limit` in all. A beat one period
    /// past the path, with the next heard beat back on it, is late and leaves the path as it was.
    static func path(from fired: [Int64], to heard: [Int64], period: Int64, limit: Int64) -> Path? {
        path(from: [fired], to: [heard], period: period, limit: limit)
    }

    /// One path for several streams (the performer's channel, the grid's): each heard beat
    /// comes from a fired beat of its own stream.
    static func path(from fired: [[Int64]], to heard: [[Int64]], period: Int64, limit: Int64) -> Path? {
        let beats = heard.enumerated().flatMap { stream, frames in frames.map { (frame: $0, stream: stream) } }.sorted { $0.frame < $1.frame }
        guard let first = beats.first else { return nil }
        let firedSets = fired.map { Set($0) }
        for constant in fired[first.stream].map({ first.frame - $0 }) {
            var slipped: Int64 = 0, slips: [Int64] = [], late: [Int64] = [], fits = true
            func onPath(_ index: Int, _ periods: Int64) -> Bool {
                firedSets[beats[index].stream].contains(beats[index].frame - constant - periods * period)
            }
            for index in beats.indices {
                guard let more = (0..<max(0, limit - slipped)).first(where: { onPath(index, slipped + $0) }) else {
                    fits = false
                    break
                }
                if more == 1, index + 1 < beats.count, onPath(index + 1, slipped) {
                    late.append(beats[index].frame)
                    continue
                }
                slips += Array(repeating: beats[index].frame, count: Int(more))
                slipped += more
            }
            if fits { return (constant, slips, late) }
        }
        return nil
    }

    /// The periods a path may slip in all, fewer than the closest two fired beats are apart: so
    /// each heard beat has one fired beat it can come from.
    static func slipLimit(_ fired: [Int64], period: Int64) -> Int64 {
        let sorted = fired.sorted()
        let closest = zip(sorted.dropFirst(), sorted).map { $0 - $1 }.filter { $0 > 0 }.min() ?? 0
        return (closest + period - 1) / period
    }
}
