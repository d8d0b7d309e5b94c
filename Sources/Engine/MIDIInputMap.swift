import Voices
import Realtime

/// What MIDI on `midi_in` plays: note → region (checked first) or voice, controller → a
/// voice's gain, pan or enable, or an LV2 insert's control (across its range). Owned by the engine by value; allocated before activation.
package struct MIDIInputMap: ~Copyable {
    /// Note number → region index (−1: none).
    private let noteRegions = FixedBuffer<Int32>(capacity: 128, repeating: -1)
    /// Note number → voice index (−1: none).
    private let noteVoices = FixedBuffer<Int32>(capacity: 128, repeating: -1)
    /// Controller → (voice index, parameter); voice −1: unmapped.
    private let controls = FixedBuffer<(voice: Int32, parameter: MIDIControl)>(capacity: 128, repeating: (-1, .gain))
    /// Controller → an LV2 insert's control (checked first); `mapped` false: none.
    private let insertControls = FixedBuffer<(mapped: Bool, route: InsertRoute)>(
        capacity: 128, repeating: (false, InsertRoute(address: InsertAddress(chain: 0, stage: 0, port: 0), minimum: 0, maximum: 1)))

    /// What the preset maps, by note and controller number (0…127; others are ignored).
    package struct Mappings {
        /// Note → voice it triggers; note → region it hits (checked first).
        package var noteVoices: [Int: Int] = [:]
        package var noteRegions: [Int: Int32] = [:]
        /// Controller → a voice's gain, pan or enable; controller → an insert's control (checked first).
        package var voiceControls: [Int: (voice: Int32, parameter: MIDIControl)] = [:]
        package var insertControls: [Int: InsertRoute] = [:]

        package init(noteVoices: [Int: Int] = [:], noteRegions: [Int: Int32] = [:],
                     voiceControls: [Int: (voice: Int32, parameter: MIDIControl)] = [:], insertControls: [Int: InsertRoute] = [:]) {
            self.noteVoices = noteVoices
            self.noteRegions = noteRegions
            self.voiceControls = voiceControls
            self.insertControls = insertControls
        }
    }

    /// Offline.
    init(_ mappings: Mappings) {
        for (note, voice) in mappings.noteVoices where (0..<128).contains(note) { noteVoices[note] = Int32(voice) }
        for (note, region) in mappings.noteRegions where (0..<128).contains(note) { noteRegions[note] = region }
        for (controller, target) in mappings.voiceControls where (0..<128).contains(controller) { controls[controller] = target }
        for (controller, route) in mappings.insertControls where (0..<128).contains(controller) {
            insertControls[controller] = (true, route)
        }
    }

    /// Real-time safe. The event a three-byte channel message makes, if it is mapped: a note-on
    /// hits its region or triggers its voice (velocity/127); a control change sets gain
    /// (value/127), pan (−1…1) or enable (value ≥ 64).
    func event(status: UInt8, key: UInt8, value: UInt8) -> ControlMessage.Event? {
        let key = Int(key & 0x7F), value = value & 0x7F
        switch status & 0xF0 {
        case 0x90 where value > 0:
            if noteRegions[key] >= 0 { return .regionHit(region: noteRegions[key], velocity: Float(value) / 127) }
            if noteVoices[key] >= 0 { return .voiceTrigger(voice: noteVoices[key], velocity: Float(value) / 127) }
            return nil
        case 0xB0:
            if insertControls[key].mapped {
                let route = insertControls[key].route
                return .insertControl(route.address, route.value(controller: value))
            }
            let target = controls[key]
            guard target.voice >= 0 else { return nil }
            switch target.parameter {
            case .gain: return .voiceParameter(voice: target.voice, .gain(Float(value) / 127))
            case .pan: return .voiceParameter(voice: target.voice, .pan(min(1, Float(value) / 63.5 - 1)))
            case .enable: return .voiceParameter(voice: target.voice, .enable(value >= 64))
            }
        default:
            return nil
        }
    }
}

/// What a MIDI control change sets: gain 0…1 (value/127), pan −1…1, or enable (value ≥ 64).
public enum MIDIControl: String, Sendable, BitwiseCopyable {
    case gain, pan, enable
}
