import UserFiles
import Atomics
import CJack
import Foundation
import Voices
import Realtime
import SoundFiles

/// `run --record OUT.wav`: the process thread copies each period's output into a lock-free
/// ring (jack_ringbuffer, one writer, one reader); a disk thread drains it into a 32-bit float
/// WAV through libsndfile. The ring holds `seconds` of audio, so a slow disk delays the file
/// rather than losing frames; were it ever full, the period is dropped and counted. In freewheel
/// (JACK runs the graph as fast as it can, without real-time deadlines, and allows the process
/// callback to block) a full ring is waited on instead, so a freewheeled take keeps every frame.
///
/// Three owners: the process thread writes through its one `Writer`, the disk thread holds the
/// file (inside `disk`'s lock, which only it and `finish` take), other threads read the atomics.
public final class OutputRecorder: Sendable {
    public let path: String
    private let ring: FrameRing
    private let maxFrames: Int
    /// Periods (and their frames) the ring had no room for.
    public let overruns = ManagedAtomic<Int>(0)
    public let framesLost = ManagedAtomic<Int>(0)
    /// Frames the process thread handed over.
    public let framesQueued = ManagedAtomic<Int>(0)
    private let disk: LockedBox<Disk>
    private let running = ManagedAtomic<Bool>(false)
    /// Set by JACK's freewheel callback: a full ring is waited on, not dropped. Shared by every
    /// take of a run (the client's flag).
    public let freewheeling: ManagedAtomic<Bool>
    /// Set when the take is being finished: the process thread hands over nothing more.
    private let sealed = ManagedAtomic<Bool>(false)
    /// How long a freewheeling process thread waits for the disk before dropping a block.
    static let freewheelPatienceMicroseconds = 10_000_000
    private let finished = DispatchSemaphore(value: 0)
    /// The disk thread sleeps on it; the process thread rings it when the ring holds a disk
    /// block, and `finish` to have the rest drained.
    private let doorbell = Doorbell()
    /// Frames the disk thread writes at once (about 85 ms at 48 kHz: 12 wakes a second).
    static let diskBlock = 4096
    /// Bytes in the ring that wake the disk thread: a disk block, or a quarter of a smaller ring
    /// (`--record-buffer 0.05` holds only 2400 frames).
    private let wakeBytes: Int

    /// The disk thread's side: the file, what reached it, and why it stopped if it did.
    private struct Disk {
        let file: WavWriter
        var framesWritten = 0
        var writeError: String?
    }

    /// Control thread. Creates the file (an error names it) and the ring.
    /// `freewheeling`: the flag JACK's freewheel callback sets (`JackClient.freewheelFlag`).
    public init(path: String, sampleRate: Int, maxFrames: Int, seconds: Double = 10,
                freewheeling: ManagedAtomic<Bool> = ManagedAtomic(false)) throws {
        self.freewheeling = freewheeling
        disk = LockedBox(Disk(file: try WavWriter(path: path, sampleRate: sampleRate)))
        self.path = path
        self.maxFrames = maxFrames
        let bytes = Int(seconds * Double(sampleRate)) * 2 * MemoryLayout<Float>.size
        ring = FrameRing(bytes: bytes)
        wakeBytes = max(min(Self.diskBlock * 2 * MemoryLayout<Float>.size, bytes / 4), 2 * MemoryLayout<Float>.size)
    }

    /// Control thread, before activation: the process thread's end. Make one.
    public func makeWriter() -> Writer { Writer(recorder: self) }

    /// The process thread's end: its interleaving scratch and what it still has to leave out.
    public final class Writer {
        private let recorder: OutputRecorder
        private let ring: FrameRing
        private let maxFrames: Int
        /// Interleaving scratch, `maxFrames` stereo frames.
        private let interleavedBlock: FixedBuffer<Float>
        private var interleaved: UnsafeMutablePointer<Float> { interleavedBlock.pointer }
        /// Frames of output still to leave out: silence was written for a skip that proved false.
        private var framesToDrop = 0

