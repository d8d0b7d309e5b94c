import Inputs

/// One LSL stream in or out, as the status and the page list it: `lsl_in_<n>_…`, `lsl_out_<n>_…`.
public struct LSLStreamStatus: Sendable, Equatable {
    /// "in" or "out".
    public var direction: String
    public var name: String
    public var type: String
    /// Declared samples a second (0: irregular).
    public var rate: Double
    /// What it is to the run (in: heart, eeg, markers, signals).
    public var role = ""
    /// in: resolving, streaming, lost; out: open.
    public var state = "open"
    public var samples = 0
    /// in: the last time correction (s), samples the inlet lost (a gap in a regular stream's
    /// time stamps, in samples), dropouts (the stream vanished), and beats or band readings made.
    public var timeCorrection: Double?
    public var lost = 0
    public var dropouts = 0
    /// in: beats (or band readings) made, and markers, samples or beats that came too late for their delay.
    public var beats = 0
    public var late = 0
    /// in: samples refused for their time stamp (no number, or far from now) and for a value (no
    /// number, or absurd), each counted once.
    public var badStamps = 0
    public var badValues = 0
    /// out: whether an inlet listens.
    public var consumers = false
    public var problem: String?

    public init(direction: String, name: String, type: String, rate: Double, problem: String? = nil) {
        (self.direction, self.name, self.type, self.rate, self.problem) = (direction, name, type, rate, problem)
    }

    /// Its status fields, after `lsl_<direction>_<index>`.
    public var fields: [(String, StatusValue)] {
        var fields: [(String, StatusValue)] = [("_name", .text(name)), ("_type", .text(type)), ("_rate", .float(rate)),
                                               ("_state", .text(state)), ("_samples", .int(samples))]
        if direction == "in" {
            fields += [("_role", .text(role)), ("_time_correction", .float(timeCorrection ?? 0)), ("_lost", .int(lost)), ("_dropouts", .int(dropouts)),
                       ("_beats", .int(beats)), ("_late", .int(late)), ("_bad_stamps", .int(badStamps)), ("_bad_values", .int(badValues))]
        } else {
            fields.append(("_consumers", .int(consumers ? 1 : 0)))
        }
        if let problem { fields.append(("_problem", .text(problem))) }
        return fields
    }
}
