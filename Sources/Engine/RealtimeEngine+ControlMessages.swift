import Realtime
import Plugins

/// Applying a control message at its frame: tempo and beats to the hearts, triggers to the
/// firing, settings to the voices and inserts, region hits and modes to the performance, swaps
/// of clips and plugin sets; and handing back to the control thread what no longer plays.
extension RealtimeEngine {
    /// Real-time safe. One control message at its frame: each kind of message to the part of
    /// the engine it concerns, one line each.
    func apply(_ event: ControlMessage.Event, at frame: Int64, performer: UInt8 = 0) {
        counters.add(.messagesApplied)
        reportApplied(ControlMessage(frame: frame, performer: performer, event))
        switch event {
        case .tempo(let bpm): applyTempo(bpm, of: performer, at: frame)
        case .heartbeat(let strength): applyHeartbeat(strength, of: performer, at: frame)
        case .rrIntervals(let intervals): applyIntervals(intervals, of: performer, at: frame)
        case .heartPresence(let present): applyPresence(present, of: performer, at: frame)
        case .voiceTrigger(let voice, let velocity): applyTrigger(voice, velocity: velocity, at: frame)
        case .voiceParameter(let voice, let parameter): applyParameter(parameter, of: voice)
        case .regionHit(let region, let velocity): applyRegionHit(region, velocity: velocity, at: frame)
        case .modeChange(let newMode): enter(newMode, at: frame)
        case .pose(let leftX, let leftY, let rightX, let rightY): applyPose((leftX, leftY, rightX, rightY), of: performer, at: frame)
        case .bandPower(let band, let value): applyBandPower(band, value, of: performer, at: frame)
        case .signal(let index, let value): applySignal(index, value, at: frame)
        case .controller(let number, let value): applyController(number, value, at: frame)
        case .modulationEnable(let index, let on): applyModulationSwitch(index, on, at: frame)
        case .insertControl(let address, let value): applyInsertControl(address, value, at: frame)
        case .swapInsert(let address, let object): swapInsert(address, object.unmanaged, at: frame)
        case .swapClip(let voice, let clip): swapClip(voice, clip.unmanaged)
        // A session log's record of a lost cycle: the offline renderer replays it, no ring carries it.
        case .framesSkipped: invalid()
        }
    }

    // MARK: A performer's heart

    /// Real-time safe.
    private func applyTempo(_ bpm: Double, of performer: UInt8, at frame: Int64) {
        guard Int(performer) < hearts.performerCount else { return invalid() }
        guard !hearts.followsGrid(Int(performer)) else { return counters.add(.ignoredTempos) }
        hearts.setTempo(bpm, at: frame, performer: Int(performer))
        bodyChanged(.heart(performer), at: frame)
    }

    /// Real-time safe.
    private func applyHeartbeat(_ strength: Float, of performer: UInt8, at frame: Int64) {
        if performer == SharedGrid.performer { return hearts.gridBeat(at: frame, firing: firing) }
        guard strength.isFinite, Int(performer) < hearts.performerCount else { return invalid() }
        guard !hearts.followsGrid(Int(performer)) else { return counters.add(.ignoredTempos) }
        hearts.explicitBeat(Int(performer), strength: strength, at: frame, firing: firing)
        bodyChanged(.heart(performer), at: frame)
    }

    /// Real-time safe. Their beats travel beside them; the intervals themselves are the heart's variability.
    private func applyIntervals(_ intervals: RRIntervals, of performer: UInt8, at frame: Int64) {
        guard Int(performer) < hearts.performerCount else { return invalid() }
        hearts.sensorIntervals(intervals, of: Int(performer), at: frame)
        bodyChanged(.heart(performer), at: frame)
    }

    /// Real-time safe.
    private func applyPresence(_ present: Bool, of performer: UInt8, at frame: Int64) {
        guard Int(performer) < hearts.performerCount else { return invalid() }
        hearts.presence(Int(performer), present, at: frame)
        bodyChanged(.heart(performer), at: frame)
    }

    // MARK: Voices, regions and inserts

    /// Real-time safe.
    private func applyTrigger(_ voice: Int32, velocity: Float, at frame: Int64) {
        guard slot(voice) != nil, velocity.isFinite else { return invalid() }
        firing.fireIfPlaying(voice, velocity: velocity, at: frame)
    }

    /// Real-time safe. Under a modulation, a gain or pan is its base, heard when it lets go.
    private func applyParameter(_ parameter: VoiceParameter, of voice: Int32) {
        guard let slot = slot(voice) else { return invalid() }
        settingChanged()
        switch parameter {
        case .enable(let on): slot.enabled = on
        case .gain(let gain):
            guard gain.isFinite, VoiceSlot.gainRange.contains(gain) else { return invalid() }
            slot.gain = gain
        case .pan(let pan):
            guard pan.isFinite, VoiceSlot.panRange.contains(pan) else { return invalid() }
            slot.pan = pan
        case .rate(let rate):
            guard rate.isValid else { return invalid() }
            slot.rate = rate
        }
    }

    /// Real-time safe.
    private func applyRegionHit(_ region: Int32, velocity: Float, at frame: Int64) {
        guard velocity.isFinite else { return invalid() }
        if region >= 0 && Int(region) < handle.regionNames.count { firing.observed(.regionHit, region, at: frame, value: velocity) }
        switch performance.hit(region: region) {
        case .invalid: invalid()
        case .silent: break
        case .enter(let newMode): enter(newMode, at: frame)
        case .play(let voice): firing.fireIfPlaying(voice, velocity: velocity, at: frame)
        }
    }

