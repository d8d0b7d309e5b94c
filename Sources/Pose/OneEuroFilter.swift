import Foundation

/// MediaPipe's landmark smoothing (LandmarksSmoothingCalculator's one_euro_filter, as
/// pose_landmark_filtering.pbtxt sets it: min cutoff 0.05, beta 80, derivative cutoff 1): each
/// coordinate in pixels through a One Euro filter (Casiez et al., CHI 2012) whose speed is read
/// relative to the person's size on screen, so a near and a far performer smooth alike.
struct OneEuroFilter {
    var minimumCutoff = 0.05, beta = 80.0, derivativeCutoff = 1.0
    private var frequency = 30.0
    private var lastTime: Double?
    private var value: Double?, lastRaw: Double?, derivative: Double?

    init() {}

    /// `value` at `time` (seconds); `valueScale` is 1 / the person's size in pixels.
    mutating func apply(_ raw: Double, time: Double, valueScale: Double) -> Double {
        if let lastTime {
            guard time > lastTime else { return raw }
            frequency = 1 / (time - lastTime)
        }
        lastTime = time
        let speed = lastRaw.map { (raw - $0) * valueScale * frequency } ?? 0
        lastRaw = raw
        let smoothedSpeed = Self.lowPass(&derivative, speed, alpha: alpha(derivativeCutoff))
        return Self.lowPass(&value, raw, alpha: alpha(minimumCutoff + beta * abs(smoothedSpeed)))
    }

    private func alpha(_ cutoff: Double) -> Double {
        let period = 1 / frequency, tau = 1 / (2 * Double.pi * cutoff)
        return 1 / (1 + tau / period)
    }

    private static func lowPass(_ stored: inout Double?, _ value: Double, alpha: Double) -> Double {
        let next = stored.map { alpha * value + (1 - alpha) * $0 } ?? value
        stored = next
        return next
    }
}

/// The smoothing of a whole landmark list: x, y and z of each through its own filter, the
/// visibility through a low pass (alpha 0.1). Reset when the person is lost.
struct LandmarkSmoothing {
    private var filters: [(x: OneEuroFilter, y: OneEuroFilter, z: OneEuroFilter)] = []
    private var visibility: [Double] = []

    mutating func reset() {
        filters = []
        visibility = []
    }

    /// `landmarks` at `time`, in a frame of `width` × `height`, for a person whose region is `region`.
    mutating func apply(_ landmarks: [LandmarkModel.Landmark], time: Double, width: Int, height: Int,
                        region: PoseRect) -> [LandmarkModel.Landmark] {
        let scale = (region.width * Double(width) + region.height * Double(height)) / 2
        guard scale > 1e-6 else { return landmarks }
        if filters.count != landmarks.count {
            filters = Array(repeating: (OneEuroFilter(), OneEuroFilter(), OneEuroFilter()), count: landmarks.count)
            visibility = landmarks.map(\.visibility)
        }
        let (w, h) = (Double(width), Double(height))
        return landmarks.indices.map { index in
            var landmark = landmarks[index]
            landmark.x = filters[index].x.apply(landmark.x * w, time: time, valueScale: 1 / scale) / w
            landmark.y = filters[index].y.apply(landmark.y * h, time: time, valueScale: 1 / scale) / h
            landmark.z = filters[index].z.apply(landmark.z * w, time: time, valueScale: 1 / scale) / w
            visibility[index] = 0.1 * landmark.visibility + 0.9 * visibility[index]
            landmark.visibility = visibility[index]
            return landmark
        }
    }
}
