import Inputs

/// A frame clock that maps one NTP second to `sampleRate` frames from timetag `origin`.
package struct FixedFrameClock: FrameClock {
    package let sampleRate = 48_000
    let origin: UInt64
    let now: Int64

    package init(origin: UInt64, now: Int64) {
        self.origin = origin
        self.now = now
    }

    package func currentFrame() -> Int64 { now }
    package func frame(forTimetag timetag: UInt64) -> Int64 {
        Int64((Int128(Int64(bitPattern: timetag &- origin)) * 48_000 + (1 << 31)) >> 32)
    }
}

