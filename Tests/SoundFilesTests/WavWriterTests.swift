import Foundation
import TestSupport
import XCTest
@testable import SoundFiles

/// The WAV files `render --out` and `run --record` write, read back by sox and scipy.
final class WavWriterTests: XCTestCase {
    private func temporary(_ name: String) -> String {
        NSTemporaryDirectory() + "pulsejack-wav-\(getpid())-\(name)"
    }

    func testAShortFileIsAPlainFinishedWav() throws {
        let path = temporary("short.wav")
        defer { unlink(path) }
        let writer = try WavWriter(path: path, sampleRate: 48_000)
        let ramp = (0..<1000).map { Float($0) / 1000 }
        try ramp.withUnsafeBufferPointer { try writer.write(left: $0.baseAddress!, right: $0.baseAddress!, frames: 1000) }
        writer.close()
        let head = try XCTUnwrap(FileHandle(forReadingAtPath: path)).readData(ofLength: 4)
        XCTAssertEqual(String(decoding: head, as: UTF8.self), "RIFF", "auto-downgraded: short files stay plain WAV")
        XCTAssertEqual(try IndependentWav.read(path), IndependentWav.Reading(soxFrames: 1000, scipyFrames: 1000, scipyChannels: 2, sampleRate: 48_000))
    }

    /// Past 4 GiB a RIFF header's sizes wrap (a 33 GB render read as 389 M frames): the file
    /// must become RF64 and say its true length.
    func testAFileOver4GiBIsRF64WithItsTrueLength() throws {
        // In memory (tmpfs) where there is one: 4 GiB written in seconds, and no disk left full.
        let folder = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm/" : NSTemporaryDirectory()
        let path = folder + "pulsejack-wav-\(getpid())-long.wav"
        defer { unlink(path) }
        let chunk = 1 << 20
        let chunks = 514  // 538,968,064 frames, 4.01 GiB of stereo float
        let silence = [Float](repeating: 0, count: 2 * chunk)
        let writer = try WavWriter(path: path, sampleRate: 48_000)
        for _ in 0..<chunks { try silence.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frames: chunk) } }
        writer.close()
        let head = try XCTUnwrap(FileHandle(forReadingAtPath: path)).readData(ofLength: 4)
        XCTAssertEqual(String(decoding: head, as: UTF8.self), "RF64")
        let frames = chunk * chunks
        XCTAssertGreaterThan(frames * 8, 1 << 32)
        // The header's own sizes against the file's length (our reader), and scipy where its
        // version reads RF64 (1.12 on; Debian 12 has 1.10). sox reads RF64 too, but takes 30 s
        // to count 4 GiB, so it reads the short files only.
        XCTAssertNoThrow(try IndependentWav.checkHeader(path))
        XCTAssertEqual(try IndependentWav.headerFrames(path), frames)
        if let scipy = try IndependentWav.scipy(path) {
            XCTAssertEqual(scipy.frames, frames)
            XCTAssertEqual(scipy.channels, 2)
        }
    }
}
