import Foundation
import Realtime

/// The project's own misbehaving LV2 plugins (Tests/MisbehavingPlugins/misbehave.c): compiled
/// with the system's C compiler and described in Turtle here, into a bundle under `.build`, the
/// first time a test asks. Each behaviour is an effect (`urn:pulsejack:misbehave:nan`) and an
/// instrument (`…:nan-instrument`); both behave for their first second of audio.
public enum MisbehavingPlugins {
    public static let prefix = "urn:pulsejack:misbehave:"
    public static let behaviours = ["clean", "nan", "inf", "denormal", "segfault", "spin", "hang", "latency-huge",
                                    "latency-negative", "latency-nan", "latency-flip", "crash-instantiate", "crash-restore",
                                    "absurd-controls"]

    public static func uri(_ behaviour: String, instrument: Bool = false) -> String {
        prefix + behaviour + (instrument ? "-instrument" : "")
    }

    public struct BuildFailure: Error, CustomStringConvertible {
        public var description: String
    }

    private static let built = LockedBox<String?>(nil)

    /// The folder to put first in `LV2_PATH` (it holds the bundle), built if missing or older
    /// than the source.
    public static func folder() throws -> String {
        try built.withLockedValue { folder in
            if let folder { return folder }
            let made = try build()
            folder = made
            return made
        }
    }

    /// A state folder for the plugin `uri` inside `folder`, laid out as a session save writes it
    /// (`<state>/1/state.ttl`): a preset's `state:` with it makes the plugin's restore() run.
    public static func savedState(in folder: URL, for uri: String) throws -> String {
        let state = folder.appendingPathComponent("state-" + uri.replacingOccurrences(of: ":", with: "-"))
        try FileManager.default.createDirectory(at: state.appendingPathComponent("1"), withIntermediateDirectories: true)
        try """
            @prefix lv2: <http://lv2plug.in/ns/lv2core#> .
            @prefix pset: <http://lv2plug.in/ns/ext/presets#> .
            <> a pset:Preset ; lv2:appliesTo <\(uri)> .
            """.write(to: state.appendingPathComponent("1/state.ttl"), atomically: true, encoding: .utf8)
        return state.path
    }

    /// `LV2_PATH` with the bundle first, then Debian's plugins.
    public static func lv2Path() throws -> String { "\(try folder()):/usr/lib/lv2" }

    private static func build() throws -> String {
        let source = Subprocess.repository.appendingPathComponent("Tests/MisbehavingPlugins/misbehave.c")
        let folder = Subprocess.repository.appendingPathComponent(".build/misbehaving-lv2")
        let bundle = folder.appendingPathComponent("pulsejack-misbehave.lv2")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        let library = bundle.appendingPathComponent("misbehave.so")
        // Compiled to a temporary name and renamed, so a test process reading it never sees half a file.
        let partial = bundle.appendingPathComponent("misbehave.so.\(getpid())")
        let compile = try Subprocess.run(Subprocess.which("cc") ?? "/usr/bin/cc",
                                         ["-std=c11", "-O1", "-shared", "-fPIC", "-Wall", "-o", partial.path, source.path, "-lm"])
        guard compile.status == 0 else { throw BuildFailure(description: "cc \(source.path): \(compile.stderr)") }
        _ = rename(partial.path, library.path)
        try manifest().write(to: bundle.appendingPathComponent("manifest.ttl"), atomically: true, encoding: .utf8)
        try description().write(to: bundle.appendingPathComponent("misbehave.ttl"), atomically: true, encoding: .utf8)
        return folder.path
    }

    private static var allURIs: [String] { behaviours.flatMap { [uri($0), uri($0, instrument: true)] } }

    private static func manifest() -> String {
        "@prefix lv2: <http://lv2plug.in/ns/lv2core#> .\n@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
            + allURIs.map { "<\($0)> a lv2:Plugin ; lv2:binary <misbehave.so> ; rdfs:seeAlso <misbehave.ttl> .\n" }.joined()
    }

