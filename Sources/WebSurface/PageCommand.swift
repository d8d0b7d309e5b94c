import Inputs
import Foundation

/// A message from the page. `control` carries an OSC message in JSON — the same address space,
/// checked by the same routes (`PageInput`); `ping` asks for the server's clock (the page maps
/// the engine's wall-clock times onto its own with it).
///
///     {"type":"control","address":"/voice/kick/enable","args":[0]}
///     {"type":"ping","t":1234.5}
enum PageCommand: Equatable {
    case control(OSCMessage)
    case ping(Double)

    private struct Wire: Decodable {
        var type: String
        var address: String?
        var args: [Argument]?
        var t: Double?
    }

    private enum Argument: Decodable {
        case number(Double), text(String), flag(Bool)
        init(from decoder: Decoder) throws {
            let value = try decoder.singleValueContainer()
            if let number = try? value.decode(Double.self) {
                self = .number(number)
            } else if let text = try? value.decode(String.self) {
                self = .text(text)
            } else {
                self = .flag(try value.decode(Bool.self))
            }
        }
    }

    /// Nil for anything else: not JSON, not an object, an unknown type, or missing fields.
    init?(json: String) {
        guard let wire = try? JSONDecoder().decode(Wire.self, from: Data(json.utf8)) else { return nil }
        switch wire.type {
        case "control":
            guard let address = wire.address, address.hasPrefix("/"), address.utf8.count <= 256 else { return nil }
            let arguments: [OSCMessage.Argument] = (wire.args ?? []).map { argument in
                switch argument {
                case .number(let number): .float(number)
                case .text(let text): .string(text)
                case .flag(let flag): .bool(flag)
                }
            }
            self = .control(OSCMessage(address: address, arguments: arguments))
        case "ping":
            guard let time = wire.t, time.isFinite else { return nil }
            self = .ping(time)
        default:
            return nil
        }
    }
}
