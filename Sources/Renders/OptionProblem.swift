/// A value a run or a render cannot use, named by its `pulsejack` option.
public struct OptionProblem: Error, CustomStringConvertible {
    public let description: String
    /// Something this machine lacks (a library), not a mistake in the options: the tool exits
    /// with EX_UNAVAILABLE (69), not a usage error.
    public let unavailable: Bool

    package init(_ description: String, unavailable: Bool = false) {
        self.description = description
        self.unavailable = unavailable
    }

    /// Seconds per revolution of a radial level trace (the live page's, a render's plot).
    package static func checkRevolution(_ seconds: Double) throws {
        guard seconds.isFinite, (0.1...3600).contains(seconds) else { throw OptionProblem("--plot-revolution \(seconds) is outside 0.1…3600 s") }
    }
}
