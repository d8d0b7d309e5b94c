import Foundation
import Inputs
import Realtime
import TestSupport
import XCTest
@testable import LSL

/// What a hostile or broken stream says, offline (no liblsl): a declared rate or channel count no
/// stream has is refused at opening, a sample's NaN, infinite or absurd value is refused and
/// counted, a stamp far from now is refused, a frame that is no number never traps, and an EEG
/// stream too wide for band powers is one line that says what to do; the lab's lsl_api.cfg is
/// read as liblsl reads it, and liblsl's log lines become pulsejack's.
final class LSLHostileStreamTests: XCTestCase {
    private let rate = 48_000

    private func reader(_ role: LSLStreamQuery.Role, _ info: LSLStreamInfo, signals: [String] = []) throws -> LSLSampleReader {
        var configuration = LSLInput.Configuration()
        (configuration.voices, configuration.signals) = (["click"], signals)
        return try LSLSampleReader(query: LSLStreamQuery(role: role, name: info.name), info: info, configuration: configuration, engineRate: rate)
    }

    func testADeclarationNoStreamHasIsRefusedAtOpening() {
        for (rate, channels, expected) in [(Double.nan, 1, "declares a rate of nan Hz"), (.infinity, 1, "declares a rate of inf Hz"),
                                           (1e300, 1, "declares a rate of 1e+300 Hz"), (-5, 1, "declares a rate of -5.0 Hz"),
                                           (256, 0, "declares 0 channels"), (256, 100_000, "declares 100000 channels")] {
            let info = LSLStreamInfo(name: "bad", type: "EEG", rate: rate, channelCount: channels, isText: false)
            XCTAssertThrowsError(try reader(.eeg, info)) { XCTAssertTrue("\($0)".contains(expected), "\($0)") }
        }
        let wide = LSLStreamInfo(name: "wide", type: "EEG", rate: 256, channelCount: 1000, isText: false)
        XCTAssertThrowsError(try reader(.eeg, wide)) { error in
            XCTAssertTrue("\(error)".contains("too wide for band powers: 1000 EEG channels at 256 Hz"), "\(error)")
            XCTAssertTrue("\(error)".contains("lsl:wide,channel=LABEL"), "\(error)")
        }
        XCTAssertNoThrow(try reader(.eeg, LSLStreamInfo(name: "cap", type: "EEG", rate: 256, channelCount: 64, isText: false)))
    }

    /// Intervals, an ECG and a signal: each row with a NaN, an infinity or 1e38 in a channel in use
    /// is refused and counted; the good rows still make their beats and values.
    func testNonFiniteAndAbsurdValuesAreRefusedAndCounted() throws {
        let bad: [Double] = [.nan, .infinity, -.infinity, 1e38]
        let intervals = try reader(.heart, LSLStreamInfo(name: "rr", type: "RR", rate: 0, channelCount: 1, isText: false, units: ["ms"]))
        let rows = ([800.0] + bad + [800.0]).map { [$0] }
        let made = intervals.read(rows: rows, texts: [], frames: rows.indices.map { 100_000 + Double($0) * 38_400 }, now: 0)
        XCTAssertEqual(intervals.badValues, 4)
        XCTAssertEqual(made.beats, 2)
        XCTAssertNotNil(made.problem)

        let ecg = try reader(.heart, LSLStreamInfo(name: "ecg", type: "ECG", rate: 360, channelCount: 1, isText: false))
        let trace = (0..<3600).map { sin(Double($0) / 10) }
        var samples = trace.map { [$0] }
        for (index, value) in bad.enumerated() { samples[500 + index * 700] = [value] }
        _ = ecg.read(rows: samples, texts: [], frames: trace.indices.map { Double($0) * 48_000 / 360 }, now: 0)
        XCTAssertEqual(ecg.badValues, 4)

        let signal = try reader(.signals, LSLStreamInfo(name: "belt", type: "Level", rate: 0, channelCount: 2, isText: false, labels: ["a", "level"]),
                                signals: ["lsl.belt.level"])
        let levels = [[0.0, 0.5], [0.0, .nan], [.nan, 0.25]]
        let sent = signal.read(rows: levels, texts: [], frames: [0, 10_000, 20_000], now: 0).messages.compactMap { message -> Float? in
            guard case .signal(_, let value) = message.event else { return nil }
            return value
        }
        XCTAssertEqual(sent, [0.5, 0.25], "a NaN in the channel in use refuses its row; one in a channel no modulation reads does not")
        XCTAssertEqual(signal.badValues, 1)
    }

