import UserFiles
import Foundation
import Engine

/// Radial Audio's picture: peak and average (RMS) level per channel, sampled 60 times a second
/// through `MeterBallistics`, drawn as radial traces in SVG — time runs clockwise from the top,
/// one revolution every `secondsPerRevolution`, and louder is farther from the centre.
public struct MetersPlot {
    public struct Point: Sendable { public var seconds: Double; public var reading: MeterBallistics.Reading }

    public let sampleRate: Int
    public let secondsPerRevolution: Double
    public private(set) var points: [Point] = []
    private var ballistics: MeterBallistics
    private var frames: Int64 = 0
    private var nextSample: Int64 = 0
    private var samples: Int64 = 0

    /// The quietest level drawn (the inner circle), dBFS.
    public static let floor = MeterBallistics.displayFloor
    static let size = 800.0, inner = 60.0, outer = 360.0

    public init(sampleRate: Int, secondsPerRevolution: Double) {
        self.sampleRate = sampleRate
        self.secondsPerRevolution = secondsPerRevolution
        ballistics = MeterBallistics(sampleRate: sampleRate)
    }

    /// Adds a block of output (offline, after each period).
    public mutating func add(left: UnsafePointer<Float>, right: UnsafePointer<Float>, frames count: Int) {
        ballistics.add(MeterBlock.measure(left: left, right: right, frames: count))
        frames += Int64(count)
        while frames >= nextSample {
            points.append(Point(seconds: Double(nextSample) / Double(sampleRate), reading: ballistics.reading))
            samples += 1
            // 60 a second, exactly on average: the nth sample at round(n·sr/60).
            nextSample = (samples * Int64(sampleRate) + 30) / 60
        }
    }

    /// Distance from the centre for a level in dBFS.
    public static func radius(_ level: Float) -> Double {
        let clamped = Double(min(max(level, floor), 0))
        return inner + (clamped - Double(floor)) / Double(-floor) * (outer - inner)
    }

    /// The (x, y) of a level at a time.
    public func position(seconds: Double, level: Float) -> (x: Double, y: Double) {
        let angle = 2 * Double.pi * seconds / secondsPerRevolution
        let r = Self.radius(level)
        return (Self.size / 2 + r * sin(angle), Self.size / 2 - r * cos(angle))
    }

    public var svg: String {
        let centre = Self.size / 2
        var lines = [
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(Self.size))\" height=\"\(Int(Self.size))\" viewBox=\"0 0 \(Int(Self.size)) \(Int(Self.size))\">",
            "<title>pulsejack meters: peak and RMS per channel, one revolution per \(String(format: "%g", secondsPerRevolution)) s</title>",
            "<rect width=\"100%\" height=\"100%\" fill=\"#111\"/>",
        ]
        for level: Float in [-60, -40, -20, -6, 0] {
            lines.append(String(format: "<circle class=\"grid\" cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"none\" stroke=\"#444\" stroke-width=\"1\"/>",
                                centre, centre, Self.radius(level)))
            lines.append(String(format: "<text x=\"%.1f\" y=\"%.1f\" fill=\"#888\" font-size=\"11\" font-family=\"sans-serif\">%.0f dBFS</text>",
                                centre + 4, centre - Self.radius(level) - 3, level))
        }
        let traces: [(channel: String, kind: String, colour: String, width: Double, level: (MeterBallistics.Reading) -> Float)] = [
            ("L", "rms", "#f4a582", 2, { $0.rmsLeft }), ("R", "rms", "#92c5de", 2, { $0.rmsRight }),
            ("L", "peak", "#d6604d", 1, { $0.peakLeft }), ("R", "peak", "#4393c3", 1, { $0.peakRight }),
        ]
        for trace in traces {
            let coordinates = points.map { point -> String in
                let p = position(seconds: point.seconds, level: trace.level(point.reading))
                return String(format: "%.2f,%.2f", p.x, p.y)
            }.joined(separator: " ")
            lines.append("<polyline class=\"trace\" data-channel=\"\(trace.channel)\" data-kind=\"\(trace.kind)\" fill=\"none\" stroke=\"\(trace.colour)\" stroke-width=\"\(trace.width)\" stroke-opacity=\"0.8\" points=\"\(coordinates)\"/>")
        }
        for (index, legend) in [("#d6604d", "left peak"), ("#f4a582", "left RMS"), ("#4393c3", "right peak"), ("#92c5de", "right RMS")].enumerated() {
            let y = 20 + 16 * index
            lines.append("<rect x=\"12\" y=\"\(y - 9)\" width=\"10\" height=\"10\" fill=\"\(legend.0)\"/>")
            lines.append("<text x=\"28\" y=\"\(y)\" fill=\"#ddd\" font-size=\"12\" font-family=\"sans-serif\">\(legend.1)</text>")
        }
        lines.append("</svg>")
        return lines.joined(separator: "\n") + "\n"
    }

    public func write(to path: String) throws {
        do { try svg.write(toFile: path, atomically: true, encoding: .utf8) } catch {
            throw InputError(file: path, "cannot write the meters plot: \(error.localizedDescription)")
        }
    }
}
