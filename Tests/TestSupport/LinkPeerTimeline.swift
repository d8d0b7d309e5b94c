import Foundation

/// Ableton Link's peer's session (`scripts/link/peer.py --out`) as it recorded it every 5 ms:
/// its beat (for the quantum) and tempo at each time on Link's clock, and when pulsejack came.
public struct LinkPeerTimeline {
    public let came: Double
    public let samples: [(micros: Double, beat: Double, tempo: Double, playing: Bool)]

    public init(_ path: String) throws {
        guard let object = try LSLPeer.json(path) as? [String: Any], let came = object["came"] as? Double,
              let samples = object["samples"] as? [[Any]] else { throw LSLPeer.JSONFailure("\(path): no session recorded") }
        self.came = came
        self.samples = samples.map { ($0[0] as? Double ?? 0, $0[1] as? Double ?? 0, $0[2] as? Double ?? 0, $0[3] as? Bool ?? false) }
    }

    /// The peer's beat and tempo at `micros`, from the last sample before it (nil outside them).
    public func beat(at micros: Double) -> (beat: Double, tempo: Double)? {
        guard let sample = samples.last(where: { $0.micros <= micros }), let last = samples.last, micros < last.micros else { return nil }
        return (sample.beat + (micros - sample.micros) * sample.tempo / 60e6, sample.tempo)
    }

    /// How far `micros` lies from the peer's nearest integer beat, in µs (nil outside the samples).
    public func distanceFromBeat(at micros: Double) -> Double? {
        beat(at: micros).map { abs($0.beat - $0.beat.rounded()) * 60e6 / $0.tempo }
    }

    /// The first sample's time from `start` on with the tempo within 0.01 BPM of `bpm`, held to the end or the next change.
    public func firstHeld(_ bpm: Double, from start: Double) -> Double? {
        samples.first { $0.micros >= start && abs($0.tempo - bpm) <= 0.01 }?.micros
    }
}
