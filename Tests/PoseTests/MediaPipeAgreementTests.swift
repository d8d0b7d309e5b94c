import Foundation
import Pose
import TestSupport
import XCTest

/// pulsejack's BlazePose (its own pre- and post-processing, the models through LiteRT) against
/// MediaPipe's own (`mp.solutions.pose` of the same pinned 0.10.21 wheel, in the clone's venv):
/// on scikit-image's astronaut, OpenCV's messi5.jpg and crops around walkers in OpenCV's
/// vtest.avi (found by OpenCV's HOG people detector, upscaled 2×), the shoulders, elbows,
/// wrists and hips lie within 2 % of the picture's size of MediaPipe's. A wrong anchor layout
/// or a wrong crop does not.
final class MediaPipeAgreementTests: XCTestCase {
    static let compared = [11, 12, 13, 14, 15, 16, 23, 24]
    static let tolerance = 0.02
    static let astronaut = "/usr/lib/python3/dist-packages/skimage/data/astronaut.png"
    static let openCVData = "/usr/share/doc/opencv-doc/examples/data"

    private var folder: URL!

    override func setUpWithError() throws {
        folder = try TemporaryFolder("pose").url
    }

    override func tearDownWithError() throws {
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    func testLandmarksAgreeWithMediaPipesOwnWithinTwoPercent() throws {
        let pictures = try self.pictures()
        let reference = try mediaPipe(pictures)
        let ours = try landmarks(pictures, tracker: PoseTracker(models: PoseModelFiles.find(), tracks: false, smooths: false))
        for picture in pictures {
            let theirs = try XCTUnwrap(reference[picture] ?? nil, "MediaPipe finds a person in \(picture)")
            let mine = try XCTUnwrap(ours[picture] ?? nil, "pulsejack finds a person in \(picture)")
            XCTAssertLessThanOrEqual(Self.deviation(mine, theirs), Self.tolerance, picture)
        }
    }

    /// The comparison has teeth: the detector's anchors with the stride-32 block first, or the
    /// landmark model's crop 1.5 times the alignment square instead of 1.25, put some picture's
    /// joints beyond 2 % (or lose the person).
    func testAWrongAnchorLayoutOrCropFailsTheComparison() throws {
        let pictures = try self.pictures()
        let reference = try mediaPipe(pictures)
        let centers = DetectorAnchors.centers
        let strideThirtyTwo = 28 * 28 * 2 + 14 * 14 * 2
        let reordered = Array(centers[strideThirtyTwo...] + centers[..<strideThirtyTwo])
        for (what, tracker) in [("anchors", try PoseTracker(models: .find(), tracks: false, smooths: false, anchors: reordered)),
                                ("crop", try PoseTracker(models: .find(), tracks: false, smooths: false, regionScale: 1.5))] {
            let ours = try landmarks(pictures, tracker: tracker)
            let worst = pictures.map { picture -> Double in
                guard let theirs = reference[picture] ?? nil, let mine = ours[picture] ?? nil else { return .infinity }
                return Self.deviation(mine, theirs)
            }.max() ?? 0
            XCTAssertGreaterThan(worst, Self.tolerance, "a wrong \(what) still agrees with MediaPipe")
        }
    }

    /// The astronaut, Messi, and six walkers cropped from vtest.avi.
    private func pictures() throws -> [String] {
        let crops = try Subprocess.run(LSLPeer.python, [Self.script, "crops", Self.openCVData + "/vtest.avi", folder.path, "6"])
        XCTAssertEqual(crops.status, 0, crops.stderr + Self.howToGet)
        let walkers = crops.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(walkers.count, 6, "six walkers found in vtest.avi: \(crops.stdout)")
        return [Self.astronaut, Self.openCVData + "/messi5.jpg"] + walkers
    }

    private static var script: String { Subprocess.repository.appendingPathComponent("scripts/pose/reference.py").path }
    private static let howToGet = " (make deps installs mediapipe in .build/venv; make debs installs opencv-doc and python3-skimage)"

    /// MediaPipe's landmarks (x, y) of each picture; nil where it found no one.
    private func mediaPipe(_ pictures: [String]) throws -> [String: [[Double]]?] {
        let run = try Subprocess.run(LSLPeer.python, [Self.script, "landmarks"] + pictures, timeout: 120)
        XCTAssertEqual(run.status, 0, run.stderr + Self.howToGet)
        var found: [String: [[Double]]?] = [:]
        for line in run.stdout.split(separator: "\n") {
            let entry = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let file = try XCTUnwrap(entry["file"] as? String)
            found[file] = (entry["landmarks"] as? [[Double]]).map { $0.map { Array($0.prefix(2)) } }
        }
        XCTAssertEqual(Set(found.keys), Set(pictures))
        return found
    }

    /// pulsejack's landmarks (x, y) of each picture, read by FFmpeg as the `pose` command does.
    private func landmarks(_ pictures: [String], tracker: PoseTracker) throws -> [String: [[Double]]?] {
        var found: [String: [[Double]]?] = [:]
        for picture in pictures {
            let source = try VideoSource(.file(picture))
            let frame = try XCTUnwrap(try source.next(), picture)
            found[picture] = try tracker.estimate(frame).landmarks.map { $0.map { [$0.x, $0.y] } }
        }
        return found
    }

    /// The largest difference in x or y (fractions of the picture's width and height) over the joints compared.
    private static func deviation(_ mine: [[Double]], _ theirs: [[Double]]) -> Double {
        compared.map { max(abs(mine[$0][0] - theirs[$0][0]), abs(mine[$0][1] - theirs[$0][1])) }.max() ?? .infinity
    }
}
