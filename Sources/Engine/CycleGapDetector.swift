/// Decides, from JACK's frame time read at the start of each process callback, how far JACK
/// moved on without running us (a lost cycle), so the engine's timeline stays on JACK's.
///
/// The trap: jackd2's `jack_last_frame_time` reads the server's *current* timer, not a copy
/// taken for our cycle. When our callback starts late, after the server has begun the next
/// cycle, it reads the next cycle's frame: a gap of one period that never happened. Taken at
/// its word, the engine skipped a period it had not lost, and every later event sounded one
/// period early (the flaky `testTimetaggedBundlesSoundAtExactlyTheirSpacing`). A reading is
/// never earlier than the truth, only later, so:
/// - a gap is acted on only when the next reading confirms it (a late read is gone by then);
///   a real loss is then applied one period late, which the status reports as skipped frames;
/// - a reading *behind* what we expected proves an earlier skip false (lateness that lasted
///   two cycles), and the timeline is wound back by that much.
///
/// A period change is told apart at its first cycle (the callback's `frames` differs from the
/// last), where each server moves its counter its own way (both call the buffer-size callback
/// first):
/// - PipeWire runs no JACK client in the first cycle of a new quantum: the counter jumps by
///   whole new periods. Nothing will contradict that, so it is skipped at once
///   (`skipAtPeriodChange`), never held for confirmation.
/// - jackd2 runs every cycle, but its counter moves by the new size while the old period
///   passed: a jump of new − old with no frame lost. The timeline is re-anchored, nothing skipped.
///   Read late, the jump is new − old plus a new period: re-anchored on the jump, the period is
///   a gap to confirm like any other (taken as lost, it set every later pulse new − old early).
///
/// Real-time safe throughout: a few integer operations a period.
package struct CycleGapDetector {
    package enum Decision: Equatable {
        case none
        /// JACK moved on this many frames without us: skip them.
        case skip(Int)
        /// An earlier skip of this many frames was a late reading: wind the timeline back.
        case rewind(Int)
        /// At a period change, JACK ran this many frames (whole new periods) for no client:
        /// skip them now; a pulse due in them sounds at this cycle's first frame.
        case skipAtPeriodChange(Int)
    }

    /// Where this cycle should start if none was lost; nil before the first cycle.
    private var expected: UInt32?
    /// A gap the last reading showed, waiting for this one to confirm it.
    private var pending = 0
    /// Frames skipped recently that a later reading could still show to be false.
    private var outstanding = 0
    private var cyclesSinceSkip = 0
    /// The last cycle's period (0 before the first).
    private var lastFrames: UInt32 = 0
    /// A jump beyond this (frames) is a new clock, a restarted server: no skip.
    let limit: Int

    package init(limit: Int) { self.limit = limit }

    /// Real-time safe. `reading` is `jack_last_frame_time` at the callback's start, `frames`
    /// the period.
    @_noLocks @_noAllocation
    package mutating func cycle(reading: UInt32, frames: UInt32) -> Decision {
        defer {
            expected = expected.map { $0 &+ frames }
            lastFrames = frames
        }
        guard let start = expected else {
            expected = reading
            return .none
        }
        cyclesSinceSkip += 1
        if cyclesSinceSkip > 16 { outstanding = 0 }
        var gap = Int(Int32(bitPattern: reading &- start))
        guard abs(gap) <= limit else {
            expected = reading
            pending = 0
            outstanding = 0
            return .none
        }
        if frames != lastFrames, lastFrames > 0, gap != 0 {
            let jump = Int(frames) - Int(lastFrames)
            if gap == jump {
                // jackd2's counter jump: the old period passed, none was lost.
                expected = reading
                pending = 0
                return .none
            }
            if gap > 0, gap % Int(frames) == 0 {
                // PipeWire's unrun cycle(s) at the new quantum.
                expected = reading
                pending = 0
                outstanding = 0
                return .skipAtPeriodChange(gap)
            }
            if gap - jump > 0, (gap - jump) % Int(frames) == 0 {
                // jackd2's jump, read late or with new periods lost after it: the jump is taken,
                // the rest is a gap like any other, for the next reading to confirm.
                expected = start &+ UInt32(bitPattern: Int32(jump))
                pending = 0
                gap -= jump
            }
        }
        if gap > 0 {
            guard pending > 0 else {
                pending = gap
                return .none
            }
            let confirmed = min(pending, gap)
            pending = 0
            expected = start &+ UInt32(confirmed)
            outstanding += confirmed
            cyclesSinceSkip = 0
            return .skip(confirmed)
        }
        pending = 0
        guard gap < 0 else { return .none }
        // Behind: what we expected was too late. Undo what an earlier skip added, if any;
        // otherwise an earlier (the first) reading was late: take this one as the truth.
        let undo = min(-gap, outstanding)
        outstanding -= undo
        expected = start &- UInt32(-gap)
        return undo > 0 ? .rewind(undo) : .none
    }
}
