import CJack

/// The run's own lines on standard output.
public enum StandardOutput {
    /// A line at a time, so status lines reach a pipe or the journal as they happen (Swift 6
    /// cannot name C's `stdout` global to call `setvbuf` itself).
    public static func lineBuffered() { pj_line_buffer_stdout() }
}
