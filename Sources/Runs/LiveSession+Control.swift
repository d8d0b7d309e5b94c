import Inputs
import Realtime
import OSC

/// What a live session's control thread does each tick beside the logs and the server watch.
extension LiveSession {
    /// Each performer's dropout, whatever the source of their heart: said once, faded when the
    /// preset says so, and their return.
    func watchHearts() {
        let performers = loaded.performerNames, hearts = inputs.hearts
        func whose(_ performer: Int) -> String { performers.isEmpty ? "" : performers[performer] + "'s " }
        for change in hearts.check() {
            switch change {
            case .lost(let performer):
                if hearts.fades { inputs.control.send(ControlMessage(performer: UInt8(performer), .heartPresence(false))) }
                log("no \(whose(performer))heart data for \(hearts.seconds.plainText) s: "
                    + (hearts.fades ? "fading \(whose(performer))heart-driven voices out" : "holding the last tempo"))
            case .back(let performer):
                if hearts.fades { inputs.control.send(ControlMessage(performer: UInt8(performer), .heartPresence(true))) }
                log("\(whose(performer))heart data is back")
            }
        }
    }

    /// What OSC asked of the control thread: a plugin state built here and swapped in at its frame.
    func perform(_ request: OSCRequest) {
        switch request {
        case .loadInsertState(let place, let insert, let folder):
            swapInsert(place: place, insert: insert, what: "the plugin state \(folder)") {
                try handle.insertStateMessage(place: place, insert: insert, state: folder)
            }
        case .loadInsertPreset(let place, let insert, let preset):
            swapInsert(place: place, insert: insert, what: "the plugin's preset '\(preset)'") {
                try handle.insertPresetMessage(place: place, insert: insert, preset: preset)
            }
        }
    }

    /// The instances `make` builds sent to the process thread to swap in, or why not said.
    private func swapInsert(place: String, insert: Int, what: String, make: () throws -> ControlMessage) {
        do {
            let message = try make()
            if !inputs.control.send(message) {
                if case .swapInsert(_, let instances) = message.event { instances.release() }
                log("\(place) insert \(insert): the control ring is full; \(what) not loaded")
            } else {
                say("pulsejack: loaded \(what) into \(place)'s insert \(insert)")
            }
        } catch {
            log("\(error)")
        }
    }

    /// A changed path latency goes to JACK (its latency callback) and is said once.
    func reportLatency() {
        let latency = handle.publishedLatency.load(ordering: .relaxed)
        guard latency != reportedLatency else { return }
        reportedLatency = latency
        client.recomputeLatencies()
        if latency > 0 {
            say("pulsejack: plugin latency \(latency) frames: heartbeat notes go that much early and land on the beat; "
                + "the audio input, MIDI pads and triggers sound \(latency) frames late (reported to JACK)")
        }
    }

    /// Each mood DJ's next track, when its voice's performer's mood calls for one; the page shows the first's.
    func pickTracks() {
        for (dj, performer) in djs {
            do {
                if let message = try dj.tick(mood: inputs.moods.mood(of: performer)) { inputs.control.send(message) }
            } catch {
                log("\(error)")
            }
        }
        if let view, let dj = djs.first?.dj { view.setTrack(dj.current) }
        if let lslOut = inputs.lslOut {
            for (index, entry) in djs.enumerated() where entry.dj.current != markedTracks[index] {
                markedTracks[index] = entry.dj.current
                if let track = entry.dj.current { lslOut.mark("track/" + track) }
            }
        }
    }
}
