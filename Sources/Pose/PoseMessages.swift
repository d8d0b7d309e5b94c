import BodySignals
import Realtime

/// The fists at a frame, as messages for the engine: the regions they enter (the preset's region
/// model, a hit at the frame itself: a camera frame's capture, not a crossing interpolated from
/// the last frame) and the hands as `pose.*` sources. Live (`PoseInput`) and offline
/// (`PoseRecording`) alike.
struct PoseMessages {
    private var interpreter: SensorInterpreter

    init(regionNames: [String], regionModel: RegionModel) {
        var model = regionModel
        model.interpolates = false
        interpreter = SensorInterpreter(regionNames: regionNames, regionModel: model)
    }

    /// The messages for `hands` seen at `frame`, to be played at `playedAt` (the frame itself, or
    /// `ControlMessage.immediate` when it has passed); and how many region hits they hold.
    /// Hands the model made absurd (a NaN, an infinity) make none.
    mutating func messages(_ hands: PoseHands, at frame: Int64, playedAt: Int64) -> (messages: [ControlMessage], hits: Int) {
        guard hands.values.allSatisfy(OutsideNumber.isPlausible) else { return ([], 0) }
        let values = hands.values.map(Float.init)
        let hits = interpreter.pose(frame: frame, leftX: values[0], leftY: values[1], rightX: values[2], rightY: values[3])
        let pose = ControlMessage(frame: playedAt, .pose(leftX: values[0], leftY: values[1], rightX: values[2], rightY: values[3]))
        return ([pose] + hits.map { ControlMessage(frame: playedAt, .regionHit(region: $0.region, velocity: 1)) }, hits.count)
    }
}
