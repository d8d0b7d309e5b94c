import Atomics
import CProcessThread
import Foundation
import Realtime

/// The memory an isolated plugin's child shares with the engine (a memfd both map): a header of
/// words the two sides signal through, every port's control value, this run's MIDI, where the
/// grid stands at the run's start and its changes within the run (`TimePosition`s), and two
/// audio inputs and two outputs of `maxFrames` each.
///
/// The engine posts a run by writing the inputs and `request` (the run's number) and waking the
/// word; the child runs the plugin, writes the outputs and sets `done` to that number. Each side
/// waits on the other's word with a futex, the engine with a deadline.
// @unchecked: a container of memory shared with the child; every word of it is ordered by the
// header's atomics (`request`, `done`, `ready`), which the two sides signal through.
struct PluginRegion: @unchecked Sendable {
    let base: UnsafeMutableRawPointer
    let bytes: Int
    let portCount: Int
    let maxFrames: Int

    static let headerBytes = 64
    static let midiCapacity = 256
    /// Time positions: the run's start, then up to a block's changes.
    static let positionCapacity = PluginTime.capacity + 1
    private static let positionWords = 7
    /// Header words.
    private static let requestWord = 0, doneWord = 1, framesWord = 2, readyWord = 3, midiCountWord = 4, portsWord = 5,
                       maxFramesWord = 6, priorityWord = 7, positionCountWord = 8

    static func bytes(portCount: Int, maxFrames: Int) -> Int {
        audioOffset(portCount: portCount) + 4 * maxFrames * 4
    }

    private static func positionOffset(portCount: Int) -> Int { midiOffset(portCount: portCount) + midiCapacity * 8 }
    private static func audioOffset(portCount: Int) -> Int { positionOffset(portCount: portCount) + positionCapacity * positionWords * 8 }

    /// Where the MIDI events start: after the controls, 8-byte aligned.
    private static func midiOffset(portCount: Int) -> Int { (headerBytes + portCount * 4 + 7) & ~7 }

    /// The engine's side: the sizes written into the header for the child to check.
    init(base: UnsafeMutableRawPointer, portCount: Int, maxFrames: Int) {
        self.base = base
        self.portCount = portCount
        self.maxFrames = maxFrames
        bytes = Self.bytes(portCount: portCount, maxFrames: maxFrames)
    }

    /// The child's side: the sizes as the engine wrote them, if the mapping holds them.
    init?(mapped base: UnsafeMutableRawPointer, bytes: Int) {
        guard bytes >= Self.headerBytes else { return nil }
        let words = base.assumingMemoryBound(to: UInt32.self)
        let ports = Int(words[Self.portsWord]), frames = Int(words[Self.maxFramesWord])
        guard ports < 1 << 16, frames < 1 << 20, Self.bytes(portCount: ports, maxFrames: frames) <= bytes else { return nil }
        self.init(base: base, portCount: ports, maxFrames: frames)
    }

    /// Engine side, before a child maps it.
    func format() {
        base.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
        let words = base.assumingMemoryBound(to: UInt32.self)
        words[Self.portsWord] = UInt32(portCount)
        words[Self.maxFramesWord] = UInt32(maxFrames)
    }

    // MARK: - Words (real-time safe)

    private func word(_ index: Int) -> UnsafeMutablePointer<UInt32> { base.assumingMemoryBound(to: UInt32.self) + index }
    private func atomic(_ index: Int) -> UnsafeAtomic<UInt32> {
        UnsafeAtomic(at: UnsafeMutableRawPointer(word(index)).assumingMemoryBound(to: UInt32.AtomicRepresentation.self))
    }

    /// The number of the run the engine posted last.
    var request: UnsafeAtomic<UInt32> { atomic(Self.requestWord) }
    /// The number of the run the child finished last.
    var done: UnsafeAtomic<UInt32> { atomic(Self.doneWord) }
    /// 1 once the child has its plugin instantiated, restored and activated.
    var ready: UnsafeAtomic<UInt32> { atomic(Self.readyWord) }
    var frames: UnsafeAtomic<UInt32> { atomic(Self.framesWord) }
    var midiCount: UnsafeAtomic<UInt32> { atomic(Self.midiCountWord) }
    /// Positions written for this run: 0, or the run's start and the changes after it.
    var positionCount: UnsafeAtomic<UInt32> { atomic(Self.positionCountWord) }
    /// The engine's process thread's SCHED_FIFO priority (0: not real-time): the child's run
    /// thread takes one less, or none, so a hung child never outranks the engine or starves
    /// a machine whose engine is not real-time.
    var priority: UnsafeAtomic<UInt32> { atomic(Self.priorityWord) }

