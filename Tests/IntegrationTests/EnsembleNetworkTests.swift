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
        // Under load the slave's frames fall whole periods behind the studio's, a period at a
        // time and never back: NetJACK2's slave lets a master cycle pass uncounted, and does not
        // always report it as an xrun (4 periods with 1 xrun, seen here). The grid beats stay on
        // the studio's grid (above: they follow the master's transport); what the slave plays on
        // its own frames, its performer, arrives that much later from then on. So from the
        // slave's frames to the studio's: one constant plus the periods slipped so far, the same
        // for the performer's beats and the grid's, which take the same path.
        let period = Int64(Self.period)
        let performerPath = Self.path(from: fired, to: heard, period: period)
        let gridPath = Self.path(from: slave.gridEvents, to: measured, period: period)
        XCTAssertNotNil(performerPath, "\(slave.name): performer beats scatter at the studio: \(Self.offsets(from: fired, to: heard)); \(summaries)")
        XCTAssertNotNil(gridPath, "\(slave.name): grid beats scatter at the studio: \(Self.offsets(from: slave.gridEvents, to: measured)); \(summaries)")
        let both = Self.path(from: fired + slave.gridEvents, to: (heard + measured).sorted(), period: period)
        XCTAssertNotNil(both, "\(slave.name): performer beats and grid beats take different paths")
        if let both, !both.slips.isEmpty { print("\(slave.name): its frames slipped a period behind the studio's at \(both.slips)") }

        // MIDI out went through NetJACK2's MIDI channel: a note-on at the studio for every beat
        // heard, where all three of the studio's ears ran (a cycle the MIDI ear was not run for
        // loses its notes to it: CI, alice's beat at 2204928 heard, its note not).
        let earGaps = slave.gridEarGaps + slave.performerEarGaps + slave.midiEarGaps
        func judged(_ frame: Int64) -> Bool {
            frame < report.cutFrame && frame >= report.firstCommonFrame && !earGaps.contains { $0.contains(frame) }
        }
        let notes = Set(slave.midiNoteOns.filter(judged)), audio = Set((slave.performerBeats + slave.gridBeats).filter(judged))
        XCTAssertEqual(notes, audio, "\(slave.name): MIDI notes and audio onsets differ at the studio: notes alone \(notes.subtracting(audio).sorted()), "
                       + "beats alone \(audio.subtracting(notes).sorted()); the MIDI ear's gaps \(slave.midiEarGaps)")
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

    /// The one offset c, and the heard frames where one more period was added to it, with every
    /// heard frame = some fired frame + c + (periods slipped so far) · period; nil when none fits.
    static func path(from fired: [Int64], to heard: [Int64], period: Int64) -> (constant: Int64, slips: [Int64])? {
        guard let first = heard.first else { return nil }
        let firedSet = Set(fired)
        for constant in fired.map({ first - $0 }) {
            var slipped: Int64 = 0, slips: [Int64] = [], fits = true
            for beat in heard {
                guard let more = (0...4).first(where: { firedSet.contains(beat - constant - (slipped + Int64($0)) * period) }) else {
                    fits = false
                    break
                }
                slips += Array(repeating: beat, count: more)
                slipped += Int64(more)
            }
            if fits { return (constant, slips) }
        }
        return nil
    }
}
