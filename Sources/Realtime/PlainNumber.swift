extension Double {
    /// The number as errors and listings print it: a whole number without ".0" ("4", "0.25").
    public var plainText: String {
        self == rounded() && abs(self) < 1e9 ? String(Int(self)) : String(self)
    }
}

extension Float {
    /// The number as errors and listings print it: a whole number without ".0" ("4", "0.25").
    public var plainText: String { Double(self).plainText }
}
