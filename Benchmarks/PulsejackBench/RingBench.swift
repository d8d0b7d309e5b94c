import CAllocCounter
import CJack
import Inputs
import Foundation
import Realtime

/// Row 4: control messages a second from one producer thread to one consumer, our ring beside
/// jack_ringbuffer carrying the same bytes, in the same run.
enum RingBench {
    static let messages = 10_000_000
    static let messageSize = MemoryLayout<ControlMessage>.stride

    static func pin(to core: Int) { _ = pj_pin_thread(Int32(core)) }
    static func unpin() { _ = pj_pin_thread(-1) }

    static func spsc() -> Double {
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 4096)
        let started = DispatchTime.now().uptimeNanoseconds
        pin(to: 0)
        defer { unpin() }
        let producer = Thread {
            pin(to: 1)
            let side = ring.producer
            var sent = 0
            while sent < messages {
                if side.push(ControlMessage(frame: Int64(sent), .heartbeat(strength: 1))) { sent += 1 }
            }
        }
        producer.start()
        let consumer = ring.consumer
        var received = 0
        var checksum: Int64 = 0
        // Drained as the process thread drains it: what is there now, then look again.
        while received < messages {
            var ready = consumer.available()
            while ready > 0, let message = consumer.pop() {
                checksum &+= message.frame
                received += 1
                ready -= 1
            }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        precondition(checksum == Int64(messages) * Int64(messages - 1) / 2, "ring lost or reordered messages")
        return Double(messages) / seconds
    }

    static func jackRingbuffer() -> Double {
        let shared = SharedRingbuffer(ring: jack_ringbuffer_create(4096 * messageSize)!)
        let ring = shared.ring
        defer { jack_ringbuffer_free(ring) }
        let started = DispatchTime.now().uptimeNanoseconds
        pin(to: 0)
        defer { unpin() }
        let producer = Thread {
            pin(to: 1)
            let ring = shared.ring
            var sent = 0
            var message = ControlMessage(frame: 0, .heartbeat(strength: 1))
            while sent < messages {
                if jack_ringbuffer_write_space(ring) >= messageSize {
                    message.frame = Int64(sent)
                    withUnsafeBytes(of: &message) { _ = jack_ringbuffer_write(ring, $0.baseAddress!.assumingMemoryBound(to: CChar.self), messageSize) }
                    sent += 1
                }
            }
        }
        producer.start()
        var received = 0
        var checksum: Int64 = 0
        var message = ControlMessage(frame: 0, .heartbeat(strength: 1))
        while received < messages {
            var ready = jack_ringbuffer_read_space(ring) / messageSize
            while ready > 0 {
                withUnsafeMutableBytes(of: &message) { _ = jack_ringbuffer_read(ring, $0.baseAddress!.assumingMemoryBound(to: CChar.self), messageSize) }
                checksum &+= message.frame
                received += 1
                ready -= 1
            }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        precondition(checksum == Int64(messages) * Int64(messages - 1) / 2, "jack_ringbuffer lost or reordered messages")
        return Double(messages) / seconds
    }

    static func run(runs: Int) -> [BenchRow] {
        var ours: [Double] = [], theirs: [Double] = []
        for _ in 0..<runs {
            ours.append(spsc())
            theirs.append(jackRingbuffer())
        }
        let ourMedian = Statistics(ours).median, theirMedian = Statistics(theirs).median
        return [BenchRow(row: "4. Ring buffer",
                         measure: "\(messages / 1_000_000) M messages of \(messageSize) bytes, 1 producer → 1 consumer thread, pinned to different cores",
                         pulsejack: String(format: "%.1f M msg/s (%.2f× jack_ringbuffer), no allocation after creation",
                                           ourMedian / 1e6, ourMedian / theirMedian),
                         reference: String(format: "jack_ringbuffer: %.1f M msg/s", theirMedian / 1e6),
                         command: ".build/release/pulsejack-bench --only ring")]
    }
}

/// A jack_ringbuffer shared by its one writer and one reader thread.
// @unchecked: jack_ringbuffer is itself a lock-free single-producer, single-consumer queue.
struct SharedRingbuffer: @unchecked Sendable {
    let ring: UnsafeMutablePointer<jack_ringbuffer_t>
}
