import Foundation
import Realtime

/// A libjack call that a dead, dying or stopped server can hold for ever (`jack_client_close`,
/// `jack_deactivate`, opening a probe client): run on a thread of its own and waited for at most
/// `seconds`. False when it did not finish in time; its thread is then left to it.
func finishes(within seconds: Double, _ call: @escaping @Sendable () -> Void) -> Bool {
    let done = DispatchSemaphore(value: 0)
    let worker = Thread {
        ThreadName.set("pj-jack-call")
        call()
        done.signal()
    }
    worker.start()
    return done.wait(timeout: .now() + seconds) == .success
}
