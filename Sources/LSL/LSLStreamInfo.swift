import CLSL

/// What a stream says of itself (its `lsl_streaminfo`, read once): name, type, rate, channels
/// and their labels and units from `desc/channels/channel`, as muse-lsl and the LSL
/// recommendations write them. Its own thread (the LSL input's or output's).
public struct LSLStreamInfo: Sendable, Equatable {
    public var name: String
    public var type: String
    /// Samples a second; 0: irregular.
    public var rate: Double
    public var channelCount: Int
    public var isText: Bool
    public var sourceID: String
    public var hostname: String
    /// Each channel's label and unit ("" where the stream names none).
    public var labels: [String]
    public var units: [String]

    public init(name: String, type: String, rate: Double, channelCount: Int, isText: Bool, sourceID: String = "",
                hostname: String = "", labels: [String] = [], units: [String] = []) {
        (self.name, self.type, self.rate, self.channelCount, self.isText) = (name, type, rate, channelCount, isText)
        (self.sourceID, self.hostname) = (sourceID, hostname)
        self.labels = labels + Array(repeating: "", count: max(0, channelCount - labels.count))
        self.units = units + Array(repeating: "", count: max(0, channelCount - units.count))
    }

    /// Reads `info` (liblsl loaded).
    init(_ info: lsl_streaminfo) {
        func text(_ pointer: UnsafePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }
        let count = Int(pj_lsl_get_channel_count(info))
        var labels: [String] = [], units: [String] = []
        let channels = pj_lsl_child(pj_lsl_get_desc(info), "channels")
        if let channels, pj_lsl_empty(channels) == 0 {
            var channel = pj_lsl_child(channels, "channel")
            while let each = channel, pj_lsl_empty(each) == 0, labels.count < count {
                labels.append(text(pj_lsl_child_value_n(each, "label")))
                units.append(text(pj_lsl_child_value_n(each, "unit")))
                channel = pj_lsl_next_sibling_n(each, "channel")
            }
        }
        self.init(name: text(pj_lsl_get_name(info)), type: text(pj_lsl_get_type(info)), rate: pj_lsl_get_nominal_srate(info),
                  channelCount: count, isText: pj_lsl_get_channel_format(info) == cft_string,
                  sourceID: text(pj_lsl_get_source_id(info)), hostname: text(pj_lsl_get_hostname(info)), labels: labels, units: units)
    }

    /// The channel `label` names: a label (any case), else a number from 0; nil if none.
    public func channel(_ label: String) -> Int? {
        if let index = labels.firstIndex(where: { $0.lowercased() == label.lowercased() }) { return index }
        if let number = Int(label), number >= 0, number < channelCount { return number }
        return nil
    }
}

/// One outlet of ours: float32 channels with labels, units and types in its description, or one
/// string channel (markers). Made and pushed on one thread (the LSL output's, `Runs/Outputs`).
public final class LSLOutletHandle {
    public let info: LSLStreamInfo
    private let outlet: lsl_outlet
    public private(set) var samples = 0

    public init(name: String, type: String, sourceID: String, channels: [(label: String, unit: String, type: String)], text: Bool) throws(LSLError) {
        let count = text ? 1 : channels.count
        guard let info = pj_lsl_create_streaminfo(name, type, Int32(count), PJ_LSL_IRREGULAR_RATE, text ? cft_string : cft_float32, sourceID) else {
            throw LSLError("could not describe the LSL stream \(name)")
        }
        defer { pj_lsl_destroy_streaminfo(info) }
        let described = pj_lsl_append_child(pj_lsl_get_desc(info), "channels")
        for channel in channels {
            let element = pj_lsl_append_child(described, "channel")
            _ = pj_lsl_append_child_value(element, "label", channel.label)
            if !channel.unit.isEmpty { _ = pj_lsl_append_child_value(element, "unit", channel.unit) }
            _ = pj_lsl_append_child_value(element, "type", channel.type)
        }
        _ = pj_lsl_append_child_value(pj_lsl_get_desc(info), "manufacturer", "pulsejack")
        guard let outlet = pj_lsl_create_outlet(info, 0, 360) else { throw LSLError("could not open the LSL outlet \(name)") }
        self.outlet = outlet
        self.info = LSLStreamInfo(name: name, type: type, rate: 0, channelCount: count, isText: text, sourceID: sourceID,
                                  labels: channels.map(\.label), units: channels.map(\.unit))
    }

    deinit { pj_lsl_destroy_outlet(outlet) }

    /// One sample of floats at `time` (LSL's clock), sent at once.
    public func push(_ values: [Float], at time: Double) {
        values.withUnsafeBufferPointer { _ = pj_lsl_push_sample_ftp(outlet, $0.baseAddress, time, 1) }
        samples += 1
    }

    /// One string at `time`, sent at once.
    public func push(_ text: String, at time: Double) {
        text.withCString { pointer in
            var strings: [UnsafePointer<CChar>?] = [pointer]
            _ = pj_lsl_push_sample_strtp(outlet, &strings, time, 1)
        }
        samples += 1
    }

    public var hasConsumers: Bool { pj_lsl_have_consumers(outlet) != 0 }
}