    /// A marker stamped NaN, ±Inf or ~1e15 s ahead is never a frame: `due` plays it at once (late)
    /// rather than trapping (the inlet refuses such stamps before they get here: `acceptsStamp`).
    func testAFrameThatIsNoNumberPlaysAtOnce() throws {
        let markers = try reader(.markers, LSLStreamInfo(name: "m", type: "Markers", rate: 0, channelCount: 1, isText: true))
        let made = markers.read(rows: [], texts: Array(repeating: "voice/click", count: 4), frames: [.nan, .infinity, -.infinity, 1e15 * 48_000], now: 1000)
        XCTAssertEqual(made.messages.map(\.frame), Array(repeating: ControlMessage.immediate, count: 4))
        XCTAssertEqual(markers.late, 4)
        let now = 5_000.0
        for stamp in [Double.nan, .infinity, -.infinity, now + 1e15, now - 1e9, now + 61, now - 3601] {
            XCTAssertFalse(LSLInletLink.acceptsStamp(stamp, now: now), "\(stamp)")
        }
        for stamp in [now, now + 59, now - 3599] { XCTAssertTrue(LSLInletLink.acceptsStamp(stamp, now: now), "\(stamp)") }
    }

    /// liblsl's search order, its INI rules (a key twice, a line without `=`, `;` comments), and
    /// what pulsejack adds: only the log settings the lab left out.
    func testTheLabsConfigurationIsKeptAndOnlyTheLogIsAdded() throws {
        let folder = try TemporaryFolder("lsl-config")
        defer { folder.remove() }
        try FileManager.default.createDirectory(atPath: folder.file("home/lsl_api"), withIntermediateDirectories: true)
        try "[lab]\nSessionID = home\n".write(toFile: folder.file("home/lsl_api/lsl_api.cfg"), atomically: true, encoding: .utf8)
        try "; the lab's\n[lab]\nSessionID = ours\nResolveScope = machine\n".write(toFile: folder.file("env.cfg"), atomically: true, encoding: .utf8)
        let environment = ["HOME": folder.file("home"), "LSLAPICFG": folder.file("env.cfg")]
        XCTAssertEqual(LSLConfiguration.labFile(environment: environment, currentDirectory: folder.path), folder.file("env.cfg"))
        XCTAssertEqual(LSLConfiguration.labFile(environment: ["HOME": folder.file("home")], currentDirectory: folder.path),
                       folder.file("home/lsl_api/lsl_api.cfg"))
        let lab = LSLConfiguration.lab(environment: environment, currentDirectory: folder.path)
        XCTAssertNil(lab.problem)
        let content = lab.content(logFile: "/proc/self/fd/9")
        XCTAssertTrue(content.hasPrefix("; the lab's\n[lab]\nSessionID = ours\nResolveScope = machine\n"), content)
        XCTAssertEqual(try LSLConfiguration.keys(content), ["lab.SessionID", "lab.ResolveScope", "log.level", "log.file"])
        XCTAssertTrue(content.hasSuffix("[log]\nlevel = -1\nfile = /proc/self/fd/9\n"), content)
        // The lab's own log settings stay the lab's.
        let own = LSLConfiguration(file: nil, text: "[log]\nlevel = 2\nfile = /var/log/lsl.log\n")
        XCTAssertEqual(own.content(logFile: "/proc/self/fd/9"), own.text)
        XCTAssertFalse(own.logsThroughPulsejack)
        // A file liblsl would refuse: named by its line; liblsl's defaults then.
        try "[lab]\nSessionID = a\nSessionID = b\n".write(toFile: folder.file("twice.cfg"), atomically: true, encoding: .utf8)
        let twice = LSLConfiguration.lab(environment: ["LSLAPICFG": folder.file("twice.cfg")], currentDirectory: folder.path)
        XCTAssertEqual(twice.problem, folder.file("twice.cfg") + ":3: 'lab.SessionID' is set twice; liblsl uses its defaults")
        XCTAssertEqual(twice.text, "")
        XCTAssertThrowsError(try LSLConfiguration.keys("[lab\n")) { XCTAssertEqual(($0 as? LSLConfiguration.SyntaxError)?.line, 1) }
        XCTAssertThrowsError(try LSLConfiguration.keys("[lab]\nSessionID\n")) { XCTAssertEqual(($0 as? LSLConfiguration.SyntaxError)?.line, 2) }
    }

    /// loguru's lines (as liblsl writes them to its log file) said as pulsejack's, without the columns.
    func testLiblslsLogLinesBecomePulsejacksOwn() {
        XCTAssertEqual(LSLLogRelay.message("2026-11-29 10:03:23.464 (   0.001s) [R_pj-ecg        ]   data_receiver.cpp:340    ERR| Stream transmission broke off"),
                       "liblsl error: Stream transmission broke off")
        XCTAssertEqual(LSLLogRelay.message("2026-11-29 10:03:23.464 (   0.001s) [        2824C000]  netinterfaces.cpp:91   WARN| Couldn't bind"),
                       "liblsl warning: Couldn't bind")
        XCTAssertEqual(LSLLogRelay.message("2026-11-29 10:03:23.464 (   0.001s) [        2824C000]     api_config.cpp:146   INFO| Configuration loaded"),
                       "liblsl: Configuration loaded")
        XCTAssertNil(LSLLogRelay.message("date       time         ( uptime  ) [ thread name/id ]                   file:line     v| "))
        XCTAssertNil(LSLLogRelay.message("arguments: pulsejack"))
    }
}
