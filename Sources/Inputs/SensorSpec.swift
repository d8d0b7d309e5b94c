import UserFiles

/// What a sensor or stream is to a performer: their heart, or their EEG. It names the command
/// line's option and the preset's field that take it (`--heart`, `heart:`), and the status
/// fields' stem (`heart_sensor…`).
public enum SensorRole: String, Sendable, CaseIterable {
    case heart, eeg
}

/// A body sensor or stream as a preset or an option names it, before anything resolves it into
/// a device: `ble:Polar H10`, `muse`, `lsl:type=ECG`. The presets read these as plain words;
/// a live run resolves them (a Bluetooth LE sensor, an LSL stream) and a render never needs to.
public struct SensorSpec: Sendable, Equatable {
    public var text: String
    public var role: SensorRole
    public var performer: Int
    /// Where it was written: `sensors.heart`, `performers[1].eeg`, `--heart`.
    public var field: String
    /// The preset it came with, and the line there the error names.
    public var file: String
    public var line: Int?

    public init(_ text: String, role: SensorRole, performer: Int = 0, field: String, file: String, line: Int? = nil) {
        (self.text, self.role, self.performer, self.field, self.file, self.line) = (text, role, performer, field, file, line)
    }

    /// `resolve` on the spec; what it throws becomes the one error naming the file, line and field.
    public func resolved<Resolved>(_ resolve: (SensorSpec) throws -> Resolved) throws(InputError) -> Resolved {
        do {
            return try resolve(self)
        } catch {
            throw InputError(file: file, line: line, field: field, "\(error)")
        }
    }
}
