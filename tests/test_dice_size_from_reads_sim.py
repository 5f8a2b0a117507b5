"""The staged reader on the simulated certification camera, whose scale changes from throw to throw and is not told:
the dice read surely correct the size the bodies suggest (vision.dice_size_from_reads), with the shipped models."""

from __future__ import annotations

import dataclasses

import pytest

from bench.profiles.camera import CameraSimulation
from bench.profiles.model import DiceOptions, DiceSimulator
from drivers.sim.dice_camera import SimulatedDiceCamera
from vision.dice_size_from_reads import SizeFromReads, SizeSource
from vision.dice_staged_reader import staged_reader

THROWS = 24


@pytest.fixture(scope="module")
def still_frames() -> list:
    """The first still frame of each of the first throws of the sim profile's dice camera (translucent red dice,
    30 to 56 px a throw)."""
    camera = SimulatedDiceCamera(DiceSimulator(style="translucent-red", seed=20070226),
                                 DiceOptions(game="banca-francesa"), CameraSimulation(seed=20070226))
    return [camera.still_frame() for _ in range(THROWS)]


def test_the_sure_reads_size_reads_throws_the_bodies_size_declines_and_reads_none_wrong(still_frames: list) -> None:
    reader = staged_reader(None, None, expected_dice=3)
    without = dataclasses.replace(reader, size_from_reads=SizeFromReads(enabled=False))
    accepted = {"with": 0, "without": 0}
    corrected = 0
    for frame in still_frames:
        truth = tuple(sorted(die.face for die in frame.truth.dice))
        for name, each in (("with", reader), ("without", without)):
            read = each.read(frame.image)
            if read.accepted:
                assert read.faces == truth, f"{name} the size from the sure reads: read {read.faces}, truth {truth}"
                accepted[name] += 1
                corrected += name == "with" and read.size_source in (SizeSource.SURE_READS, SizeSource.RETRIED)
    # measured with the shipped models: 24 of 24 against 15 of 24, 22 of them at a corrected size
    assert accepted["with"] >= 22 and accepted["with"] >= accepted["without"] + 5 and corrected >= 5, accepted
