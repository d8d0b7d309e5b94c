import CJack
import Glibc
import Realtime
import Engine

/// JACK's callbacks, each handed the `ProcessHost` as its context: the process path, latency,
/// xruns, the server's shutdown, period changes, connections, freewheel and the timebase.
extension ProcessHost {
    private static func host(_ context: UnsafeMutableRawPointer?) -> ProcessHost {
        Unmanaged<ProcessHost>.fromOpaque(context!).takeUnretainedValue()
    }

    /// Control thread, before activation: installs every callback on `client`; why the timebase
    /// was refused, if it was.
    func installCallbacks(on client: OpaquePointer, timebase mode: JackClient.Timebase) -> String? {
        let context = Unmanaged.passUnretained(self).toOpaque()
        jack_set_process_callback(client, { frames, context in
            // Guaranteed by the client, which holds the host while it is active: no retain and
            // release around every period.
            Unmanaged<ProcessHost>.fromOpaque(context!)._withUnsafeGuaranteedRef { $0.process(frames: frames) }
            return 0
        }, context)
        jack_set_latency_callback(client, { mode, context in ProcessHost.host(context).reportLatency(mode) }, context)
        jack_set_xrun_callback(client, { context in
            ProcessHost.host(context).engineHandle.counters.add(.xruns)
            return 0
        }, context)
        // Both shutdown callbacks, one handler: jackd2 calls only the info one when both are
        // set, PipeWire 0.3.65 only the plain one (the info one arrived in 0.3.71).
        // Each rings the control thread's bell after it (an eventfd write: signal-safe).
        jack_on_info_shutdown(client, { _, reason, context in ProcessHost.host(context).serverShutDown(reason: reason) }, context)
        jack_on_shutdown(client, { context in ProcessHost.host(context).serverShutDown(reason: nil) }, context)
        jack_set_buffer_size_callback(client, { frames, context in
            ProcessHost.host(context).owner?.periodChanged(to: Int(frames))
            return 0
        }, context)
        jack_set_sample_rate_callback(client, { rate, context in
            let host = ProcessHost.host(context)
            host.serverRate.changed(to: Int(rate))
            host.engineHandle.controlBell.ring()
            return 0
        }, context)
        // Any connection made or broken on the server: which of our ports the process thread
        // reads and writes (`PortLinks`), and the control thread reads ours again at its next
        // wake-up (rung now, so a server that dies next still leaves them known).
        jack_set_port_connect_callback(client, { _, _, _, context in
            let host = ProcessHost.host(context)
            host.links.update()
            host.owner?.connectionsMayHaveChanged()
            host.engineHandle.controlBell.ring()
        }, context)
        jack_set_freewheel_callback(client, { starting, context in ProcessHost.host(context).freewheel(starting != 0) }, context)
        guard mode != .off else { return nil }
        let status = jack_set_timebase_callback(client, mode == .conditional ? 1 : 0, { _, frames, position, newPosition, context in
            ProcessHost.host(context).timebase(position: position!, frames: frames, newPosition: newPosition != 0)
        }, context)
        if status == EBUSY { return "another client is the transport's timebase master (take over with --timebase-force)" }
        return status == 0 ? nil : "JACK refused the timebase (error \(status))"
    }

    /// The server is going: the client says so, and the control thread's watch is woken for it.
    private func serverShutDown(reason: UnsafePointer<CChar>?) {
        owner?.serverShutDown(reason: reason)
        engineHandle.controlBell.ring()
    }
}
