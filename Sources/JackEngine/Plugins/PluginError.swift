/// Why a plugin could not be hosted, in one line naming it (the preset adds the file and line).
struct PluginError: Error, CustomStringConvertible {
    var description: String
    /// The control symbol at fault, when it is one (the preset then points at its line).
    var control: String?
    init(_ description: String, control: String? = nil) {
        self.description = description
        self.control = control
    }
}
