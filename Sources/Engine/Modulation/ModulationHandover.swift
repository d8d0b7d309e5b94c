/// Control thread, neither engine running: a rebuilt engine (the same preset at another rate)
/// takes over where the old one stood.
extension ModulationBank {
    /// Each modulation's switch, base and values, and the body readings.
    func takeOver(_ old: ModulationBank, at frame: Int64) {
        for index in 0..<min(count, old.count) {
            let was = old.states[index]
            let state = states.pointer + index
            state.pointee.enabled = was.enabled
            state.pointee.base = was.base
            state.pointee.smoothed = was.smoothed
            state.pointee.reading = was.reading
            state.pointee.output = was.output
            state.pointee.nextDue = was.nextDue == .max ? .max : Self.boundary(atOrAfter: frame)
        }
        readings.take(old.readings)
        updateNextDue()
    }
}

extension BodyReadings {
    /// `old`'s values (frames as they were: a rebuilt engine starts where the old one stopped).
    func take(_ old: BodyReadings) {
        for index in 0..<min(bands.capacity, old.bands.capacity) { (bands[index], bandFrames[index]) = (old.bands[index], old.bandFrames[index]) }
        for index in 0..<min(poses.capacity, old.poses.capacity) { poses[index] = old.poses[index] }
        for index in 0..<min(poseFrames.capacity, old.poseFrames.capacity) { poseFrames[index] = old.poseFrames[index] }
        for index in 0..<min(signals.capacity, old.signals.capacity) { (signals[index], signalFrames[index]) = (old.signals[index], old.signalFrames[index]) }
        for index in 0..<128 { (controllers[index], controllerFrames[index]) = (old.controllers[index], old.controllerFrames[index]) }
    }
}
