import Realtime

/// What one sensor link is doing, for `status` and the page.
public struct SensorStatus: Equatable, Sendable {
    public enum State: String, Sendable {
        /// Looking for its device (discovering), or waiting for BlueZ or an adapter.
        case searching
        case connecting
        /// Connected and subscribed: its notifications come.
        case connected
        /// The device went away or disconnected; reconnecting with back-off.
        case lost
    }

    public var request: SensorRequest
    public var state = State.searching
    /// The device's name and address, once one is chosen.
    public var device: String?
    public var notifications = 0
    /// Notifications that did not decode (counted, never fatal).
    public var malformed = 0
    /// Battery level (%), when the device offers it.
    public var battery: Int?
    /// The heart rate the device last reported.
    public var bpm: Int?
    /// Whether the last heart notification said the sensor touches skin (nil: it cannot tell).
    public var contact: Bool?
    /// An EEG sensor's last band powers: absolute (log10 µV²/Hz, averaged over its sensors) and relative.
    public var bands: [EEGBand: Double] = [:]
    public var relativeBands: [EEGBand: Double] = [:]
    /// A Polar ECG's R-peaks found, and those found too late for their fixed delay (played at once).
    public var ecgBeats = 0, ecgLate = 0
    /// Why it is not connected, when it is not (no adapter, BlueZ not running, several devices match …).
    public var problem: String?

    public init(request: SensorRequest) { self.request = request }
}
