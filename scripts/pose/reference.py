#!/usr/bin/env python3
"""The tests' independent reference for camera pose: MediaPipe's own BlazePose (mp.solutions.pose
of the pinned mediapipe 0.10.21 wheel, the same models pulsejack runs through LiteRT).

  reference.py landmarks IMAGE...        one JSON line per image: {"file", "landmarks": [[x, y, v] x 33] | null}
                                         (static_image_mode: the detector on every image, no smoothing)
  reference.py turned IMAGE FOLDER DEG   IMAGE turned by -DEG and +DEG about MediaPipe's hip centre (the
                                         arms swing while the body stays put), as FOLDER/minus.png and plus.png
  reference.py crops VIDEO FOLDER N      N square crops around walkers in VIDEO (OpenCV's HOG people
                                         detector), upscaled 2x, written as FOLDER/crop-K.png; prints their paths

Run with the clone's venv (.build/venv/bin/python), where `make deps` installs mediapipe.
"""
import json
import sys

import cv2


def landmarks(paths):
    import mediapipe as mp
    with mp.solutions.pose.Pose(static_image_mode=True, model_complexity=1, enable_segmentation=False) as pose:
        for path in paths:
            image = cv2.imread(path)
            if image is None:
                sys.exit(f"reference.py: {path}: not an image")
            found = pose.process(cv2.cvtColor(image, cv2.COLOR_BGR2RGB)).pose_landmarks
            points = [[p.x, p.y, p.visibility] for p in found.landmark] if found else None
            print(json.dumps({"file": path, "landmarks": points}), flush=True)


def crops(video, folder, count):
    capture = cv2.VideoCapture(video)
    frames = int(capture.get(cv2.CAP_PROP_FRAME_COUNT))
    if frames <= 0:
        sys.exit(f"reference.py: {video}: no frames")
    people = cv2.HOGDescriptor()
    people.setSVMDetector(cv2.HOGDescriptor_getDefaultPeopleDetector())
    written = 0
    for index in range(0, frames, max(1, frames // (count * 2))):
        capture.set(cv2.CAP_PROP_POS_FRAMES, index)
        ok, frame = capture.read()
        if not ok:
            continue
        boxes, weights = people.detectMultiScale(frame, winStride=(8, 8), scale=1.05)
        if len(boxes) == 0:
            continue
        x, y, w, h = max(zip(boxes, weights), key=lambda found: found[1])[0]
        side = int(h * 1.6)
        cx, cy = x + w // 2, y + h // 2
        left, top = max(0, min(cx - side // 2, frame.shape[1] - side)), max(0, min(cy - side // 2, frame.shape[0] - side))
        crop = frame[top:top + side, left:left + side]
        path = f"{folder}/crop-{written}.png"
        cv2.imwrite(path, cv2.resize(crop, (side * 2, side * 2), interpolation=cv2.INTER_CUBIC))
        print(path, flush=True)
        written += 1
        if written == count:
            break


def turned(path, folder, degrees):
    import mediapipe as mp
    image = cv2.imread(path)
    with mp.solutions.pose.Pose(static_image_mode=True, model_complexity=1) as pose:
        found = pose.process(cv2.cvtColor(image, cv2.COLOR_BGR2RGB)).pose_landmarks
    if not found:
        sys.exit(f"reference.py: {path}: MediaPipe finds no one")
    height, width = image.shape[:2]
    hips = found.landmark[23], found.landmark[24]
    centre = ((hips[0].x + hips[1].x) / 2 * width, (hips[0].y + hips[1].y) / 2 * height)
    for name, angle in (("minus", -degrees), ("plus", degrees)):
        matrix = cv2.getRotationMatrix2D(centre, angle, 1.0)
        cv2.imwrite(f"{folder}/{name}.png", cv2.warpAffine(image, matrix, (width, height), borderMode=cv2.BORDER_REPLICATE))


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "landmarks":
        landmarks(sys.argv[2:])
    elif len(sys.argv) == 5 and sys.argv[1] == "turned":
        turned(sys.argv[2], sys.argv[3], float(sys.argv[4]))
    elif len(sys.argv) == 5 and sys.argv[1] == "crops":
        crops(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        sys.exit(__doc__)
