import Voices
import Realtime

/// What hitting a region does.
public enum RegionTarget: Equatable, Sendable, BitwiseCopyable {
    /// Nothing (a region the preset names with no voice the engine knows).
    case none
    case voice(Int32)
    /// Cycles freestyle → recording → playing (Tambour's right hand up).
    case modeCycle
}

/// One beat of a recorded pattern.
public enum PatternStep: Equatable, Sendable, BitwiseCopyable {
    /// The region hit on that beat.
    case region(Int32)
    /// A beat recorded as silence (the skip region), kept so playback keeps the pattern's shape.
    case skippedBeat
}

/// Tambour's performance: region hits, the mode (freestyle → recording → playing), the
/// recorded pattern with its skipped beats, and playback one step a beat. Owned by the engine
/// by value; its tables are allocated before activation. Real-time safe after init.
package struct TambourPerformance: ~Copyable {
    static let patternCapacity = 256

    private(set) var mode: PerformanceMode = .freestyle
    /// Region index → what hitting it does.
    private let targets: FixedBuffer<RegionTarget>
    private var pattern: FixedBuffer<PatternStep>
    private var playbackStep = 0
    private let skipRegion: Int32?
    /// Voice announcing each mode as it begins: freestyle, recording, playing.
    private let modeVoices: (Int32?, Int32?, Int32?)

    /// Offline. Region `i` does `targets[i]`; `skipRegion` records a skipped beat;
    /// `modeVoices` announce the modes.
    init(targets: [RegionTarget], skipRegion: Int32? = nil, modeVoices: [PerformanceMode: Int32] = [:]) {
        self.targets = FixedBuffer(capacity: targets.count, repeating: .none)
        for (index, target) in targets.enumerated() { self.targets[index] = target }
        pattern = FixedBuffer(capacity: Self.patternCapacity, count: 0, repeating: .skippedBeat)
        self.skipRegion = skipRegion
        self.modeVoices = (modeVoices[.freestyle], modeVoices[.recording], modeVoices[.playing])
    }

    /// What a region hit does.
    enum Hit {
        case play(voice: Int32)
        case enter(PerformanceMode)
        /// Heard nothing (a skipped beat outside recording, or a region without a voice).
        case silent
        /// No such region.
        case invalid
    }

    /// Real-time safe. A hit on `region`: recorded while recording (the skip region as a
    /// skipped beat, heard only then), and what to play.
    mutating func hit(region: Int32) -> Hit {
        guard region >= 0, Int(region) < targets.count else { return .invalid }
        let target = targets[Int(region)]
        if target == .modeCycle {
            return .enter(mode == .freestyle ? .recording : mode == .recording ? .playing : .freestyle)
        }
        if region == skipRegion {
            guard mode == .recording else { return .silent }
            pattern.append(.skippedBeat)  // full at `patternCapacity`: later steps are not kept
        } else if mode == .recording {
            pattern.append(.region(region))
        }
        if case .voice(let voice) = target { return .play(voice: voice) }
        return .silent
    }

    /// Offline. The pattern's mutating calls once, so their generic
    /// metadata exists before the process thread needs it (debug builds instantiate it lazily).
    mutating func warmUp() {
        pattern.setCount(pattern.count)
    }

    /// Real-time safe. Enters `newMode`: recording starts a new pattern, playing starts it from
    /// its first step. The voice announcing the mode, if any.
    mutating func enter(_ newMode: PerformanceMode) -> Int32? {
        mode = newMode
        if newMode == .recording { pattern.setCount(0) }
        if newMode == .playing { playbackStep = 0 }
        switch newMode {
        case .freestyle: return modeVoices.0
        case .recording: return modeVoices.1
        case .playing: return modeVoices.2
        }
    }

    /// Real-time safe. A beat passed: while playing, the voice of the pattern's step for it
    /// (nil for a skipped beat, a region without a voice, or when not playing).
    mutating func beatPassed() -> Int32? {
        guard mode == .playing && pattern.count > 0 else { return nil }
        defer { playbackStep += 1 }
        guard case .region(let region) = pattern[playbackStep % pattern.count],
              case .voice(let voice) = targets[Int(region)] else { return nil }
        return voice
    }

    /// Real-time safe. Copies up to `capacity` recorded steps to `steps`; how many.
    func copyPattern(to steps: UnsafeMutablePointer<PatternStep>, capacity: Int) -> Int {
        let count = min(pattern.count, capacity)
        steps.update(from: pattern.pointer, count: count)
        return count
    }

    /// The recorded pattern (control thread, engine stopped; tests).
    var recorded: [PatternStep] { (0..<pattern.count).map { pattern[$0] } }

    /// Control thread, neither engine running: `old`'s mode, recorded pattern and place in it.
    mutating func takeOver(_ old: borrowing TambourPerformance) {
        mode = old.mode
        pattern.setCount(old.pattern.count)
        pattern.pointer.update(from: old.pattern.pointer, count: old.pattern.count)
        playbackStep = old.playbackStep
    }
}
