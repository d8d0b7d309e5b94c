import Atomics
import CJack
import Inputs
import Foundation
import Voices
import Realtime
import SoundFiles

/// `run --record OUT.wav`: the process thread copies each period's output into a lock-free
/// ring (jack_ringbuffer, one writer, one reader); a disk thread drains it into a 32-bit float
/// WAV through libsndfile. The ring holds `seconds` of audio, so a slow disk delays the file
/// rather than losing frames; were it ever full, the period is dropped and counted.
// @unchecked: the process thread only writes into the jack_ringbuffer and atomics; the file
// and the disk thread's state are touched by the disk thread alone.
public final class OutputRecorder: @unchecked Sendable {
    public let path: String
    private let file: WavWriter
    private let ring: UnsafeMutablePointer<jack_ringbuffer_t>
    /// Interleaving scratch for the process thread, `maxFrames` stereo frames.
    private let interleavedBlock: FixedBuffer<Float>
    private var interleaved: UnsafeMutablePointer<Float> { interleavedBlock.pointer }
    private let maxFrames: Int
    /// Periods (and their frames) the ring had no room for.
    public let overruns = ManagedAtomic<Int>(0)
    public let framesLost = ManagedAtomic<Int>(0)
    /// Frames the process thread handed over, and frames the disk thread wrote.
    public let framesQueued = ManagedAtomic<Int>(0)
    public private(set) var framesWritten = 0
    private let running = ManagedAtomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private var writeError: String?

    /// Control thread. Creates the file (an error names it) and the ring.
    public init(path: String, sampleRate: Int, maxFrames: Int, seconds: Double = 10) throws {
        file = try WavWriter(path: path, sampleRate: sampleRate)
        self.path = path
        self.maxFrames = maxFrames
        let bytes = Int(seconds * Double(sampleRate)) * 2 * MemoryLayout<Float>.size
        ring = jack_ringbuffer_create(bytes)
        jack_ringbuffer_mlock(ring)
        interleavedBlock = FixedBuffer(capacity: maxFrames * 2, repeating: 0)
    }

    deinit {
        jack_ringbuffer_free(ring)
    }

    /// Frames of output still to leave out: silence was written for a skip that proved false.
    private var framesToDrop = 0

    /// Real-time safe. Queues one period (chunked by `maxFrames`); a full ring drops it, counted.
    public func write(left: UnsafePointer<Float>, right: UnsafePointer<Float>, frames: Int) {
        let dropped = min(framesToDrop, frames)
        framesToDrop -= dropped
        enqueue(frames: frames - dropped, left: left + dropped, right: right + dropped)
    }

    /// Real-time safe. The silence written for `frames` skipped frames was too much (the skip was
    /// wound back): the next `frames` frames of output are left out, so the file keeps JACK's length.
    public func drop(frames: Int) {
        framesToDrop += frames
    }

    /// Real-time safe. Frames JACK moved on without running us: silence in the file, so that the
    /// recording keeps JACK's time (a dropout, never a shift of everything after it).
    public func writeSilence(frames: Int) {
        enqueue(frames: frames, left: nil, right: nil)
    }

    /// Real-time safe. Interleaves (or zeroes) and queues `frames` frames, `maxFrames` at a time.
    private func enqueue(frames: Int, left: UnsafePointer<Float>?, right: UnsafePointer<Float>?) {
        var done = 0
        while done < frames {
            let chunk = min(maxFrames, frames - done)
            let bytes = chunk * 2 * MemoryLayout<Float>.size
            if jack_ringbuffer_write_space(ring) < bytes {
                overruns.wrappingIncrement(ordering: .relaxed)
                framesLost.wrappingIncrement(by: chunk, ordering: .relaxed)
            } else {
                if let left, let right {
                    for frame in 0..<chunk {
                        interleaved[2 * frame] = left[done + frame]
                        interleaved[2 * frame + 1] = right[done + frame]
                    }
                } else {
                    interleaved.update(repeating: 0, count: chunk * 2)
                }
                interleaved.withMemoryRebound(to: CChar.self, capacity: bytes) { _ = jack_ringbuffer_write(ring, $0, bytes) }
                framesQueued.wrappingIncrement(by: chunk, ordering: .relaxed)
            }
            done += chunk
        }
    }

    /// Control thread. Starts the disk thread.
    public func start() {
        running.store(true, ordering: .releasing)
        let thread = Thread { [self] in
            let block = 4096
            let storage = FixedBuffer<Float>(capacity: block * 2, repeating: 0)
            let buffer = storage.pointer
            while true {
                let stopping = !running.load(ordering: .acquiring)
                var drained = false
                while true {
                    let frames = min(jack_ringbuffer_read_space(ring) / (2 * MemoryLayout<Float>.size), block)
                    guard frames > 0 else { break }
                    let bytes = frames * 2 * MemoryLayout<Float>.size
                    buffer.withMemoryRebound(to: CChar.self, capacity: bytes) { _ = jack_ringbuffer_read(ring, $0, bytes) }
                    if writeError == nil {
                        do {
                            try file.write(interleaved: buffer, frames: frames)
                            framesWritten += frames
                        } catch {
                            writeError = "\(error)"
                        }
                    }
                    drained = true
                }
                if stopping { break }
                if !drained { usleep(20_000) }
            }
            file.close()
            finished.signal()
        }
        thread.name = "pulsejack-record"
        thread.start()
    }

    /// Control thread. After the process thread stopped writing: drains the ring, finishes the
    /// file, and reports what was written (or why not).
    public func finish() throws -> Int {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return framesWritten }
        finished.wait()
        if let writeError { throw InputError(file: path, "the recording stopped early: \(writeError)") }
        return framesWritten
    }
}
