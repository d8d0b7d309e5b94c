import CJack

extension ProcessHost {
    /// JACK's latency callback (a non-real-time JACK thread): what comes in at `in_L`/`in_R` or
    /// `midi_in` leaves `out_L`/`out_R` the engine's largest path latency later (a hosted plugin's
    /// or an insert chain's). Heartbeat notes are sent that much early, so they are on time; this
    /// is the delay of everything that could not be known early (audio input, pads, triggers).
    ///
    /// Under PipeWire the callback only asks the control thread to set them
    /// (`setRequestedLatencies`). PipeWire's libjack (0.3.65, Debian 12's) lets go of its own
    /// lock around the callback, and a latency set there is sent to the server at once, on its
    /// thread, outside that lock: sent while a call of ours sent another (a deactivation), the
    /// two shared one message builder and PipeWire's protocol aborted the process
    /// ("assert_single_pod()", seen in CI in a stop while a plugin's latency flipped). Set there,
    /// it can also run a recompute we had queued inside this callback, which then waits for
    /// ever on a lock its outer call holds. Set from the control thread, each latency is queued
    /// for PipeWire's thread, which sends it holding its lock.
    func reportLatency(_ mode: jack_latency_callback_mode_t) {
        guard !setsLatenciesOnTheControlThread else {
            latenciesRequested.store(true, ordering: .releasing)
            engineHandle.controlBell.ring()
            return
        }
        setLatencies(mode)
    }

    /// Control thread. Under PipeWire: the latencies a callback asked for since the last call.
    func setRequestedLatencies() {
        guard latenciesRequested.exchange(false, ordering: .acquiring) else { return }
        setLatencies(JackCaptureLatency)
        setLatencies(JackPlaybackLatency)
    }

    private func setLatencies(_ mode: jack_latency_callback_mode_t) {
        let frames = jack_nframes_t(max(0, engineHandle.publishedLatency.load(ordering: .relaxed)))
        let inputs = [midiIn, inLeft, inRight], outputs = [left, right, midiOut]
        let (from, to) = mode == JackCaptureLatency ? (inputs, outputs) : (outputs, inputs)
        var range = jack_latency_range_t(min: .max, max: 0)
        for port in from {
            var portRange = jack_latency_range_t()
            jack_port_get_latency_range(port, mode, &portRange)
            range.min = min(range.min, portRange.min)
            range.max = max(range.max, portRange.max)
        }
        if range.min > range.max { range.min = range.max }
        range.min += frames
        range.max += frames
        for port in to { jack_port_set_latency_range(port, mode, &range) }
    }
}
