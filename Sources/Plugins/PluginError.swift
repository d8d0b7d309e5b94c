/// Why a plugin could not be hosted, in one line naming it (the preset adds the file and line).
package struct PluginError: Error, CustomStringConvertible {
    package var description: String
    /// The preset field at fault under the plugin's entry ("controls.gain", "state"), if one is.
    var field: String?
    init(_ description: String, field: String? = nil) {
        self.description = description
        self.field = field
    }
}
