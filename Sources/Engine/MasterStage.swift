import Foundation
import Plugins
import Realtime

/// The last stage of the mix, on the process thread: the preset's master gain, an optional
/// peak limiter, and the count of samples that leave the engine beyond full scale (clipped in
/// any DAC or fixed-point file).
///
/// Its last pass is the only one over the finished output: it cleans it (nothing non-finite or
/// subnormal leaves), counts what clips and measures the output's levels for the meters
/// (`levels`), so that the output is read once a period rather than once for each of those.
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
    /// The last `process`'s output levels (the meters' block for a period that sounded).
    private(set) var levels = MeterBlock()
    /// A modulation's gain on top of the preset's (`master.gain`): the value in effect, slewing
    /// toward the target as a voice's gain does, and this period's changes by frame.
    private var modulatedGain: Float = 1
    private var modulatedTarget: Float = 1
    private let gainChanges = FixedBuffer<(offset: Int, gain: Float)>(capacity: 256, repeating: (0, 1))
    private var gainChangeCount = 0
    private let gainSlewPerFrame: Float

    /// Offline.
    init(settings: Settings, sampleRate: Int, counters: EngineCounters) {
        self.settings = settings
        self.counters = counters
        release = 1 - exp(-1 / (settings.releaseSeconds * Float(sampleRate)))
        gainSlewPerFrame = Mixer.gainSlewPerFrame(sampleRate: sampleRate)
    }

    /// Real-time safe. The modulated gain becomes `gain` at `offset` frames into this period
    /// (offsets in order); when the list is full, the last change takes the new target.
    func changeGain(to gain: Float, atOffset offset: Int) {
        if gainChangeCount == gainChanges.capacity { gainChangeCount -= 1 }
        gainChanges[gainChangeCount] = (max(offset, 0), gain)
        gainChangeCount += 1
    }

    /// Real-time safe. The modulated gain over the period, each change from its frame, slewed.
    private func applyModulatedGain(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frames: Int) {
        guard gainChangeCount > 0 || modulatedGain != modulatedTarget || modulatedGain != 1 else { return }
        var next = 0, applied = modulatedGain
        let slew = gainSlewPerFrame
        for frame in 0..<frames {
            while next < gainChangeCount && gainChanges[next].offset <= frame {
                modulatedTarget = gainChanges[next].gain
                next += 1
            }
            applied += min(max(modulatedTarget - applied, -slew), slew)
            left[frame] *= applied
            right[frame] *= applied
        }
        while next < gainChangeCount {
            modulatedTarget = gainChanges[next].gain
            next += 1
        }
        modulatedGain = applied
        gainChangeCount = 0
    }

    /// Real-time safe. Bounded by `frames`. The last guard: non-finite samples (a voice that is not
    /// a plugin, a file holding NaN) become 0 before the gain or the limiter can be poisoned by
    /// them, and nothing non-finite or subnormal leaves it; they are counted. At unity gain without
    /// a limiter nothing comes between the two guards, so the output is read once.
    func process(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frames: Int) {
        let gain = settings.gain
        var nonFinite = 0
        if gain != 1 || settings.ceiling != nil {
            nonFinite = PluginGuard.sanitize(left, frames: frames).nonFinite + PluginGuard.sanitize(right, frames: frames).nonFinite
        }
        if gain != 1 {
            for frame in 0..<frames {
                left[frame] *= gain
                right[frame] *= gain
            }
        }
        applyModulatedGain(left: left, right: right, frames: frames)
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
        let leftFigures = OutputChannelPass.run(left, frames: frames)
        let rightFigures = OutputChannelPass.run(right, frames: frames)
        let clipped = leftFigures.clipped + rightFigures.clipped
        if clipped > 0 { counters.add(.clippedSamples, clipped) }
        nonFinite += leftFigures.nonFinite + rightFigures.nonFinite
        if nonFinite > 0 { counters.add(.nonFiniteSamples, nonFinite) }
        levels = MeterBlock(peakLeft: leftFigures.peak, peakRight: rightFigures.peak,
                            squaresLeft: leftFigures.squares, squaresRight: rightFigures.squares,
                            frames: Int32(frames), nonFinite: Int32(truncatingIfNeeded: nonFinite))
    }

    /// Real-time safe. A period of silence (zeros that nothing computed): nothing to scale, count
    /// or clean; a limiter still holding the gain down recovers over it as over any zeros.
    func processSilence(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frames: Int) {
        if settings.ceiling != nil && limiterGain < 1 { return process(left: left, right: right, frames: frames) }
        // Zeros stay zeros: the modulated gain simply arrives where it was going.
        if gainChangeCount > 0 { modulatedTarget = gainChanges[gainChangeCount - 1].gain }
        modulatedGain = modulatedTarget
        gainChangeCount = 0
    }
}
