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
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = capacity
        readings = .allocate(capacity: capacity)
        lengths = .allocate(capacity: capacity)
    }

    deinit {
        readings.deallocate()
        lengths.deallocate()
    }

    /// Process thread: a period began; returns its index, or nil when the log is full.
    func record(reading: UInt32, frames: UInt32) -> Int? {
        guard count < capacity else { return nil }
        readings[count] = reading
        lengths[count] = frames
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

    /// Whether one of the first `total` periods covered JACK frame `frame` (false: a cycle the
    /// peer was not run for, whose input it never saw).
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

    func ran(at frame: Int64, of total: Int) -> Bool {
        (0..<total).contains { period in
            let begin = start(period, of: total)
            return frame >= begin && frame < begin + Int64(lengths[period])
        }
    }
}
