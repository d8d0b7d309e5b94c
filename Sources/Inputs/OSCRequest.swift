/// What an OSC message asks of the control thread rather than of the engine: work that allocates
/// or touches files (`OSCInput` hands it to its `requests` callback).
public enum OSCRequest: Sendable, Equatable {
    /// `/voice/<name>/insert/<n>/state s FOLDER`, `/master/insert/<n>/state s FOLDER`: load the
    /// saved state in FOLDER (a session save's `plugins/<place>`) into that insert, live.
    case loadInsertState(place: String, insert: Int, folder: String)
    /// `/voice/<name>/insert/<n>/preset s NAME`, `/master/insert/<n>/preset s NAME`: load the
    /// plugin's own preset NAME into that insert, live.
    case loadInsertPreset(place: String, insert: Int, preset: String)
}
