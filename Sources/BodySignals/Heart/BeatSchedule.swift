/// The predicted beats a heart sensor schedules: every `step` frames after its last known beat,
/// those past now and up to a horizon, each once — a beat already scheduled (within half a
/// step) is not scheduled again when the next notification predicts it afresh. Sensor thread.
struct BeatSchedule: Sendable {
    private var lastScheduled = Int64.min

    mutating func frames(after lastBeat: Int64, step: Int64, now: Int64, until: Int64) -> [Int64] {
        guard step > 0 else { return [] }
        var frames: [Int64] = []
        var next = lastBeat + step
        while next <= until {
            if next > now && next > lastScheduled + step / 2 {
                frames.append(next)
                lastScheduled = next
            }
            next += step
        }
        return frames
    }
}
