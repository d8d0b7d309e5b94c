/// What the connector needs of a BLE central: BlueZ's (`BLECentral`), or a test's script.
public protocol BLEAccess: AnyObject {
    var devices: [BLECentral.Device] { get }
    func device(at path: String) -> BLECentral.Device?
    func startDiscovery(services: [String]) throws(SensorError)
    func stopDiscovery()
    func connect(_ device: BLECentral.Device) throws(SensorError)
    func characteristic(_ uuid: String, of devicePath: String) -> String?
    func startNotify(_ characteristic: String) throws(SensorError)
    func read(_ characteristic: String) throws(SensorError) -> [UInt8]
    func write(_ characteristic: String, _ bytes: [UInt8]) throws(SensorError)
}

extension BLECentral: BLEAccess {}