        fileprivate init(recorder: OutputRecorder) {
            self.recorder = recorder
            ring = recorder.ring
            maxFrames = recorder.maxFrames
            interleavedBlock = FixedBuffer(capacity: maxFrames * 2, repeating: 0)
        }

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
            guard !recorder.sealed.load(ordering: .relaxed) else { return }
            var done = 0
            while done < frames {
                let chunk = min(maxFrames, frames - done)
                let bytes = chunk * 2 * MemoryLayout<Float>.size
                if ring.writeSpace < bytes, recorder.freewheeling.load(ordering: .relaxed) { waitForDisk(bytes: bytes) }
                if ring.writeSpace < bytes {
                    recorder.overruns.wrappingIncrement(ordering: .relaxed)
                    recorder.framesLost.wrappingIncrement(by: chunk, ordering: .relaxed)
                } else {
                    if let left, let right {
                        for frame in 0..<chunk {
                            interleaved[2 * frame] = left[done + frame]
                            interleaved[2 * frame + 1] = right[done + frame]
                        }
                    } else {
                        interleaved.update(repeating: 0, count: chunk * 2)
                    }
                    let waiting = ring.readSpace
                    ring.write(UnsafeRawPointer(interleaved), bytes: bytes)
                    recorder.framesQueued.wrappingIncrement(by: chunk, ordering: .relaxed)
                    // The disk thread woken when a block's worth is there (once a block; it
                    // drains everything each time it wakes).
                    let block = recorder.wakeBytes
                    if waiting / block != (waiting + bytes) / block { recorder.doorbell.ring() }
                }
                done += chunk
            }
        }

        /// Only in freewheel, where JACK lets the process callback block: waits (1 ms sleeps,
        /// at most `freewheelPatienceMicroseconds`) until the disk thread has made room.
        private func waitForDisk(bytes: Int) {
            recorder.doorbell.ring()  // the disk thread drains now, whatever the ring held when it last woke
            var waited = 0
            while ring.writeSpace < bytes, waited < OutputRecorder.freewheelPatienceMicroseconds,
                  recorder.freewheeling.load(ordering: .relaxed), !recorder.sealed.load(ordering: .relaxed) {
                usleep(1000)
                waited += 1000
            }
        }
    }

    /// Control thread. Starts the disk thread.
    public func start() {
        running.store(true, ordering: .releasing)
        let thread = Thread { [self] in
            ThreadName.set("pj-recorder")
            let block = Self.diskBlock
            let storage = FixedBuffer<Float>(capacity: block * 2, repeating: 0)
            let buffer = storage.pointer
            while true {
                let stopping = !running.load(ordering: .acquiring)
                while true {
                    let frames = min(ring.readSpace / (2 * MemoryLayout<Float>.size), block)
                    guard frames > 0 else { break }
                    ring.read(into: UnsafeMutableRawPointer(buffer), bytes: frames * 2 * MemoryLayout<Float>.size)
                    disk.withLockedValue { disk in
                        guard disk.writeError == nil else { return }
                        do {
                            try disk.file.write(interleaved: buffer, frames: frames)
                            disk.framesWritten += frames
                        } catch {
                            disk.writeError = "\(error)"
                        }
                    }
                }
                if stopping { break }
                // Asleep until the process thread has a block for it, or the take is finished;
                // at least once a second, so a short tail is on disk (and in the header) within one.
                doorbell.wait(seconds: 1)
            }
            disk.withLockedValue { $0.file.close() }
            finished.signal()
        }
        thread.start()
    }

    /// Control thread. Seals the take (the process thread hands over nothing more, even if it
    /// still runs), drains the ring, finishes the file, and reports what was written (or why not).
    public func finish() throws -> Int {
        sealed.store(true, ordering: .relaxed)
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return disk.withLockedValue { $0.framesWritten } }
        doorbell.ring()
        finished.wait()
        let (frames, writeError) = disk.withLockedValue { ($0.framesWritten, $0.writeError) }
        if let writeError { throw InputError(file: path, "the recording stopped early: \(writeError)") }
        return frames
    }
}
