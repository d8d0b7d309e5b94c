import Realtime

/// What a modulation sets: a voice's gain, pan or the velocity its heartbeat notes play at, a
/// control of an LV2 insert or of a hosted LV2 instrument, or the master gain.
public enum ModulationDestination: Sendable, Equatable, Hashable, BitwiseCopyable {
    case voiceGain(Int32)
    case voicePan(Int32)
    case voiceVelocity(Int32)
    /// An insert's control (or its bypass), clamped to the port's range.
    case insertControl(InsertAddress)
    /// A hosted instrument's control port (its run is split where the control changes).
    case instrumentControl(voice: Int32, port: UInt32)
    /// Linear, 0…4, after the preset's master gain.
    case masterGain
}

/// How a destination takes values: any value in its range, whole numbers (`lv2:integer`), off or
/// on (`lv2:toggled`), or one of its scale points (`lv2:enumeration`).
public enum ControlStep: Sendable, Equatable {
    case continuous
    case integer
    case toggled
    case enumeration([Float])
}
