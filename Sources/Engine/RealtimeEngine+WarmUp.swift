import Voices
import Realtime
import Plugins

extension RealtimeEngine {
    /// Offline. Runs one silent period so that every lazy global and generic metadata
    /// the process path needs exists before the process thread first runs it.
    public func warmUp() {
        ProcessThread.assertOutside("warming an engine up")
        let scratch = FixedBuffer<Float>(capacity: 2 * maxFrames, repeating: 0)
        let left = scratch.pointer, right = scratch.pointer + maxFrames
        // The shared grid's paths, on a grid of their own.
        let scratchGrid = SharedGrid(counters: GridCounters())
        scratchGrid.sends = true
        let (status, lsb, msb) = SharedGrid.message(beat: 1)
        scratchGrid.send(beat: SharedGrid.beat(status: status, lsb: lsb, msb: msb) ?? 0, at: 0)
        _ = scratchGrid.receive(position: 0)
        _ = scratchGrid.take(at: 0)
        for slot in slots {
            slot.voice.render(left: left, right: right, frames: 1)
            slot.blockVoice?.renderBlock(left: left, right: right, frames: 1)
        }
        // A zero-frame chunk walks the drain and scheduling path: messages already waiting move
        // into the event queue at their frames, and nothing is rendered or lost.
        processChunk(frames: 0, left: left, right: right)
        // The hosted plugins' paths: a no-op change on each chain (its first insert's bypass, set
        // to what it is) and a one-frame block through every chain and instrument.
        for index in -1..<slots.count {
            guard let chain = graph.insertChain(InsertAddress(chain: Int32(index), stage: 0, port: 0)), !chain.stages.isEmpty else {
                continue
            }
            chain.change(stage: 0, port: InsertChain.bypassPort, value: chain.stages[0].bypass ? 1 : 0, atOffset: 0)
        }
        PluginProcess.prepare()
        performance.warmUp()
        // The fired-voice and observation pushes, before any voice fires.
        firing.warmUp()
        // The retired ring's push, which a live plugin-state load hands instances back through.
        let scratchRing = SPSCRing<RetainedObject>(minimumCapacity: 2)
        if scratchRing.producer.push(RetainedObject(retaining: scratchRing)) { scratchRing.consumer.pop()?.release() }
        _ = VoiceSlot.gainRange.contains(1) && VoiceSlot.panRange.contains(0)
        left.update(repeating: 0, count: 2 * maxFrames)
        // The SIMD passes (the master's, a plugin guard's) with a whole step of four frames: a
        // debug build instantiates their vector types' metadata on first use.
        _ = OutputChannelPass.run(left, frames: 4)
        _ = PluginGuard.sanitize(left, frames: 4)
        mixer.finishBlock(frames: 1, left: left, right: right)
        masterInserts?.process(left: left, right: right, frames: 1)
        _ = handle.counters.snapshot()
        // The live picture's copy and report paths.
        if let view {
            view.request()
            view.serve(graph, performance: performance)
            _ = view.take()
        }
    }
}