    /// The words a side waits on.
    enum Signal { case request, done, ready }

    /// Real-time safe. Waits while `signal`'s word still holds `seen`, at most `nanoseconds`:
    /// false on timeout.
    @discardableResult
    func wait(on signal: Signal, whileItIs seen: UInt32, nanoseconds: Int) -> Bool {
        pj_futex_wait(word(signal), seen, Int64(nanoseconds)) == 0
    }

    /// Real-time safe. Wakes whoever waits on `signal`.
    func wake(_ signal: Signal) { pj_futex_wake(word(signal)) }

    private func word(_ signal: Signal) -> UnsafeMutablePointer<UInt32> {
        switch signal {
        case .request: word(Self.requestWord)
        case .done: word(Self.doneWord)
        case .ready: word(Self.readyWord)
        }
    }

    // MARK: - Buffers

    /// Every port's control value, by port index.
    var controls: UnsafeMutablePointer<Float> { (base + Self.headerBytes).assumingMemoryBound(to: Float.self) }
    /// This run's MIDI messages: the frame in the high half, the status, key and velocity bytes below.
    var midi: UnsafeMutablePointer<UInt64> { (base + Self.midiOffset(portCount: portCount)).assumingMemoryBound(to: UInt64.self) }
    /// Audio: 0 and 1 the plugin's inputs, 2 and 3 its outputs.
    func audio(_ slot: Int) -> UnsafeMutablePointer<Float> {
        (base + Self.audioOffset(portCount: portCount)).assumingMemoryBound(to: Float.self) + slot * maxFrames
    }

    /// Real-time safe. Position `index` (0: where the grid stands at the run's start), at
    /// `frame` frames into the run.
    func setPosition(_ index: Int, _ position: TimePosition, atFrame frame: Int) {
        let words = (base + Self.positionOffset(portCount: portCount)).assumingMemoryBound(to: UInt64.self) + index * Self.positionWords
        words[0] = UInt64(bitPattern: Int64(frame))
        words[1] = UInt64(bitPattern: position.frame)
        words[2] = position.beat.bitPattern
        words[3] = position.beatsPerMinute.bitPattern
        words[4] = position.beatsPerBar.bitPattern
        words[5] = position.speed.bitPattern
        words[6] = UInt64(UInt32(bitPattern: position.beatUnit))
    }

    /// Real-time safe. Position `index` as `setPosition` wrote it.
    func position(_ index: Int) -> (frame: Int, position: TimePosition) {
        let words = (base + Self.positionOffset(portCount: portCount)).assumingMemoryBound(to: UInt64.self) + index * Self.positionWords
        let position = TimePosition(frame: Int64(bitPattern: words[1]), beat: Double(bitPattern: words[2]),
                                    beatsPerMinute: Double(bitPattern: words[3]), beatsPerBar: Double(bitPattern: words[4]),
                                    beatUnit: Int32(bitPattern: UInt32(truncatingIfNeeded: words[6])), speed: Double(bitPattern: words[5]),
                                    beatsPerFrame: 0)
        return (Int(Int64(bitPattern: words[0])), position)
    }

    static func packMIDI(frame: Int, _ bytes: (UInt8, UInt8, UInt8)) -> UInt64 {
        UInt64(truncatingIfNeeded: frame) << 32 | UInt64(bytes.0) << 16 | UInt64(bytes.1) << 8 | UInt64(bytes.2)
    }

    static func unpackMIDI(_ packed: UInt64) -> (frame: Int, bytes: (UInt8, UInt8, UInt8)) {
        (Int(packed >> 32), (UInt8(truncatingIfNeeded: packed >> 16), UInt8(truncatingIfNeeded: packed >> 8), UInt8(truncatingIfNeeded: packed)))
    }
}
