extension LabClock {
    /// A stretch of the line from one update on: its anchor, its rate, and the correction the
    /// update made, spread evenly over the next `bend` seconds (added to the rate there, never a
    /// jump: the line stays continuous, so two sounds close together keep their spacing to a
    /// fraction of the correction).
    struct Segment {
        var seconds: Double
        var frame: Double
        /// Frames a second of LSL's clock.
        var rate: Double
        /// Frames gained beyond `rate` over the first `bend` seconds.
        var gain = 0.0

        func frame(at time: Double) -> Double {
            let elapsed = time - seconds
            return frame + rate * elapsed + gain * min(max(elapsed / LabClock.bend, 0), 1)
        }

        func seconds(at frame: Double) -> Double {
            let past = frame - self.frame, bent = rate * LabClock.bend + gain
            if past <= 0 { return seconds + past / rate }
            if past <= bent { return seconds + past * LabClock.bend / bent }
            return seconds + LabClock.bend + (past - bent) / rate
        }
    }

    /// The line: the stretch since its last update, and the one before it (for the times of
    /// frames an event captured before the update is placed on after it).
    struct Line {
        var current: Segment
        var earlier: Segment?
        var nominal: Int
        var updated: Double
        /// A step is being slewed: until it is made up, the loop keeps its rate.
        var slewing = false

        init(seconds: Double, frame: Double, nominal: Int) {
            current = Segment(seconds: seconds, frame: frame, rate: Double(nominal))
            self.nominal = nominal
            updated = seconds
        }

        private func segment(atSeconds seconds: Double) -> Segment {
            seconds < current.seconds ? earlier ?? current : current
        }

        func frame(at seconds: Double) -> Double { segment(atSeconds: seconds).frame(at: seconds) }

        func seconds(at frame: Double) -> Double {
            (frame < current.frame ? earlier ?? current : current).seconds(at: frame)
        }

        /// How far `frame`, read at `seconds`, lies from the line (frames).
        func error(frame: Double, seconds: Double) -> Double {
            frame - self.frame(at: seconds)
        }

        /// One update toward a frame `error` frames off the line at `time`. Drift moves the
        /// anchor and the rate by a second-order loop: ω = 2π·B·T; the anchor by √2·ω of the
        /// error, the rate by ω² of it a period. A step is slewed by at most `slew` or a twentieth
        /// of it an update, whichever is more, the rate kept (fed to the loop, it wound the rate
        /// up and took most of a minute to settle). The anchor's move is the new segment's bend.
        mutating func follow(_ error: Double, at time: Double) {
            var next = Segment(seconds: time, frame: frame(at: time), rate: current.rate)
            slewing = slewing || abs(error) > LabClock.drift * Double(nominal)
            if slewing {
                let most = max(LabClock.slew * Double(nominal), abs(error) / 20)
                next.gain = min(max(error, -most), most)
                slewing = abs(error) > most
            } else {
                let interval = max(time - updated, LabClock.updateEvery)
                let omega = 2 * Double.pi * LabClock.bandwidth * interval
                next.gain = 2.squareRoot() * omega * error
                next.rate += omega * omega * error / interval
            }
            earlier = current
            current = next
            updated = time
        }
    }
}
