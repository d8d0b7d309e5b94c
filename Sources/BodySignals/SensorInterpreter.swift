import Realtime
/// What raw sensor data means to the engine, in one place for live OSC and for replayed or
/// rendered sessions: a pulse wave's beats (PPG detector), hands crossing into regions (region
/// model, with hysteresis), and — live, with prediction — the frame of the next beat from recent
/// ones (the mood is `MoodWatch`'s). The caller owns the frames and where the events go. One sensor thread (or the offline renderer) owns an interpreter.
public struct SensorInterpreter: Sendable {
    /// The preset's region names in index order: a hit on a region the preset does not name plays nothing.
    public let regionNames: [String]
    private var regionModel: RegionModel
    private var ppg: PPGBeatDetector
    private var predictor = BeatPredictor()

    public init(regionNames: [String], regionModel: RegionModel = RegionModel(),
                ppgRate: Double = 100) {
        self.regionNames = regionNames
        self.regionModel = regionModel
        ppg = PPGBeatDetector(sampleRate: ppgRate)
    }

    /// A new pulse-wave sample rate (10…10,000 Hz): the detector starts afresh.
    public mutating func setPPGRate(_ rate: Double) {
        ppg = PPGBeatDetector(sampleRate: rate)
    }

    /// The detector's last inter-beat interval in seconds, once it has found beats.
    public var ppgInterval: Double? { ppg.lastInterval }

    /// One pulse-wave sample; true when it completes a beat (an explicit beat, never a tempo:
    /// a tempo too would start the clock's own beats beside them).
    public mutating func pulseWave(_ sample: Double) -> Bool {
        ppg.process(sample)
    }

    /// Hands at `frame`: a hit, at its interpolated crossing frame, for each region the preset names.
    public mutating func pose(frame: Int64, leftX: Float, leftY: Float, rightX: Float, rightY: Float) -> [(region: Int32, frame: Int64)] {
        regionModel.update(frame: frame, leftX: Double(leftX), leftY: Double(leftY), rightX: Double(rightX), rightY: Double(rightY))
            .compactMap { hit in regionNames.firstIndex(of: hit.region.name).map { (Int32($0), hit.frame) } }
    }

    /// A beat detected at `frame`: the predicted frame of the next one (the detected beat is
    /// already past when it is known), `latencyFrames` early; nil until three beats are known.
    public mutating func predictNextBeat(detectedAt frame: Int64, latencyFrames: Int64) -> Int64? {
        predictor.observe(beatAt: frame).map { $0 - latencyFrames }
    }
}
