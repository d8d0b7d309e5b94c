import Realtime

extension ModulationBank {
    /// Control thread: the bank's storage made from the setup's modulations — their states, their
    /// scale points side by side, the modulations that follow each source key (in the preset's
    /// order), each distinct source numbered, the MIDI controllers read.
    struct Layout {
        var states: [ModulationState] = []
        var points: [Float] = []
        var readers: [Int32] = []
        var readerStart: [Int32] = []
        var sourceCount = 0
        var readsController = [Bool](repeating: false, count: 128)

        init(_ modulations: [Modulation], signals: Int, performers: Int, sampleRate: Int) {
            var distinct: [ModulationSource: Int32] = [:]
            for modulation in modulations {
                let slot = distinct[modulation.source] ?? Int32(distinct.count)
                distinct[modulation.source] = slot
                states.append(ModulationState(modulation, sampleRate: sampleRate, sourceSlot: slot, firstPoint: Int32(points.count)))
                points += modulation.step.points
                if case .controller(let number) = modulation.source { readsController[Int(number & 0x7F)] = true }
            }
            sourceCount = distinct.count
            let keys = SourceKey.count(performers: performers, signals: signals)
            var byKey = [[Int32]](repeating: [], count: keys)
            for (index, modulation) in modulations.enumerated() {
                if let key = SourceKey(modulation.source).index(performers: performers, signals: signals) { byKey[key].append(Int32(index)) }
            }
            for list in byKey {
                readerStart.append(Int32(readers.count))
                readers += list
            }
            readerStart.append(Int32(readers.count))
        }
    }
}