    /// Real-time safe. Under a modulation, the value is its base, heard when it lets go.
    private func applyInsertControl(_ address: InsertAddress, _ value: Float, at frame: Int64) {
        guard let chain = graph.insertChain(address), Int(address.stage) < chain.stages.count, value.isFinite else { return invalid() }
        settingChanged()
        if modulations?.takeManualChange(of: .insertControl(address), value) == true { return }
        chain.change(stage: Int(address.stage), port: address.port, value: value, atOffset: Int(frame - blockStart))
    }

    /// Real-time safe. The message's strong reference moves into the stage at its frame; the old
    /// set's goes back. A refused or misaddressed one goes back at once.
    private func swapInsert(_ address: InsertAddress, _ object: Unmanaged<AnyObject>, at frame: Int64) {
        guard let chain = graph.insertChain(address), Int(address.stage) < chain.stages.count,
              object.takeUnretainedValue() is InsertChain.PluginSet else {
            retire(object)
            return invalid()
        }
        settingChanged()
        chain.swap(stage: Int(address.stage), to: Unmanaged<InsertChain.PluginSet>.fromOpaque(object.toOpaque()),
                   atOffset: Int(frame - blockStart))
    }

    // MARK: Modulation sources

    /// Real-time safe. The regions the hands enter were found before the ring; here they are a modulation source.
    private func applyPose(_ hands: (Float, Float, Float, Float), of performer: UInt8, at frame: Int64) {
        guard let modulations else { return }
        guard modulations.readings.setPose(hands, performer: Int(performer), at: frame) else { return invalid() }
        bodyChanged(.pose(performer), at: frame)
    }

    /// Real-time safe. The mood took them before the ring; here they are a modulation source.
    private func applyBandPower(_ band: EEGBand, _ value: Float, of performer: UInt8, at frame: Int64) {
        guard let modulations else { return }
        guard modulations.readings.setBand(band, value, performer: Int(performer), at: frame) else { return invalid() }
        bodyChanged(.eeg(performer), at: frame)
    }

    /// Real-time safe.
    private func applySignal(_ index: Int32, _ value: Float, at frame: Int64) {
        guard let modulations, modulations.readings.setSignal(index, value, at: frame) else { return invalid() }
        bodyChanged(.signal(index), at: frame)
    }

    /// Real-time safe.
    private func applyController(_ number: UInt8, _ value: UInt8, at frame: Int64) {
        guard let modulations, number < 128, value < 128 else { return invalid() }
        modulations.readings.setController(number, value, at: frame)
        bodyChanged(.controller(number), at: frame)
    }

    /// Real-time safe.
    private func applyModulationSwitch(_ index: Int32, _ on: Bool, at frame: Int64) {
        guard let modulations, modulations.enable(index, on, at: frame, blockStart: blockStart, periodStart: periodStart, hearts: hearts)
        else { return invalid() }
        settingChanged()
    }

    /// Real-time safe. A body signal of `key` changed at `frame`: the modulations that read it follow.
    @inline(__always)
    private func bodyChanged(_ key: SourceKey, at frame: Int64) {
        modulations?.changed(key, at: frame, blockStart: blockStart, periodStart: periodStart, hearts: hearts)
    }

    /// Real-time safe. A voice setting or an insert's plugin set changed: counted for a session
    /// save, and the control thread woken for it when a session manager follows the count.
    private func settingChanged() {
        handle.settingChanges.wrappingIncrement(ordering: .relaxed)
        if handle.ringsOnSettingChanges.load(ordering: .relaxed) { controlWork = true }
    }

    /// Real-time safe. Into the session recording (`run --record-session`), when there is one.
    func reportApplied(_ message: ControlMessage) {
        guard let appliedReports else { return }
        if appliedReports.push(message) {
            controlWork = true
        } else {
            counters.add(.sessionLogOverruns)
        }
    }

    /// Real-time safe. A convolution voice's new clip; a refused or misaddressed one goes back.
    private func swapClip(_ voice: Int32, _ offered: Unmanaged<AnyObject>) {
        guard let clipVoice = slot(voice)?.clipVoice else {
            retire(offered)
            return invalid()
        }
        if clipVoice.swapClip(offered, retire: retire) {
            firing.wake(voice)
        } else {
            counters.add(.swapsRefused)
            retire(offered)
        }
    }

    /// Real-time safe. Sends an object a swap no longer needs back to the control thread. The
    /// ring holds 256; were it full, the object would leak rather than be released here.
    func retire(_ object: Unmanaged<AnyObject>) {
        retired.push(RetainedObject(handingOver: object))
        controlWork = true
    }

    /// Real-time safe. Changes the performance mode and announces it with its voice.
    private func enter(_ newMode: PerformanceMode, at frame: Int64) {
        firing.observed(.mode, Int32(newMode.rawValue), at: frame, value: 1)
        if let announce = performance.enter(newMode), let slot = slot(announce), !slot.silenced {
            firing.fire(announce, velocity: 1, at: frame)
        }
    }

    @inline(__always)
    private func invalid() { counters.add(.invalidMessages) }

    @inline(__always)
    private func slot(_ index: Int32) -> VoiceSlot? {
        index >= 0 && Int(index) < slots.count ? slots[Int(index)] : nil
    }
}
