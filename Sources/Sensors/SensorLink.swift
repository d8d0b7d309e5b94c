import BodySignals
import Foundation
import Realtime

/// One requested sensor's life on the sensor thread (only there): which device, which
/// characteristics, its state and back-off, and the decoder its notifications go through.
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
    /// Its kind's description, and the decoder (with its state: a heart's beat timeline, the band powers) made from it.
    let descriptor: any SensorKindDescriptor
    let decoder: any SensorDecoder
    /// The bus said its device went away or disconnected (acted on in the next step).
    var wentAway = false

    init(index: Int, request: SensorRequest, sampleRate: Int, predicts: Bool, ecgDelay: Double = ECGBeatTimeline.defaultDelay) {
        self.index = index
        self.request = request
        descriptor = SensorKinds.descriptor(request.kind)
        decoder = descriptor.decoder(SensorDecoderSetup(sampleRate: sampleRate, predictsBeats: predicts, ecgDelay: ecgDelay))
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
