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
/// PipeWire's `jack_last_frame_time` is the cycle's copy (`jack_position.frame`) of the driver's
/// position: a gap there is mostly cycles PipeWire ran without us. Held for confirmation as
/// jackd2's are, it was applied a period late, and that period sounded one period behind JACK's
/// timeline (a pulse due in it heard 64 or 2048 frames late, once in CI). So on PipeWire every
/// forward gap is skipped at once (`skipNow`). But the copy is taken as our cycle starts, so a
/// callback woken after the driver moved on reads the next cycle's position, as jackd2's does:
/// on two loaded cores through ten quantum changes the next reading came back behind, and the
/// timeline, not wound back, ended 256 frames ahead of JACK's (every later pulse that early).
/// A skip there is wound back when a later reading comes back behind, as jackd2's are (a pulse
/// due in that one period sounds that much early: the price of not sounding every true unrun
/// cycle's a period late).
///
/// A period change is told apart at its first cycle (the callback's `frames` differs from the
/// last), where each server moves its counter its own way (both call the buffer-size callback
/// first), so the detector is told which server it reads (`PeriodChangeCounter`):
/// - PipeWire runs no JACK client in the first cycle of a new quantum: the counter jumps by
///   whole new periods, skipped at once like any gap there.
/// - jackd2 runs every cycle, but its counter moves by the new size while the old period
///   passed: a jump of new − old with no frame lost. The timeline is re-anchored on the jump,
///   nothing skipped. Whatever the reading shows beyond the jump — a new period when read late,
///   old periods lost just before the change — is a gap to confirm like any other. The two
///   servers cannot be told apart by the numbers: 64 → 2048 with the last 64-frame cycle lost
///   reads jump + 64 = 2048, one whole new period. Taken for PipeWire's unrun cycle, 2048
///   frames were skipped for 64 lost, and every later pulse sounded 1984 frames early.
///
/// Real-time safe throughout: a few integer operations a period.
package struct CycleGapDetector {
    package enum Decision: Equatable {
        case none
        /// JACK moved on this many frames without us: skip them.
        case skip(Int)
        /// An earlier skip of this many frames was a late reading: wind the timeline back.
        case rewind(Int)
        /// JACK ran this many frames for no client, known at once (PipeWire's reading is the
        /// cycle's own): skip them now; a pulse due in them sounds at this cycle's first frame.
        case skipNow(Int)
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
    package let periodChange: PeriodChangeCounter
    /// PipeWire: the reading is the cycle's own, so a forward gap is true at once.
    private let readsTheCyclesOwnFrame: Bool

    package init(limit: Int, periodChange: PeriodChangeCounter) {
        self.limit = limit
        self.periodChange = periodChange
        if case .skipsUnrunCycles = periodChange { readsTheCyclesOwnFrame = true } else { readsTheCyclesOwnFrame = false }
    }

    /// Real-time safe. `reading` is `jack_last_frame_time` at the callback's start, `frames`
    /// the period.
    @_noLocks @_noAllocation
    package mutating func cycle(reading: UInt32, frames: UInt32) -> Decision {
        defer {
            expected = expected.map { $0 &+ frames }
            lastFrames = frames
        }
        guard var start = expected else {
            expected = reading
            return .none
        }
        cyclesSinceSkip += 1
        // jackd2's late reading shows within a few cycles; PipeWire's reading is monotonic truth
        // whenever it is not late, so a reading behind there always means an earlier skip was false.
        if cyclesSinceSkip > 16 && !readsTheCyclesOwnFrame { outstanding = 0 }
        var gap = Int(Int32(bitPattern: reading &- start))
        guard abs(gap) <= limit else {
            expected = reading
            pending = 0
            outstanding = 0
            return .none
        }
        if readsTheCyclesOwnFrame, gap > 0 {
            expected = reading
            pending = 0
            outstanding += gap
            cyclesSinceSkip = 0
            return .skipNow(gap)
        }
        if frames != lastFrames, lastFrames > 0, gap != 0, !readsTheCyclesOwnFrame {
            // jackd2's jump is taken; the rest is a gap like any other: lost frames, confirmed
            // by the next reading (or already by the last), or a late reading, not.
            let jump = Int(frames) - Int(lastFrames)
            start = start &+ UInt32(bitPattern: Int32(jump))
            expected = start
            gap -= jump
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

/// How a server's frame counter reads, above all at the first cycle of a new period size.
package enum PeriodChangeCounter: Sendable {
    /// jackd2: the live timer; at a change it moves by new − old, every cycle run.
    case jumpsByTheDifference
    /// PipeWire: the cycle's own frame; at a change it moves by whole new periods, the cycles
    /// it ran for no client.
    case skipsUnrunCycles
}
