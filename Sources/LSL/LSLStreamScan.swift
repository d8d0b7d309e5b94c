import CLSL
import Foundation

/// `pulsejack lsl`: the streams on the lab's bus now, as `--heart lsl:NAME`, `--eeg lsl:NAME`,
/// `--lsl-markers NAME` and `lsl.STREAM.CHANNEL` name them.
public enum LSLStreamScan {
    /// Every stream that answers within `seconds` (a stream's outlet, its full description with
    /// channel labels read through an inlet).
    public static func run(seconds: Double) throws(LSLError) -> [LSLStreamInfo] {
        try LSLLibrary.load()
        var found = [lsl_streaminfo?](repeating: nil, count: 256)
        let count = Int(pj_lsl_resolve_all(&found, UInt32(found.count), seconds))
        var streams: [LSLStreamInfo] = []
        for info in found.prefix(max(0, count)) {
            guard let info else { continue }
            defer { pj_lsl_destroy_streaminfo(info) }
            var described = LSLStreamInfo(info)
            if let inlet = pj_lsl_create_inlet(info, 1, 0, 0) {
                var error: Int32 = 0
                if let full = pj_lsl_get_fullinfo(inlet, 2.0, &error), error == 0 {
                    described = LSLStreamInfo(full)
                    pj_lsl_destroy_streaminfo(full)
                }
                pj_lsl_destroy_inlet(inlet)
            }
            streams.append(described)
        }
        return streams.sorted { ($0.name, $0.type) < ($1.name, $1.type) }
    }

    /// One line: name, type, channels, rate, host, and the labels a modulation can read.
    public static func listing(_ stream: LSLStreamInfo) -> String {
        let labels = stream.labels.contains { !$0.isEmpty } ? " [" + stream.labels.joined(separator: ", ") + "]" : ""
        return "\(stream.name)  \(stream.type.isEmpty ? "-" : stream.type)  \(stream.channelCount) \(stream.isText ? "text" : "numeric") channel\(stream.channelCount == 1 ? "" : "s")"
            + "\(labels)  \(LSLInput.rateText(stream.rate))  on \(stream.hostname.isEmpty ? "?" : stream.hostname)"
    }
}
