import Inputs
import Realtime

/// One kind of Bluetooth LE body sensor, described once: the word that names it (`ble`,
/// `polar-ecg`, `muse`), its role, the service a device must offer, what to subscribe to and
/// write once connected, the decoder its notifications go through, and the status fields of its
/// own. Scan, connect, the preset's and the options' checks, the status and the page read
/// `SensorKinds.all`; adding a sensor is its decoder, its descriptor and one line there.
public protocol SensorKindDescriptor: Sendable {
    var kind: SensorRequest.Kind { get }
    var role: SensorRole { get }
    /// What a device offering `service` offers, in words (`pulsejack sensors`).
    var summary: String { get }
    /// The GATT service a device must offer (discovery filters on it).
    var service: String { get }
    /// What it streams once connected: the characteristics to subscribe to, the start commands.
    var profile: SensorProfile { get }
    /// Whether its beats are the performer's heart themselves (an ECG's R-peaks): no clock from
    /// the preset's tempo may run beside them. A heart's predicted beats are too (`--predict-beats`).
    var givesBeats: Bool { get }
    /// Sensor thread. The per-device state its notifications are decoded with.
    func decoder(_ setup: SensorDecoderSetup) -> any SensorDecoder
    /// Its own status fields (after the common ones), as suffixes of `heart_sensor`, `eeg_sensor` ….
    func statusFields(_ status: SensorStatus) -> [(String, StatusValue)]
}

extension SensorKindDescriptor {
    public var givesBeats: Bool { false }
    public func statusFields(_ status: SensorStatus) -> [(String, StatusValue)] { [] }
}

/// What a decoder is made with: the engine's rate, and the run's choices for hearts.
public struct SensorDecoderSetup: Sendable {
    public var sampleRate: Int
    /// Schedule each heart's next beats (`--predict-beats`).
    public var predictsBeats: Bool
    /// Seconds from an ECG's R-peak to its beat without prediction (`--ecg-delay`).
    public var ecgDelay: Double
}

/// Sensor thread. One device's notifications turned into what the run hears: control messages
/// at their frames, status changes, a heart heard. Each requested sensor has its own.
public protocol SensorDecoder: AnyObject {
    /// One notification of `characteristic`, arrived at `frame`; `into` takes what it makes.
    /// Throws when the bytes do not decode (counted and said as malformed, never fatal).
    func decode(_ bytes: [UInt8], characteristic: String, at frame: Int64, performer: Int, into sink: SensorSink) throws
}

/// Where a decoder's findings go (the sensor input, on its thread).
public protocol SensorSink {
    /// Control messages into the input's ring (what it has no room for is counted).
    func push(_ messages: [ControlMessage])
    /// A change to the sensor's status (a notification counted, a BPM, band powers …).
    func update(_ change: (inout SensorStatus) -> Void)
    /// The performer's heart was heard (the dropout watch).
    func heardHeart()
    /// A band power from the performer's EEG (the mood).
    func observe(_ band: EEGBand, _ value: Double)
    /// A problem the device reports (said at most once a second, shown in the status).
    func problem(_ text: String)
    /// The device's name, for what is said.
    var deviceLabel: String? { get }
}

/// Every kind of sensor pulsejack reads, in the order `pulsejack sensors` lists what they offer.
public enum SensorKinds {
    public static let all: [any SensorKindDescriptor] = [HeartRateSensor(), PolarECGSensor(), MuseSensor()]

    public static func descriptor(_ kind: SensorRequest.Kind) -> any SensorKindDescriptor {
        guard let found = all.first(where: { $0.kind == kind }) else { preconditionFailure("no sensor kind \(kind.rawValue)") }
        return found
    }

    /// The kinds that can be a performer's heart, or their EEG.
    public static func kinds(_ role: SensorRole) -> [SensorRequest.Kind] { all.filter { $0.role == role }.map(\.kind) }
}
