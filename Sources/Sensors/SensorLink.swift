import Foundation
import Realtime

/// One requested sensor's life on the sensor thread (only there): which device, which
/// characteristics, its state and back-off, and its heart's beat timeline.
final class SensorLink {
    let index: Int
    let request: SensorRequest
    var state = SensorStatus.State.searching
    var discovering = false
    var devicePath: String?
    var deviceLabel: String?
    /// Subscribed characteristics: object path → UUID.
    var characteristics: [String: String] = [:]
    /// When its state last changed, and when it may be tried again (`MonotonicClock` seconds).
    var since = MonotonicClock.seconds
    var retryAt = -Double.infinity
    /// Seconds to wait before the next reconnection: 1, 2, 4 … 30.
    var backOff = 1.0
    /// The problem last said (said once while it lasts).
    var problem: String?
    var timeline: RRBeatTimeline
    /// A Polar H10's R-peaks, from its ECG.
    var ecg: ECGBeatTimeline
    /// What the device's heart rate last said of skin contact (an H10's ECG without it is noise).
    var contact: Bool?
    /// A Muse's band powers, from its four sensors' raw EEG.
    var eeg = EEGBandPowers()
    /// The bus said its device went away or disconnected (acted on in the next step).
    var wentAway = false

    init(index: Int, request: SensorRequest, sampleRate: Int, predicts: Bool, ecgDelay: Double = ECGBeatTimeline.defaultDelay) {
        self.index = index
        self.request = request
        timeline = RRBeatTimeline(sampleRate: sampleRate, predicts: predicts)
        ecg = ECGBeatTimeline(sampleRate: sampleRate, predicts: predicts, delay: ecgDelay)
    }

    func choose(_ device: BLECentral.Device, at now: Double) {
        devicePath = device.path
        deviceLabel = device.label
        state = .connecting
        since = now
    }

    func connected() {
        state = .connected
        backOff = 1
    }

    func lose(at now: Double) {
        state = .lost
        characteristics = [:]
        discovering = false
        retryAt = now + backOff
        backOff = min(30, backOff * 2)
    }

    func search() {
        state = .searching
        devicePath = nil
        discovering = false
    }
}
