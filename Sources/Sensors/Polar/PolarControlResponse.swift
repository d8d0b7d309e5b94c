/// The answer Polar's measurement-data control point notifies to a command: `F0`, the command's
/// op code, the measurement type, a status (0: success), then parameters. A refused start is
/// said in Polar's words (polar-ble-sdk's `PmdResponseCode`).
public struct PolarControlResponse: Equatable, Sendable {
    public var opCode: UInt8
    public var measurement: UInt8
    public var status: UInt8

    /// Nil for what is not a response (the control point also carries other notifications).
    public init?(_ bytes: [UInt8]) {
        guard bytes.count >= 4, bytes[0] == 0xF0 else { return nil }
        (opCode, measurement, status) = (bytes[1], bytes[2], bytes[3])
    }

    public var succeeded: Bool { status == 0 }

    public var reason: String {
        let reasons = ["success", "invalid op code", "invalid measurement type", "not supported", "invalid length",
                       "invalid parameter", "already in state", "invalid resolution", "invalid sample rate",
                       "invalid range", "invalid MTU", "invalid number of channels", "invalid state",
                       "device in charger", "disk full"]
        return Int(status) < reasons.count ? reasons[Int(status)] : "error \(status)"
    }
}
