"""Ball and rotor directions read from launch clips (vision/roulette_motion.py) on rendered clips.

Each clip is what the roulette suite films after a game starts: ``--clip-frames`` frames at
30 frames/s of the ball running on the track and the rotor turning, seen by a fixed camera
calibrated on a still of the empty wheel (the cameras of ``roulette_reader_accuracy.py``:
each its own tilt, half with ArUco surround markers, French and American layouts). Each clip
draws the ball's direction at random and the rotor against it (one clip in five with it, as a
co-rotating fault), speeds from the renderer's ranges (ball 1-2.2 rev/s, rotor 18-35 rev/min),
exposure 1/500-1/150 s and its own realistic light, blur, noise and JPEG.

Reported: the share of clips where both directions were told ("seen"), wrong directions among
seen clips per 1,000 with an exact 95 % Clopper-Pearson upper bound (the suite's limit of zero
launches breaking the clause assumes this is negligible at its clip counts), co-rotation
flagged wrongly or missed, and the milliseconds per clip (rendering apart).

Run: ``.venv/bin/python benchmarks/launch_direction_accuracy.py [--clips 1000] [--clip-frames 8] [--seed 11]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
from scipy.stats import beta

sys.path.insert(0, str(Path(__file__).resolve().parent))

from roulette_reader_accuracy import SIZE, make_cameras

from bench.games.roulette_layout import Direction
from vision.render.nuisance import Nuisance
from vision.render.roulette import SpinKinematics, WheelScene, render_spin_frame
from vision.roulette_motion import motion_from_reads

FPS = 30.0


def upper_95(wrong: int, n: int) -> float:
    """Exact one-sided 95 % upper bound of a binomial proportion."""
    return 1.0 if n == 0 else float(beta.ppf(0.95, wrong + 1, n - wrong))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clips", type=int, default=1000)
    parser.add_argument("--clip-frames", type=int, default=8)
    parser.add_argument("--cameras", type=int, default=20)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    cv2.setNumThreads(1)
    rng = np.random.default_rng(args.seed)
    cameras = make_cameras(rng, args.cameras)
    seen = wrong = co_missed = co_false = co_clips = 0
    read_seconds = 0.0
    confidences = []
    for i in range(args.clips):
        camera = cameras[i % len(cameras)]
        ball = Direction.CLOCKWISE if rng.random() < 0.5 else Direction.ANTICLOCKWISE
        co_rotating = rng.random() < 0.2
        rotor = ball if co_rotating else ball.opposite
        co_clips += co_rotating
        kinematics = SpinKinematics.draw(rng, ball, rotor, args.clip_frames / FPS)
        nuisance = replace(Nuisance.realistic(rng), glare_spots=0)
        base = WheelScene(layout=camera.layout, markers=camera.markers, ball_state="moving", ball_angle_deg=0.0)
        frames = [render_spin_frame(base, kinematics, k / FPS, nuisance, rng, SIZE, camera.homography)[0]
                  for k in range(args.clip_frames)]
        start = time.perf_counter()
        motion = motion_from_reads([camera.reader.read(frame) for frame in frames])
        read_seconds += time.perf_counter() - start
        if motion.ball is None or motion.rotor is None:
            continue
        seen += 1
        confidences.append(motion.confidence)
        if motion.ball is not ball or motion.rotor is not rotor:
            wrong += 1
            print(f"  clip {i}: truth ball {ball} rotor {rotor}; read {motion.detail}")
        if co_rotating and motion.counter_rotating:
            co_missed += 1
        if not co_rotating and not motion.counter_rotating:
            co_false += 1
    print(f"clips: {args.clips} of {args.clip_frames} frames, {args.cameras} cameras, seed {args.seed}")
    print(f"seen (both directions told): {seen} ({100 * seen / args.clips:.1f} %)")
    print(f"wrong directions among seen: {wrong} = {1000 * wrong / max(seen, 1):.2f} per 1,000 "
          f"(95 % upper bound {1000 * upper_95(wrong, seen):.2f} per 1,000)")
    print(f"co-rotating clips: {co_clips}; co-rotation missed {co_missed}, flagged on a counter-rotating clip {co_false}")
    if confidences:
        print(f"confidence of seen clips: min {min(confidences):.2f}, 5th percentile "
              f"{np.percentile(confidences, 5):.2f}, median {np.median(confidences):.2f}")
    print(f"reading: {1000 * read_seconds / args.clips:.1f} ms per clip on one core")


if __name__ == "__main__":
    main()
