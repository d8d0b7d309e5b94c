import Engine

/// Following the server's sample rate: JACK's callback records it, the process thread parks
/// the engine it was not built for, and the control thread offers one rebuilt at the new rate.
extension JackClient {
    /// Control thread: the parked engine is this thread's to carry over (false: it runs, or was
    /// claimed already). Until a rebuilt engine is swapped in, the process thread stays silent.
    public func claimParkedEngine() -> Bool {
        rate.claim()
    }

    /// Control thread: a claimed engine, untouched (its rebuild failed), goes back to the
    /// process thread, to run again if the server returns to its rate.
    public func unclaimParkedEngine() {
        rate.unclaim()
    }

    /// Control thread: `swap`'s engine (built at the server's rate, carried over from the
    /// parked one) for the process thread to take at its next cycle. False when one is still on
    /// offer or the last swap's replaced parts were not taken back yet.
    public func offer(_ swap: EngineSwap) -> Bool {
        rate.offer(swap)
    }

    /// Control thread: the offer back when the process thread did not take it (the server
    /// moved to yet another rate meanwhile).
    public func withdrawOffer() -> EngineSwap? {
        rate.withdraw()
    }

    /// Control thread: the swap the process thread made since the last call, with the engine
    /// and recording it replaced (to finish and release here), or nil.
    public func takeSwapped() -> EngineSwap? {
        guard let swap = rate.takeReplaced() else { return nil }
        keepAfterReconnect(swap)
        return swap
    }
}
