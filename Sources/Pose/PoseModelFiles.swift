import Foundation
import UserFiles

/// BlazePose's two models (the pinned mediapipe 0.10.21 wheel's): the person detector and the
/// full-body landmark model. Where they are looked for, in order: `PULSEJACK_POSE_MODELS` (a
/// folder holding both), an installation's `share/pulsejack/pose/`, and the clone's venv.
public struct PoseModelFiles: Sendable, Equatable {
    public var detector: String
    public var landmarks: String

    static let detectorName = "pose_detection.tflite", landmarksName = "pose_landmark_full.tflite"

    public init(detector: String, landmarks: String) {
        self.detector = detector
        self.landmarks = landmarks
    }

    /// The first folder that holds both, or why none does.
    public static func find() throws(PoseError) -> PoseModelFiles {
        let environment = ProcessInfo.processInfo.environment
        var places: [(detector: String, landmarks: String)] = []
        if let own = environment["PULSEJACK_POSE_MODELS"], !own.isEmpty {
            places = [(own + "/" + detectorName, own + "/" + landmarksName)]
        } else {
            let installed = Installation.prefix.appendingPathComponent("share/pulsejack/pose").path
            places.append((installed + "/" + detectorName, installed + "/" + landmarksName))
            for (detector, landmarks) in zip(RuntimeLibrary.venvFiles("mediapipe/modules/pose_detection/" + detectorName),
                                             RuntimeLibrary.venvFiles("mediapipe/modules/pose_landmark/" + landmarksName)) {
                places.append((detector, landmarks))
            }
        }
        if let found = places.first(where: { FileManager.default.fileExists(atPath: $0.detector) && FileManager.default.fileExists(atPath: $0.landmarks) }) {
            return PoseModelFiles(detector: found.detector, landmarks: found.landmarks)
        }
        let looked = places.map { ($0.detector as NSString).deletingLastPathComponent }.joined(separator: ", ")
        let how = Installation.builtInClone ? "`make deps` puts them in the clone's venv (the pinned mediapipe 0.10.21 wheel)"
            : "reinstall pulsejack's package, which carries them"
        throw PoseError("BlazePose's models (\(detectorName), \(landmarksName)) are not installed: \(how), "
                        + "or set PULSEJACK_POSE_MODELS to a folder holding both (looked in \(looked))")
    }
}
