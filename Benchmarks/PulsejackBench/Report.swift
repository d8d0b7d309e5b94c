import Foundation

/// BENCHMARKS.md: the machine, then every row with the command that reproduces it.
enum Report {
    static func shell(_ command: String) -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = Pipe()
        try? process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func line(_ row: BenchRow) -> String {
        "| \(row.row) | \(row.measure) | \(row.pulsejack) | \(row.reference) | `\(row.command)` |"
    }

    /// `text` with the rows of section `name` (their command ends in `--only name`) replaced by `rows`.
    static func replacingSection(_ name: String, rows: [BenchRow], in text: String) -> String {
        let marker = "pulsejack-bench --only \(name)`"
        var lines = text.components(separatedBy: "\n")
        // A section not yet in the file goes after the last row of its number ("6. …"), or of a
        // new number after the table's last row.
        let number = rows.first.map { String($0.row.prefix { $0 != " " }) } ?? ""
        guard let first = lines.firstIndex(where: { $0.hasSuffix(marker + " |") })
            ?? lines.lastIndex(where: { !number.isEmpty && $0.hasPrefix("| \(number) ") }).map({ $0 + 1 })
            ?? lines.lastIndex(where: { $0.hasPrefix("| ") && $0.dropFirst(2).first?.isNumber == true }).map({ $0 + 1 })
        else { return text }
        lines.removeAll { $0.hasSuffix(marker + " |") }
        lines.insert(contentsOf: rows.map(line), at: first)
        return lines.joined(separator: "\n")
    }

    static func markdown(rows: [BenchRow], runs: Int, keeping kept: [String] = []) -> String {
        let cpu = shell("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2").trimmingCharacters(in: .whitespaces)
        let memory = shell("free -g | awk '/Mem:/ {print $2 \" GiB\"}'")
        var text = """
        # Benchmarks

        Written by `make bench` (`.build/release/pulsejack-bench`, a release build). Each figure is the
        median of \(runs) runs unless the row says otherwise; every peer or reference line was measured
        or computed in the same run. Timing never enters `make test`; only the allocation count does.

        | machine | |
        | --- | --- |
        | date | \(shell("date -u '+%Y-%m-%d %H:%M UTC'")) |
        | CPU | \(cpu.isEmpty ? "unknown" : cpu), \(ProcessInfo.processInfo.activeProcessorCount) cores |
        | memory | \(memory) |
        | kernel | \(shell("uname -sr")) |
        | Swift | \(shell("swift --version 2>&1 | head -1")) |
        | JACK | \(shell("jackd --version 2>&1 | head -1")) (dummy driver, 48 kHz) |

        | row | measure | pulsejack | peer / reference | command |
        | --- | --- | --- | --- | --- |

        """
        for row in rows { text += line(row) + "\n" }
        for line in kept { text += line + "\n" }
        return text + howToRead
    }

