import Inputs
import UserFiles
import Foundation

/// One sensor a run reads, as the command line or a preset names it: `ble` (the first device
/// with the Heart Rate Service), `ble:A0:9E:1A:00:00:01` (that address), `ble:Polar H10 1A2B`
/// (that name); likewise `polar-ecg[:…]` and `muse[:…]`. Whose it is: a performer's index.
public struct SensorRequest: Equatable, Sendable {
    /// A kind of sensor, by the word that names it (`SensorKinds.all` describes each).
    public struct Kind: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The service a device must offer.
        public var service: String { SensorKinds.descriptor(self).service }
        /// The status fields' stem: its role.
        public var role: SensorRole { SensorKinds.descriptor(self).role }
    }

    public enum Match: Equatable, Sendable, CustomStringConvertible {
        case any
        case address(String)
        case name(String)

        public var description: String {
            switch self {
            case .any: "any"
            case .address(let address): address
            case .name(let name): "'\(name)'"
            }
        }
    }

    public var kind: Kind
    public var match: Match
    public var performer: Int

    public init(kind: Kind, match: Match = .any, performer: Int = 0) {
        self.kind = kind
        self.match = match
        self.performer = performer
    }

    /// The Bluetooth LE sensor a preset's or an option's spec names, for its role; one that does
    /// not parse is the error naming the preset's line and field.
    public init(_ spec: SensorSpec) throws(InputError) {
        self = try spec.resolved { spec in
            try SensorRequest(parsing: spec.text, kinds: SensorKinds.kinds(spec.role), performer: spec.performer)
        }
    }

    /// Parses `KIND[:ADDRESS|NAME]`, where `kinds` are those this place accepts.
    public init(parsing spec: String, kinds: [Kind], performer: Int = 0) throws(SensorError) {
        let kindText = spec.split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
        let kind = Kind(rawValue: kindText.lowercased())
        guard kinds.contains(kind) else {
            throw SensorError("'\(spec)' is not a sensor: expected \(kinds.map { $0.rawValue + "[:ADDRESS|NAME]" }.joined(separator: " or "))")
        }
        let rest = String(spec.dropFirst(kindText.count + 1)).trimmingCharacters(in: .whitespaces)
        self.kind = kind
        self.performer = performer
        if rest.isEmpty {
            match = .any
        } else if Self.isAddress(rest) {
            match = .address(rest.uppercased())
        } else {
            match = .name(rest)
        }
    }

    static func isAddress(_ text: String) -> Bool {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        return parts.count == 6 && parts.allSatisfy { $0.count == 2 && $0.allSatisfy(\.isHexDigit) }
    }

    /// The devices among `devices` this request means (those offering its service; by address
    /// or name when it names one: an exact name first, else those containing it).
    func candidates(_ devices: [BLECentral.Device]) -> [BLECentral.Device] {
        let offering = devices.filter { $0.uuids.contains(kind.service) }
        switch match {
        case .any:
            return offering.sorted { ($0.rssi ?? -200) > ($1.rssi ?? -200) }
        case .address(let address):
            return devices.filter { $0.address.uppercased() == address }
        case .name(let name):
            let exact = devices.filter { $0.name?.lowercased() == name.lowercased() }
            return exact.isEmpty ? devices.filter { $0.name?.lowercased().contains(name.lowercased()) == true } : exact
        }
    }
}
