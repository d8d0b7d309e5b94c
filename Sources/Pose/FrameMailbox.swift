import Realtime

/// The newest captured frame, handed from the capture thread to the pose thread: one slot, so a
/// frame the pose thread has not taken when the next arrives is dropped (and counted), never
/// queued: inference that falls behind reads the present, not a growing past.
final class FrameMailbox: Sendable {
    private let slot = LockedBox<RGBFrame?>(nil)
    let bell = Doorbell()

    /// Capture thread. True when it replaced a frame not yet taken (that frame is dropped).
    func put(_ frame: RGBFrame) -> Bool {
        let replaced = slot.withLockedValue { slot in
            defer { slot = frame }
            return slot != nil
        }
        bell.ring()
        return replaced
    }

    /// Pose thread. The newest frame, if one came since the last take.
    func take() -> RGBFrame? {
        slot.withLockedValue { slot in
            defer { slot = nil }
            return slot
        }
    }
}
