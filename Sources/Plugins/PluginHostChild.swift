import Atomics
import CProcessThread
import Foundation
import Realtime

/// The child side of an isolated plugin (`pulsejack plugin-host`): it maps the engine's region,
/// instantiates the plugin, restores its state, and runs it each time the engine posts a run,
/// until the engine kills it or dies (then the kernel kills it). Whatever the plugin does wrong
/// here — a crash, an endless loop — ends this process only.
///
/// Two threads: the main one runs the plugin (its audio thread); another answers the engine's
/// requests on standard input ("save <folder>"), as LV2 allows a save beside a run.
package enum PluginHostChild {
    package struct Request: Sendable {
        package var region: String
        package var uri: String
        package var sampleRate: Int
        package var offline: Bool
        package var state: String?
        package var files: String?
        package init(region: String, uri: String, sampleRate: Int, offline: Bool, state: String?, files: String?) {
            self.region = region
            self.uri = uri
            self.sampleRate = sampleRate
            self.offline = offline
            self.state = state
            self.files = files
        }
    }

    /// What the save thread may do with the plugin the run thread runs: copy the engine's control
    /// values into the instance's own snapshot, and save its state (LV2 allows a save beside a
    /// run). Nothing else of the instance is reachable through it, so the compiler keeps that
    /// thread to these.
    // @unchecked: the instance is the run thread's; this reaches only its save-time snapshot (the
    // save thread's alone) and its state save, which LV2 lets run beside `run`.
    private struct StateSaver: @unchecked Sendable {
        private let plugin: PluginInstance
        private let region: PluginRegion

        init(_ plugin: PluginInstance, region: PluginRegion) {
            self.plugin = plugin
            self.region = region
        }

        /// The plugin's state into `folder`, with the port values as the engine last sent them
        /// (the engine's are the truth).
        func save(to folder: String) throws {
            for port in plugin.ports where port.kind == .control && port.isInput {
                let bits = UnsafeAtomic<UInt32>(at: UnsafeMutableRawPointer(region.controls + Int(port.index))
                    .assumingMemoryBound(to: UInt32.AtomicRepresentation.self)).load(ordering: .relaxed)
                plugin.controlSnapshot[Int(port.index)] = Float(bitPattern: bits)
            }
            try plugin.saveState(to: folder)
        }

        /// A CLAP plugin's main-thread work (timers, descriptors, callbacks), on this thread as
        /// its saves are, and what it logged; when to come back and the descriptors to wait on.
        func serveMainThread() -> (dueSeconds: Double?, descriptors: [Int32]) {
            let served = plugin.serveMainThread()
            for line in plugin.drainLog() { say(line) }
            return served
        }
    }

    /// The child's life; what to exit with when the plugin could not be set up.
    package static func serve(_ request: Request) -> Int32 {
        guard endsWithTheEngine() else { return 0 }
        let descriptor = open(request.region, O_RDWR)
        var facts = stat()
        guard descriptor >= 0, fstat(descriptor, &facts) == 0,
              let base = mmap(nil, Int(facts.st_size), PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0), base != MAP_FAILED,
              let region = PluginRegion(mapped: base, bytes: Int(facts.st_size)) else {
            let reason = String(cString: strerror(errno))
            // An engine exiting has closed the region first: its end, a moment later, ends this
            // process quietly (`endsWithTheEngine`) instead of a line in the engine's last words.
            usleep(500_000)
            say("cannot map \(request.region): \(reason)")
            return 66
        }
        let plugin: PluginInstance
        do {
            plugin = try PluginInstance(uri: request.uri, sampleRate: request.sampleRate, maxFrames: region.maxFrames,
                                        stateFolder: request.files, offline: request.offline)
            if let state = request.state { try plugin.restoreState(from: state) }
            plugin.activate()
        } catch {
            say("\(error)")
            return 65
        }
        for line in plugin.drainLog() { say(line) }
        guard plugin.ports.count == region.portCount else {
            say("\(request.uri) has \(plugin.ports.count) ports here, the engine expected \(region.portCount)")
            return 65
        }
        for (slot, port) in plugin.audioInputs.prefix(2).enumerated() { plugin.connect(port: port, to: region.audio(slot)) }
        for (slot, port) in plugin.audioOutputs.prefix(2).enumerated() { plugin.connect(port: port, to: region.audio(2 + slot)) }
        // Its controls as restored, for the engine to read back (the latency among them).
        region.controls.update(from: plugin.controlValues.pointer, count: plugin.ports.count)
        let saver = StateSaver(plugin, region: region)
        let saving = Thread {
            ThreadName.set("pj-plugin-save")
            answerRequests(saver)
        }
        saving.start()
        let start = region.request.load(ordering: .acquiring)
        region.done.store(start, ordering: .releasing)
        region.ready.store(1, ordering: .releasing)
        region.wake(.ready)
        serveRuns(plugin, region: region, from: start)
    }

    /// Ends this process when the engine's ends, whatever this one is doing (instantiating, or
    /// stuck in a plugin's `run`): a thread waits on the engine's pidfd. `PR_SET_PDEATHSIG`
    /// would not do: it follows the engine thread that spawned the child, and a control thread
    /// may end while the engine plays on. False when the engine is already gone.
    private static func endsWithTheEngine() -> Bool {
        let engine = getppid()
        let engineEnded = pj_pidfd_open(engine)
        guard engineEnded >= 0, getppid() == engine else { return false }
        let watcher = Thread {
            ThreadName.set("pj-engine-gone")
            var entry = pollfd(fd: engineEnded, events: Int16(POLLIN), revents: 0)
            while poll(&entry, 1, -1) < 0 && errno == EINTR {}
            _exit(0)
        }
        watcher.start()
        return true
    }

    /// The plugin's audio thread: each posted run, forever.
    private static func serveRuns(_ plugin: PluginInstance, region: PluginRegion, from start: UInt32) -> Never {
        ThreadName.set("pj-plugin-run")
        var finished = start
        var priority: UInt32 = 0
        let inputs = plugin.ports.filter { $0.kind == .control && $0.isInput }.map { Int($0.index) }
        let outputs = plugin.ports.filter { $0.kind == .control && !$0.isInput }.map { Int($0.index) }
        while true {
            let number = region.request.load(ordering: .acquiring)
            guard number != finished else {
                region.wait(on: .request, whileItIs: finished, nanoseconds: 1_000_000_000)
                continue
            }
            // As on the engine's thread: the same arithmetic, the same samples.
            pj_flush_denormals()
            let wanted = region.priority.load(ordering: .relaxed)
            if wanted != priority {
                // One below the engine's process thread, which waits for this one within its
                // period; none when the engine has none. Refused without the right: as it is.
                priority = wanted
                var parameters = sched_param(sched_priority: Int32(max(Int(wanted) - 1, 0)))
                _ = pthread_setschedparam(pthread_self(), wanted > 1 ? SCHED_FIFO : SCHED_OTHER, &parameters)
            }
            for index in inputs { plugin.setControl(UInt32(index), region.controls[index]) }
            plugin.queuePositions(from: region)
            for event in 0..<Int(min(region.midiCount.load(ordering: .relaxed), UInt32(PluginRegion.midiCapacity))) {
                let message = PluginRegion.unpackMIDI(region.midi[event])
                _ = plugin.addMIDI(frame: message.frame, message.bytes)
            }
            plugin.run(frames: min(Int(region.frames.load(ordering: .relaxed)), region.maxFrames))
            for index in outputs { region.controls[index] = plugin.control(UInt32(index)) }
            finished = number
            region.done.store(number, ordering: .releasing)
            region.wake(.done)
        }
    }

    /// The engine's requests, a line each on standard input; an answer line each on standard output.
    private static func answerRequests(_ saver: StateSaver) {
        while true {
            // Between requests, the plugin's main-thread work (a CLAP plugin's timers and descriptors).
            let served = saver.serveMainThread()
            var waits = [pollfd(fd: 0, events: Int16(POLLIN), revents: 0)] + served.descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let timeout = served.dueSeconds.map { Int32(min(max($0 * 1000, 1), 1000)) } ?? (served.descriptors.isEmpty ? -1 : 1000)
            guard poll(&waits, nfds_t(waits.count), timeout) >= 0 || errno == EINTR else { break }
            guard waits[0].revents != 0, let line = readLine() else {
                if waits[0].revents != 0 { break }
                continue
            }
            let parts = line.split(separator: "\t", maxSplits: 1).map(String.init)
            guard parts.count == 2, parts[0] == "save" else {
                answer("unknown request: \(line)")
                continue
            }
            do {
                try saver.save(to: parts[1])
                answer("saved")
            } catch {
                answer("\(error)")
            }
        }
        exit(0)  // the engine closed its end: it is gone
    }

    private static func answer(_ line: String) {
        FileHandle.standardOutput.write(Data((line.replacingOccurrences(of: "\n", with: " ") + "\n").utf8))
    }

    private static func say(_ line: String) { FileHandle.standardError.write(Data("pulsejack plugin-host: \(line)\n".utf8)) }
}
