import Realtime
import Plugins

/// A destination a modulation can set, as a preset names it ("voice.pad.insert.1.cutoff"), with
/// its range, the values it takes, its value now (where it returns when the modulation is off)
/// and the range a modulation maps onto when the preset gives none.
public struct NamedDestination: Sendable {
    public var name: String
    public var destination: ModulationDestination
    public var minimum: Float
    public var maximum: Float
    public var step: ControlStep
    public var base: Float
    public var defaultRange: (low: Float, high: Float)?
}

extension EngineHandle {
    /// Control thread, before activation. Every parameter a modulation can set in this engine:
    /// each voice's gain, pan and velocity, each insert's controls and bypass, each hosted
    /// instrument's controls, and the master gain.
    public func modulationDestinations() -> [NamedDestination] {
        ProcessThread.assertOutside("listing modulation destinations")
        var destinations: [NamedDestination] = []
        let graph = current
        for (index, slot) in graph.slots.enumerated() {
            let voice = Int32(index), prefix = "voice.\(slot.name)."
            destinations.append(NamedDestination(name: prefix + "gain", destination: .voiceGain(voice), minimum: VoiceSlot.gainRange.lowerBound,
                                            maximum: VoiceSlot.gainRange.upperBound, step: .continuous, base: slot.gain, defaultRange: (0, 1)))
            destinations.append(NamedDestination(name: prefix + "pan", destination: .voicePan(voice), minimum: -1, maximum: 1,
                                            step: .continuous, base: slot.pan, defaultRange: (-1, 1)))
            destinations.append(NamedDestination(name: prefix + "velocity", destination: .voiceVelocity(voice), minimum: 0, maximum: 1,
                                            step: .continuous, base: slot.velocity, defaultRange: (0, 1)))
            if let instrument = slot.instrumentVoice?.published {
                for port in instrument.ports where port.kind == .control && port.isInput {
                    destinations.append(Self.control(port, of: instrument, name: prefix + "control.\(port.symbol)",
                                                destination: .instrumentControl(voice: voice, port: port.index)))
                }
            }
        }
        for control in graph.insertControls(chains: Array(-1..<graph.slots.count)) {
            let place = "\(control.chain < 0 ? "master" : "voice.\(graph.slots[control.chain].name)").insert.\(control.number)."
            guard let port = control.port else {
                destinations.append(NamedDestination(name: place + "bypass", destination: .insertControl(control.address), minimum: 0, maximum: 1,
                                                step: .toggled, base: control.stage.bypass ? 1 : 0, defaultRange: (0, 1)))
                continue
            }
            destinations.append(Self.control(port, of: control.stage.published.instances[0], name: place + port.symbol,
                                        destination: .insertControl(control.address)))
        }
        destinations.append(NamedDestination(name: "master.gain", destination: .masterGain, minimum: 0, maximum: 4, step: .continuous,
                                        base: 1, defaultRange: (0, 1)))
        return destinations
    }

    /// A plugin's control port as a destination: its range (none given: any number, and a preset must
    /// give `to_range`), whole numbers, off/on or scale points as it says.
    private static func control(_ port: PluginPort, of instance: PluginInstance, name: String,
                                destination: ModulationDestination) -> NamedDestination {
        let ranged = !port.minimum.isNaN && !port.maximum.isNaN
        let step: ControlStep = port.isToggled ? .toggled : !port.scalePoints.isEmpty ? .enumeration(port.scalePoints)
            : port.isInteger ? .integer : .continuous
        return NamedDestination(name: name, destination: destination,
                                minimum: port.minimum.isNaN ? -.greatestFiniteMagnitude : port.minimum,
                                maximum: port.maximum.isNaN ? .greatestFiniteMagnitude : port.maximum,
                                step: step, base: instance.controlValues[Int(port.index)],
                                defaultRange: ranged ? (port.minimum, port.maximum) : nil)
    }
}
