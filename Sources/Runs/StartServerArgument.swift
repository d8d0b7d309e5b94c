/// `run --start-server net`: an option that is a flag alone and takes one optional value, which
/// the command line's parser cannot declare. Before parsing, `--start-server net` (or
/// `--start-server=net`) becomes the hidden flag `--start-net-server`; a plain `--start-server`
/// stays a flag, and nothing after `--` is touched.
public enum StartServerArgument {
    public static let netFlag = "--start-net-server"

    public static func rewriting(_ arguments: [String]) -> [String] {
        var result: [String] = []
        var index = 0
        while index < arguments.count {
            if arguments[index] == "--" { return result + arguments[index...] }
            if arguments[index] == "--start-server=net" || (arguments[index] == "--start-server" && arguments.dropFirst(index + 1).first == "net") {
                result.append(netFlag)
                index += arguments[index] == "--start-server=net" ? 1 : 2
                continue
            }
            result.append(arguments[index])
            index += 1
        }
        return result
    }
}
