/// A voice whose clip can be replaced while it plays, without a gap or a click. The new clip is
/// prepared off the real-time thread (decoded, resampled, partitioned) and handed over as an
/// unmanaged object; the one it replaces comes back through `retire`, to be released off the
/// real-time thread too.
public protocol ClipSwapping: Voice {
    /// Real-time safe. Takes `clip` (passed retained; a `SampleBuffer`, or for the dense path a
    /// prepared `DenseConvolutionVoice`). Returns false, taking nothing, while the previous swap
    /// is still under way: offer it again later.
    func swapClip(_ clip: Unmanaged<AnyObject>, retire: (Unmanaged<AnyObject>) -> Void) -> Bool

    /// Real-time safe. Hands over, through `retire`, whatever a finished swap no longer needs.
    func reclaim(retire: (Unmanaged<AnyObject>) -> Void)
}

extension SparseConvolutionVoice: ClipSwapping {
    public func swapClip(_ clip: Unmanaged<AnyObject>, retire: (Unmanaged<AnyObject>) -> Void) -> Bool {
        // Notes already sounding finish on the old clip; new impulses use the new one.
        guard let buffer = clip.takeUnretainedValue() as? SampleBuffer else { return false }
        return copies.swapClip(Unmanaged.passUnretained(buffer)) { retire(Unmanaged.passUnretained($0.takeUnretainedValue())) }
    }

    public func reclaim(retire: (Unmanaged<AnyObject>) -> Void) {
        copies.reclaimRetiring { retire(Unmanaged.passUnretained($0.takeUnretainedValue())) }
    }
}
