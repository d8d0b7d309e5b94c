import Foundation
import Plugins

/// The last stage of the mix, on the process thread: the preset's master gain, an optional
/// peak limiter, and the count of samples that leave the engine beyond full scale (clipped in
/// any DAC or fixed-point file).
///
/// The limiter has no look-ahead, so it adds no latency and every beat stays on its frame: its
/// gain drops at once to what keeps the loudest channel at the ceiling, and recovers toward 1
/// with a `releaseSeconds` time constant. A signal that never passes the ceiling leaves it
/// untouched, sample for sample.
package final class MasterStage {
    struct Settings: Equatable, Sendable {
        /// Linear gain applied to the mix before the limiter.
        var gain: Float = 1
        /// The limiter's ceiling as a linear peak level; nil: no limiter.
        var ceiling: Float?
        var releaseSeconds: Float = 0.05
    }

    let settings: Settings
    /// Where it counts samples (per channel) beyond ±1.0 at the output (`clippedSamples`), and
    /// non-finite samples it replaced by zero (`nonFiniteSamples`), on the process thread.
    let counters: EngineCounters
    private let release: Float
    private var limiterGain: Float = 1

    /// Offline.
    init(settings: Settings, sampleRate: Int, counters: EngineCounters) {
        self.settings = settings
        self.counters = counters
        release = 1 - exp(-1 / (settings.releaseSeconds * Float(sampleRate)))
    }

    /// Real-time safe. Bounded by `frames`. The last guard: non-finite samples (a voice that is not
    /// a plugin, a file holding NaN) become 0 before the limiter can be poisoned by them, and
    /// nothing non-finite or subnormal leaves it; they are counted.
    func process(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frames: Int) {
        sanitize(left, right, frames: frames)
        defer { sanitize(left, right, frames: frames) }
        let gain = settings.gain
        if gain != 1 {
            for frame in 0..<frames {
                left[frame] *= gain
                right[frame] *= gain
            }
        }
        if let ceiling = settings.ceiling {
            var applied = limiterGain
            for frame in 0..<frames {
                let peak = max(abs(left[frame]), abs(right[frame]))
                applied += (1 - applied) * release
                if peak * applied > ceiling { applied = ceiling / peak }
                if applied < 1 {
                    left[frame] *= applied
                    right[frame] *= applied
                }
            }
            limiterGain = applied
        }
        var clipped = 0
        for frame in 0..<frames {
            if abs(left[frame]) > 1 { clipped += 1 }
            if abs(right[frame]) > 1 { clipped += 1 }
        }
        if clipped > 0 { counters.clippedSamples.wrappingIncrement(by: clipped, ordering: .relaxed) }
    }

    /// Real-time safe. A period of silence (zeros that nothing computed): nothing to scale, count
    /// or clean; a limiter still holding the gain down recovers over it as over any zeros.
    func processSilence(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frames: Int) {
        if settings.ceiling != nil && limiterGain < 1 { process(left: left, right: right, frames: frames) }
    }

    /// Real-time safe.
    private func sanitize(_ left: UnsafeMutablePointer<Float>, _ right: UnsafeMutablePointer<Float>, frames: Int) {
        let found = PluginGuard.sanitize(left, frames: frames).nonFinite + PluginGuard.sanitize(right, frames: frames).nonFinite
        if found > 0 { counters.nonFiniteSamples.wrappingIncrement(by: found, ordering: .relaxed) }
    }
}
