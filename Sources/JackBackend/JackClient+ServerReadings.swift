import CJack

/// What any thread reads of the server while the client runs: its DSP load, how far into the
/// current cycle it is, and the playback latency of our outputs. Each is 0 while disconnected.
extension JackClient {
    /// The server's DSP load, in percent (0 while disconnected).
    public var dspLoad: Double {
        guard !serverGone else { return 0 }
        return withClient { client, _ in Double(jack_cpu_load(client)) } ?? 0
    }

    /// Real-time safe. Any thread reads it: frames since the current cycle began (0 while disconnected).
    public var framesSinceCycleStart: Int {
        guard !serverGone else { return 0 }
        let frames = withClient { client, _ in Int(jack_frames_since_cycle_start(client)) } ?? 0
        // jackd2 computes it as (now − the time it recorded for the cycle's callback) in unsigned
        // microseconds, through a float: with the clock read earlier than that time the difference
        // wraps, and the result is any value up to 2³² (the likely cause of CI's one bundle an
        // hour ahead counted late). Beyond a second the cycle would be a stall, which the period
        // start already shows: the cycle's start then.
        return frames <= sampleRate ? frames : 0
    }

    /// Real-time safe. Any thread reads it: frames from `out_L`/`out_R` to where they are heard, the larger of the two
    /// (JACK's playback latency as the graph reports it); 0 while disconnected.
    public var playbackLatency: Int {
        guard !serverGone else { return 0 }
        return withClient { client, name in
            var largest: jack_nframes_t = 0
            for port in ["out_L", "out_R"] {
                guard let handle = jack_port_by_name(client, name + ":" + port) else { continue }
                var range = jack_latency_range_t()
                jack_port_get_latency_range(handle, JackPlaybackLatency, &range)
                largest = max(largest, range.max)
            }
            return Int(largest)
        } ?? 0
    }

    /// Any thread. The time on CLOCK_MONOTONIC (seconds) of JACK's frame `since` frames into
    /// the current cycle, by JACK's DLL (`jack_frames_to_time`), its clock's offset to
    /// CLOCK_MONOTONIC read back to back; nil while disconnected.
    func frameTime(framesSinceCycleStart since: Int) -> Double? {
        guard !serverGone else { return nil }
        return withClient { client, _ in
            let frame = jack_last_frame_time(client) &+ jack_nframes_t(truncatingIfNeeded: since)
            let jack = Double(jack_frames_to_time(client, frame)) / 1e6
            var best = (gap: Double.infinity, offset: 0.0)
            for _ in 0..<3 {
                var before = timespec(), after = timespec()
                clock_gettime(CLOCK_MONOTONIC, &before)
                let now = Double(jack_get_time()) / 1e6
                clock_gettime(CLOCK_MONOTONIC, &after)
                let start = Double(before.tv_sec) + Double(before.tv_nsec) * 1e-9, end = Double(after.tv_sec) + Double(after.tv_nsec) * 1e-9
                if end - start < best.gap { best = (end - start, (start + end) / 2 - now) }
            }
            return jack + best.offset
        }
    }
}
