import Glibc

/// The periods a JACK peer ran, as JACK's frame time, for a test to place what it heard.
///
/// jackd2's `jack_last_frame_time` reads the server's current timer, so a callback that starts
/// after the next cycle began reads the next cycle's frame: never earlier than the truth,
/// sometimes a period later. A period's true start is thus at most each later reading less the
/// frames between; the least of those (over the next 8 periods) is taken. Written by the peer's
/// process thread, read after it closed.
final class PeriodLog {
    let capacity: Int
    private let readings: UnsafeMutablePointer<UInt32>
    private let lengths: UnsafeMutablePointer<UInt32>
    /// When the peer's callback woke, on CLOCK_MONOTONIC (seconds).
    private let wakeups: UnsafeMutablePointer<Double>
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = capacity
        readings = .allocate(capacity: capacity)
        lengths = .allocate(capacity: capacity)
        wakeups = .allocate(capacity: capacity)
    }

    deinit {
        readings.deallocate()
        lengths.deallocate()
        wakeups.deallocate()
    }

    /// Process thread: a period began; returns its index, or nil when the log is full.
    func record(reading: UInt32, frames: UInt32) -> Int? {
        guard count < capacity else { return nil }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        readings[count] = reading
        lengths[count] = frames
        wakeups[count] = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
        count += 1
        return count - 1
    }

    /// The true start of period `period` in JACK's frame time.
    func start(_ period: Int, of total: Int) -> Int64 {
        var best: Int64 = 0, since: Int64 = 0
        for later in period..<min(total, period + 9) {
            // Frame counters wrap at 2³²: differences from this period's reading.
            let difference = Int64(Int32(bitPattern: readings[later] &- readings[period])) - since
            best = later == period ? 0 : min(best, difference)
            since += Int64(lengths[later])
        }
        return Int64(readings[period]) + best
    }

    /// The stretches of JACK's frame time between the first and the last of `total` periods that
    /// the peer was not run for (a cycle the server took from it, or skipped for everyone).
    func gaps(of total: Int) -> [Range<Int64>] {
        guard total > 1 else { return [] }
        var found: [Range<Int64>] = []
        var end = start(0, of: total) + Int64(lengths[0])
        for period in 1..<total {
            let begin = start(period, of: total)
            if begin > end { found.append(end..<begin) }
            end = max(end, begin + Int64(lengths[period]))
        }
        return found
    }

    /// The periods among the first `total` placed before their own reading, because a later
    /// reading came back behind: a late reading, or under PipeWire the same cycle run twice (the
    /// driver triggers a peer again when the graph ran late), whose first run is then placed a
    /// period early. Where each such period was placed.
    func movedBack(of total: Int) -> [Range<Int64>] {
        (0..<total).compactMap { period in
            let begin = start(period, of: total)
            return begin < Int64(readings[period]) ? begin ..< begin + Int64(lengths[period]) : nil
        }
    }

    /// Whether one of the first `total` periods covered JACK frame `frame` (false: a cycle the
    /// peer was not run for, whose input it never saw).
    func ran(at frame: Int64, of total: Int) -> Bool {
        (0..<total).contains { period in
            let begin = start(period, of: total)
            return frame >= begin && frame < begin + Int64(lengths[period])
        }
    }

    /// How far JACK's timeline moved against CLOCK_MONOTONIC over the first `total` periods
    /// (seconds; frames at `rate`): an xrun's step, when jackd2's driver counts no frames for
    /// the time it woke late, plus the clocks' drift. Each half second's earliest wake-up less
    /// its period's start is that half second's offset (a callback wakes late, never early);
    /// the answer is the spread of those offsets. Measured apart from JACK's DLL and the engine's.
    func timelineShift(of total: Int, rate: Double) -> Double {
        guard total > 0 else { return 0 }
        var earliest: [Int: Double] = [:]
        for period in 0..<total {
            let offset = wakeups[period] - Double(start(period, of: total)) / rate
            let window = Int((wakeups[period] - wakeups[0]) / 0.5)
            earliest[window] = min(earliest[window] ?? offset, offset)
        }
        return (earliest.values.max() ?? 0) - (earliest.values.min() ?? 0)
    }
}
