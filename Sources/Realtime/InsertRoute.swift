/// One control of an LV2 insert as OSC and MIDI reach it: where it is and what it takes.
public struct InsertRoute: Sendable, Equatable, BitwiseCopyable {
    public var address: InsertAddress
    public var minimum: Float
    public var maximum: Float

    public init(address: InsertAddress, minimum: Float, maximum: Float) {
        self.address = address
        self.minimum = minimum
        self.maximum = maximum
    }

    public func accepts(_ value: Float) -> Bool { value.isFinite && value >= minimum && value <= maximum }

    public var rangeDescription: String { "\(minimum.plainText)…\(maximum.plainText)" }

    /// A MIDI controller value 0…127 across the range.
    public func value(controller: UInt8) -> Float {
        address.port == InsertAddress.bypass ? (controller >= 64 ? 1 : 0) : minimum + (maximum - minimum) * Float(controller) / 127
    }
}