    /// What each row's figure is and how far to trust it, under the table.
    static let howToRead = """

        How to read it:
        - **Precision** compares each onset with the contract (beat k at the frame nearest the moment the
          phase reaches k), computed independently in Int128 (`Tests/TestSupport/ReferenceBeats.swift`).
          Live runs use a second JACK client as the ear, with the server in freewheel so ten minutes pass
          in seconds. PulSonify's timer fires on a 100 ms grid with the interval rounded to 100 ms, so
          its error grows with every beat; a block-accurate scheduler is off by up to one 64-frame block.
        - **Callback cost** is measured around the engine's process call on JACK's own thread, in
          freewheel (the callback's CPU time, without waiting for the driver); the largest polyphony is
          searched with direct calls, where the p99.9 of a period stays under half of it. The studio row
          adds a second client (a DAW listening to midi_out) to the graph and a disk thread; on two
          cores most of its extra time is that client's and thread's competition for the CPU, not
          pulsejack's work: without the listening client the 64-frame median was 0.40 % against 0.28 %
          (`.build/release/pulsejack-bench --only cost`, 2026-11-22), and without the meters or the
          timebase it did not change.
        - **Each voice alone** is the wall time of an offline render of that voice per second of audio; about
          0.04 % of it is the renderer itself (scheduling, mixing, writing the WAV), the same for every voice.
        - **Convolution** is CPU time of all threads (zita-convolver's workers included) per second of audio;
          jconvolver runs live against a private dummy jackd, ours offline on the same 64-frame blocks.
        - **Beside scsynth** renders one score both ways: K sample voices (a 1.1 s stereo tone, gain 0.01,
          pans spread over −1…1) fired on every beat at 60 BPM for 600 s, at 48 kHz in 64-frame blocks.
          scsynth (Debian supercollider-server, non-real-time mode `-N`) plays the committed SynthDef
          (`Benchmarks/scsynth/pj_sample.scsyndef`, written by `scripts/make-scsynth-synthdef.py`:
          PlayBuf, each channel times the gain pulsejack's pan law gives, OffsetOut); pulsejack renders
          in process. The figure is CPU time (pulsejack's process clock; scsynth's as a child) and the
          largest sample difference between the two files over the score's length.
        - **Plugin hosting**: the first row runs three processes on one dummy-driver server, all fed by
          the same JACK MIDI pad: `pulsejack run` hosting mda EPiano, `pulsejack run` with a click voice
          instead (the engine's own cost: its threads, status, meters), and jalv hosting EPiano. CPU is
          each process's run time from every thread's schedstat over the same 10 s, in six rounds that
          start each in each place twice (see **At rest**). The second row is the process-callback cost (as
          row 3) with 16 EPiano instances fired by the heartbeat.
        - **At rest** and the first plugin row compare processes on one server, and where a client sits
          in the server's graph moves its cost more than what it computes: jackd2 wakes clients that
          share no connection one after another, in the order they joined, and on this 2-core machine
          each client after the first is woken on the other core from its last and migrates nearly every
          period (cold caches, a cross-core wake-up). jalv and the click run alone on one server, 8 s
          each way, three times: first to join, jalv 0.9–1.4 and pulsejack 1.3–1.4 ms/s with 10–30
          migrations; second, jalv 1.9–2.6 and pulsejack 2.0–2.2 ms/s with about 1300. Which client
          runs just before another counts too. So these rows start the processes in balanced orders, a
          round each on a new server (a Williams design: each process starts in each place, and after
          each other process, equally often), and give each process's median over the rounds
          (`ProcessLoad`). Before this (commit 5a00f79), jalv always joined first and pulsejack's runs
          after it, which alone put pulsejack 1 ms/s above it. Even so, one figure moves by about
          ±0.3 ms/s from one run of the row to the next: the click run and the `--web` run with no page
          run the same process path and differed by up to 0.5 ms/s in one run.
        - **Ensemble across machines** (root only; `make bench` skips it otherwise and says so) builds
          three network namespaces (`scripts/ensemble-netns.sh`): the studio's jackd (dummy driver) with
          `netmanager` and a `--timebase` pulsejack at 100 BPM, and two `pulsejack run --start-server net
          --follow-transport` slaves, each replaying a performer. The latency is a shared-grid beat's
          frame at the studio (a capture client on the slave's `from_slave_2`) minus the studio's own beat
          before it; scatter is the spread of that over every beat; the rejoin runs from bringing the cut
          veth up to the slave's first grid beat that lands where the other slave's does. Three runs.
        - **Instructions** (`scripts/callgrind-render.sh`) do not depend on the machine's load; the
          other rows do, and the machine's own speed varies between days (libjack's
          jack_ringbuffer, the ring's peer, measured 7.6 M msg/s on 2026-11-22 and 18.7 M msg/s on
          2026-11-23): compare figures measured in the same run.
        - **Real-time safety** counts calls to malloc, calloc, realloc, memalign and
          pthread_mutex_lock made while the process callback runs (`Tests/CAllocCounter`).
        - **Reliability** is `make soak` (`scripts/soak.sh`, a debug build): pulsejack live on a private
          dummy jackd at a 64-frame period, replaying a heart that swings 60–140 BPM, with 1000
          mutated OSC packets a second beside it and the output recorded. Frames recorded must equal
          the frames the run reports (JACK's, lost cycles included), and the run's beats must equal
          an offline render of the session log it applied. Xruns are the dummy driver's late
          wake-ups on a shared two-core machine, not pulsejack's cost (row 3).

        """
}
