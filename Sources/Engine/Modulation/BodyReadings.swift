import Realtime

/// The latest value of each body signal that arrives as a message — each performer's EEG band
/// powers and hands, the named signals, the MIDI controllers — with the frame it came at (NaN
/// and −1 until one does). The hearts keep their own (`PerformerHeart`). Made before
/// activation; the process thread writes it as the messages apply.
package final class BodyReadings {
    let performers: Int
    let bands: FixedBuffer<Float>
    let bandFrames: FixedBuffer<Int64>
    let poses: FixedBuffer<Float>
    let poseFrames: FixedBuffer<Int64>
    let signals: FixedBuffer<Float>
    let signalFrames: FixedBuffer<Int64>
    let controllers = FixedBuffer<Float>(capacity: 128, repeating: .nan)
    let controllerFrames = FixedBuffer<Int64>(capacity: 128, repeating: -1)

    static let bandCount = EEGBand.allCases.count

    package init(performers: Int, signals: Int) {
        self.performers = performers
        bands = FixedBuffer(capacity: performers * Self.bandCount, repeating: .nan)
        bandFrames = FixedBuffer(capacity: performers * Self.bandCount, repeating: -1)
        poses = FixedBuffer(capacity: performers * 4, repeating: .nan)
        poseFrames = FixedBuffer(capacity: performers, repeating: -1)
        self.signals = FixedBuffer(capacity: max(1, signals), repeating: .nan)
        signalFrames = FixedBuffer(capacity: max(1, signals), repeating: -1)
    }

    /// Real-time safe. Each returns false for a performer, signal or band it does not keep.
    func setBand(_ band: EEGBand, _ value: Float, performer: Int, at frame: Int64) -> Bool {
        guard performer < performers, value.isFinite else { return false }
        bands[performer * Self.bandCount + Int(band.rawValue)] = value
        bandFrames[performer * Self.bandCount + Int(band.rawValue)] = frame
        return true
    }

    func setPose(_ values: (Float, Float, Float, Float), performer: Int, at frame: Int64) -> Bool {
        guard performer < performers, values.0.isFinite, values.1.isFinite, values.2.isFinite, values.3.isFinite else { return false }
        poses[performer * 4] = values.0
        poses[performer * 4 + 1] = values.1
        poses[performer * 4 + 2] = values.2
        poses[performer * 4 + 3] = values.3
        poseFrames[performer] = frame
        return true
    }

    func setSignal(_ index: Int32, _ value: Float, at frame: Int64) -> Bool {
        guard index >= 0, Int(index) < signals.capacity, value.isFinite else { return false }
        signals[Int(index)] = value
        signalFrames[Int(index)] = frame
        return true
    }

    func setController(_ number: UInt8, _ value: UInt8, at frame: Int64) {
        controllers[Int(number & 0x7F)] = Float(value & 0x7F)
        controllerFrames[Int(number & 0x7F)] = frame
    }

    /// Real-time safe. A non-heart source's value and the frame it came at (NaN, −1: none yet).
    func value(of source: ModulationSource) -> (value: Double, frame: Int64) {
        switch source {
        case .eeg(let performer, let band):
            let index = Int(performer) * Self.bandCount + Int(band.rawValue)
            return (Double(bands[index]), bandFrames[index])
        case .relaxation(let performer):
            let alpha = Int(performer) * Self.bandCount + Int(EEGBand.alpha.rawValue)
            let beta = Int(performer) * Self.bandCount + Int(EEGBand.beta.rawValue)
            let sum = Double(bands[alpha]) + Double(bands[beta])
            let frame = max(bandFrames[alpha], bandFrames[beta])
            return sum > 0 ? (Double(bands[alpha]) / sum, frame) : (.nan, frame)
        case .pose(let performer, let measure):
            let base = Int(performer) * 4
            let frame = poseFrames[Int(performer)]
            switch measure {
            case .leftX: return (Double(poses[base]), frame)
            case .leftY: return (Double(poses[base + 1]), frame)
            case .rightX: return (Double(poses[base + 2]), frame)
            case .rightY: return (Double(poses[base + 3]), frame)
            case .spread:
                let dx = Double(poses[base + 2]) - Double(poses[base]), dy = Double(poses[base + 3]) - Double(poses[base + 1])
                return ((dx * dx + dy * dy).squareRoot(), frame)
            }
        case .signal(let index): return (Double(signals[Int(index)]), signalFrames[Int(index)])
        case .controller(let number): return (Double(controllers[Int(number)]), controllerFrames[Int(number)])
        case .heart, .beatPhase: return (.nan, -1)
        }
    }
}