    /// Ports as misbehave.c numbers them: 0 and 1 the audio inputs (an instrument: 0 its MIDI, 1 a
    /// control it ignores), 2 and 3 the audio outputs, 4 the latency, 5 a gain; the absurd
    /// plugin's 64 controls from 6.
    private static func description() -> String {
        var text = """
            @prefix lv2: <http://lv2plug.in/ns/lv2core#> .
            @prefix atom: <http://lv2plug.in/ns/ext/atom#> .
            @prefix midi: <http://lv2plug.in/ns/ext/midi#> .
            @prefix state: <http://lv2plug.in/ns/ext/state#> .
            @prefix urid: <http://lv2plug.in/ns/ext/urid#> .
            @prefix doap: <http://usefulinc.com/ns/doap#> .

            """
        for behaviour in behaviours {
            for instrument in [false, true] {
                let inputs = instrument
                    ? """
                      [ a lv2:InputPort, atom:AtomPort ; atom:bufferType atom:Sequence ; atom:supports midi:MidiEvent ;
                        lv2:index 0 ; lv2:symbol "midi_in" ; lv2:name "MIDI in" ] ,
                      [ a lv2:InputPort, lv2:ControlPort ; lv2:index 1 ; lv2:symbol "unused" ; lv2:name "Unused" ;
                        lv2:default 0.0 ; lv2:minimum 0.0 ; lv2:maximum 1.0 ] ,
                      """
                    : """
                      [ a lv2:InputPort, lv2:AudioPort ; lv2:index 0 ; lv2:symbol "in_l" ; lv2:name "In L" ] ,
                      [ a lv2:InputPort, lv2:AudioPort ; lv2:index 1 ; lv2:symbol "in_r" ; lv2:name "In R" ] ,
                      """
                var controls = ""
                if behaviour == "absurd-controls" {
                    for number in 0..<64 {
                        let (fallback, minimum, maximum) = switch number % 4 {
                        case 0: ("1.0e300", "0.0", "1.0")  // a default beyond the float range
                        case 1: ("5.0", "0.0", "1.0")  // a default outside its range
                        case 2: ("0.0", "1.0e39", "-1.0e39")  // a range beyond floats, upside down
                        default: ("-7.0", "-1.0e30", "1.0e30")  // huge but finite: fine
                        }
                        controls += """
                             ,
                            [ a lv2:InputPort, lv2:ControlPort ; lv2:index \(6 + number) ; lv2:symbol "c\(number)" ;
                              lv2:name "Control \(number)" ; lv2:default \(fallback) ; lv2:minimum \(minimum) ; lv2:maximum \(maximum) ]
                            """
                    }
                }
                text += """
                    <\(uri(behaviour, instrument: instrument))> a lv2:Plugin, \(instrument ? "lv2:InstrumentPlugin" : "lv2:Plugin") ;
                        doap:name "Misbehaving \(behaviour)\(instrument ? " instrument" : "")" ;
                        lv2:requiredFeature urid:map ;
                        lv2:optionalFeature state:loadDefaultState ;
                        lv2:extensionData state:interface ;
                        lv2:port \(inputs)
                        [ a lv2:OutputPort, lv2:AudioPort ; lv2:index 2 ; lv2:symbol "out_l" ; lv2:name "Out L" ] ,
                        [ a lv2:OutputPort, lv2:AudioPort ; lv2:index 3 ; lv2:symbol "out_r" ; lv2:name "Out R" ] ,
                        [ a lv2:OutputPort, lv2:ControlPort ; lv2:index 4 ; lv2:symbol "latency" ; lv2:name "Latency" ;
                          lv2:designation lv2:latency ; lv2:portProperty lv2:reportsLatency ] ,
                        [ a lv2:InputPort, lv2:ControlPort ; lv2:index 5 ; lv2:symbol "gain" ; lv2:name "Gain" ;
                          lv2:default 1.0 ; lv2:minimum 0.0 ; lv2:maximum 1.0 ]\(controls) .


                    """
            }
        }
        return text
    }

    // MARK: - The CLAP ones (Tests/MisbehavingPlugins/misbehave-clap.c)

    public static let clapBehaviours = ["clean", "nan", "hang", "segfault"]
    public static func clapURI(_ behaviour: String) -> String { "clap:org.pulsejack.misbehave.\(behaviour)" }
    private static let builtCLAP = LockedBox<String?>(nil)

    /// The folder to put first in `CLAP_PATH` (it holds `misbehave.clap`), built once a process.
    public static func clapFolder() throws -> String {
        try builtCLAP.withLockedValue { folder in
            if let folder { return folder }
            let source = Subprocess.repository.appendingPathComponent("Tests/MisbehavingPlugins/misbehave-clap.c")
            let made = Subprocess.repository.appendingPathComponent(".build/misbehaving-clap")
            try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true)
            let partial = made.appendingPathComponent("misbehave.clap.\(getpid())")
            let compile = try Subprocess.run(Subprocess.which("cc") ?? "/usr/bin/cc",
                                             ["-std=c11", "-O1", "-shared", "-fPIC", "-Wall", "-o", partial.path, source.path, "-lm"])
            guard compile.status == 0 else { throw BuildFailure(description: "cc \(source.path): \(compile.stderr)") }
            _ = rename(partial.path, made.appendingPathComponent("misbehave.clap").path)
            // A preset in a file beside the bundle, which its preset discovery finds.
            let presets = made.appendingPathComponent("misbehave-presets")
            try FileManager.default.createDirectory(at: presets, withIntermediateDirectories: true)
            try "0.5\n".write(to: presets.appendingPathComponent("Half.gain"), atomically: true, encoding: .utf8)
            try "not a preset\n".write(to: presets.appendingPathComponent("README.txt"), atomically: true, encoding: .utf8)
            folder = made.path
            return made.path
        }
    }
}
