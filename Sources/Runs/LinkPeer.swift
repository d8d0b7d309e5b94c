import Foundation
import Inputs
import JackBackend
import Realtime

/// A live run's Ableton Link peer (`--link`, `--follow-link`): it joins the session when the
/// run starts and leaves when it stops, and shows the session in the status. Its work is on the
/// process thread (`LinkBridge`), not through a ring: the ring it has, as every source, stays empty.
final class LinkPeer: InputSource {
    let ring = SPSCRing<ControlMessage>(minimumCapacity: 2)
    let session: LinkSession
    private let client: JackClient

    init(settings: LinkSession.Settings, bpm: Double, client: JackClient) throws(LinkError) {
        session = try LinkSession(bpm: bpm, settings: settings)
        self.client = client
    }

    func start() {
        session.startUpkeep(client: client)
        session.join()
    }

    func stop() {
        session.leave()
        session.stopUpkeep()
    }

    func statusValues(performers: [String]) -> [(String, StatusValue)] {
        let readings = session.readings
        return [("link", .text(session.settings.follows ? "following" : "leading")), ("link_peers", .int(session.peers)),
                ("link_tempo", .float(Double(bitPattern: readings.tempo.load(ordering: .relaxed)))),
                ("link_beat", .float(Double(bitPattern: readings.beat.load(ordering: .relaxed)))),
                ("link_clamped_tempos", .int(readings.clampedTempos.load(ordering: .relaxed)))]
    }
}
