import Inputs
import LSL
import Presets
import Sensors

/// The bodies a live run reads, resolved from the specs the preset and the options name: each
/// `lsl:` spec an LSL stream, every other one a Bluetooth LE sensor. A spec that names neither is
/// the one error naming the preset's line and field.
public struct BodySources: Sendable, Equatable {
    public var sensors: [SensorRequest]
    public var streams: [LSLStreamQuery]

    public init(_ preset: LoadedPreset, heart: String? = nil, eeg: String? = nil) throws {
        let specs = preset.sensorSpecs(heart: heart, eeg: eeg)
        sensors = try specs.filter { !LSLStreamQuery.names($0.text) }.map(SensorRequest.init)
        streams = try specs.filter { LSLStreamQuery.names($0.text) }.map(LSLStreamQuery.init)
    }
}
