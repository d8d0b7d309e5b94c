/// One line of the benchmark table.
struct BenchRow {
    var row: String
    var measure: String
    var pulsejack: String
    var reference: String
    var command: String
}
