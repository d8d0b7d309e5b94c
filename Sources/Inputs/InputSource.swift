import Realtime

/// One source of control a live run reads: OSC, the page, a replayed session, the body sensors,
/// the run's own control ring (the study's clip trigger, the mood DJ's tracks, dropout fades).
/// Each has its own ring into the engine (the process thread drains every source's ring each
/// period, in the order the run appended them), is started once the client is active and stopped
/// before it closes, and shows its own fields in the status. Its session-log entries are what the
/// engine applies from its ring, each at its frame (`--record-session` writes every applied
/// message), so a source needs nothing more to be re-rendered offline. The run appends every
/// source the same way (`LiveSession.sources`): a new source is a new type conforming here, and
/// one line where the run makes its sources. JACK MIDI on `midi_in` is the one input without a
/// ring: it arrives on the process thread itself, in the period it sounds in.
public protocol InputSource: AnyObject, Sendable {
    /// Its ring into the engine.
    var ring: SPSCRing<ControlMessage> { get }
    /// Control thread. Starts the thread it reads on, if it has one.
    func start()
    /// Control thread. Stops that thread (at once: a stop doorbell, never a timeout's wait).
    func stop()
    /// Control thread. Its own fields in the status, beside the engine's; `performers` are the
    /// preset's (empty: one unnamed heart).
    func statusValues(performers: [String]) -> [(String, StatusValue)]
}

extension InputSource {
    public func start() {}
    public func stop() {}
    public func statusValues(performers: [String]) -> [(String, StatusValue)] { [] }
}
