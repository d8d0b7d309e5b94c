import UserFiles
import Foundation
import Engine

/// A rendered session as one self-contained page (`render --web-report`): the Radial Audio trace,
/// the heart-rate curve and every fired voice on a timeline — inline SVG, no script, no link out,
/// so a study or a rehearsal can be looked at afterwards in any browser, offline. Control thread.
public struct WebReport {
    public var title: String
    public var sampleRate: Int
    public var frames: Int64
    public var voiceNames: [String]
    /// The tempo the engine applied, by frame (a session's tempo messages).
    public var tempos: [(frame: Int64, bpm: Double)] = []
    public var fired: [FiredVoice] = []
    public var meters: MetersPlot

    public init(title: String, sampleRate: Int, frames: Int64, voiceNames: [String], meters: MetersPlot) {
        self.title = title
        self.sampleRate = sampleRate
        self.frames = frames
        self.voiceNames = voiceNames
        self.meters = meters
    }

    static let width = 960.0

    private var seconds: Double { max(Double(frames) / Double(sampleRate), 1e-9) }

    private func x(_ frame: Int64) -> Double { 60 + (Self.width - 80) * Double(frame) / Double(max(frames, 1)) }

    /// The heart rate over time: one point per applied tempo, held to the next.
    var tempoSVG: String {
        let height = 200.0
        let rates = tempos.map(\.bpm)
        let low = (rates.min() ?? 60) - 5, high = (rates.max() ?? 120) + 5
        func y(_ bpm: Double) -> Double { 20 + (height - 40) * (high - bpm) / max(high - low, 1) }
        var points: [String] = []
        for (index, tempo) in tempos.enumerated() {
            let until = index + 1 < tempos.count ? tempos[index + 1].frame : frames
            points.append(String(format: "%.1f,%.1f %.1f,%.1f", x(tempo.frame), y(tempo.bpm), x(until), y(tempo.bpm)))
        }
        var svg = "<svg id=\"bpm\" xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(Self.width))\" height=\"\(Int(height))\" "
            + "data-tempos=\"\(tempos.count)\">\n"
        for bpm in stride(from: (low / 10).rounded(.up) * 10, through: high, by: 10) {
            svg += String(format: "<line x1=\"60\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>", Self.width - 20, y(bpm), y(bpm))
            svg += String(format: "<text x=\"8\" y=\"%.1f\" fill=\"#888\" font-size=\"11\">%.0f BPM</text>\n", y(bpm) + 4, bpm)
        }
        svg += "<polyline class=\"bpm\" fill=\"none\" stroke=\"#e34a33\" stroke-width=\"2\" points=\"\(points.joined(separator: " "))\"/>\n"
        return svg + "</svg>"
    }

    /// Every fired voice: one row per voice, one mark per firing (darker for a softer one).
    var timelineSVG: String {
        let row = 22.0
        let height = 30 + row * Double(max(voiceNames.count, 1))
        var svg = "<svg id=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(Self.width))\" height=\"\(Int(height))\" "
            + "data-fired=\"\(fired.count)\">\n"
        for (index, name) in voiceNames.enumerated() {
            svg += String(format: "<text x=\"4\" y=\"%.1f\" fill=\"#ccc\" font-size=\"12\">%@</text>\n", 24 + row * Double(index), Self.escaped(name))
        }
        for second in stride(from: 0.0, through: seconds, by: max(1, (seconds / 10).rounded())) {
            let frame = Int64(second * Double(sampleRate))
            svg += String(format: "<text x=\"%.1f\" y=\"%.1f\" fill=\"#666\" font-size=\"10\">%.0f s</text>\n", x(frame), height - 4, second)
        }
        for event in fired where Int(event.voice) < voiceNames.count {
            let top = 10 + row * Double(event.voice)
            svg += String(format: "<line class=\"fired\" data-voice=\"%@\" data-frame=\"%lld\" x1=\"%.2f\" x2=\"%.2f\" y1=\"%.1f\" y2=\"%.1f\" "
                          + "stroke=\"#74c476\" stroke-opacity=\"%.2f\"/>\n", Self.escaped(voiceNames[Int(event.voice)]), event.frame,
                          x(event.frame), x(event.frame), top, top + row - 6, 0.3 + 0.7 * Double(min(max(event.velocity, 0), 1)))
        }
        return svg + "</svg>"
    }

    /// The page: XHTML, so any XML reader can check it too.
    public var html: String {
        let radial = meters.svg.split(separator: "\n").filter { !$0.hasPrefix("<?xml") }.joined(separator: "\n")
        let duration = String(format: "%.1f s at %d Hz, %d voices fired", seconds, sampleRate, fired.count)
        return """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE html>
        <html xmlns="http://www.w3.org/1999/xhtml" lang="en">
        <head>
        <meta charset="utf-8"/>
        <title>\(Self.escaped(title))</title>
        <style>body { background: #111; color: #ddd; font-family: sans-serif; margin: 24px; } h2 { font-weight: normal; color: #aaa; } svg { display: block; margin: 8px 0 24px; }</style>
        </head>
        <body>
        <h1>\(Self.escaped(title))</h1>
        <p>\(duration)</p>
        <h2>Heart rate</h2>
        \(tempoSVG)
        <h2>Fired voices</h2>
        \(timelineSVG)
        <h2>Levels (Radial Audio: peak and RMS per channel, one revolution per \(String(format: "%g", meters.secondsPerRevolution)) s)</h2>
        \(radial)
        </body>
        </html>

        """
    }

    public func write(to path: String) throws {
        do { try html.write(toFile: path, atomically: true, encoding: .utf8) } catch {
            throw InputError(file: path, "cannot write the web report: \(error.localizedDescription)")
        }
    }

    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
