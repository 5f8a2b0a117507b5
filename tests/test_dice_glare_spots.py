"""The glare-spot benchmark classes a body by the renderer's truth and by the scene judge, as the judge decides."""

from __future__ import annotations

import numpy as np
import pytest
from benchmark_scripts import load_benchmark

from vision.render.dice_frames import COMBINED_FAULTS, fault_frame

spots = load_benchmark("dice_glare_spots")


def test_a_die_s_centre_in_a_body_is_a_die_under_it() -> None:
    class Die:
        def __init__(self, centre: tuple[float, float]) -> None:
            self.centre_px = centre

    class Truth:
        dice = (Die((12.4, 7.9)),)

    mask = np.zeros((10, 20), bool)
    mask[7, 12] = True
    assert spots.die_under(mask, (0, 0), Truth())
    assert not spots.die_under(mask, (1, 0), Truth())  # the body lies one px to the right: the centre is outside
    assert not spots.die_under(mask, (0, 9), Truth())  # beyond the body's box


def test_a_die_too_many_under_glare_with_the_count_met_is_declined_for_its_glare() -> None:
    """Frame 9 of the benchmark's die too many with glare (seed 20240611): the dice read meet the game's count and
    the die under the spot is declined, as the judge declines it."""
    image, truth = fault_frame(COMBINED_FAULTS[0], 9)
    found = list(spots.frame_spots("combined", 9, image, truth))
    assert [(spot.die_under, spot.declined, spot.count_met) for spot in found] == [(True, True, True)]
    assert found[0].pips > 1.0


def test_spots_on_the_cloth_are_let_pass() -> None:
    """Frame 13 of the same run: two glare spots on the cloth, neither over a die, neither declined."""
    image, truth = fault_frame(COMBINED_FAULTS[0], 13)
    found = list(spots.frame_spots("combined", 13, image, truth))
    assert len(found) == 2 and all(not spot.die_under and not spot.declined for spot in found)


@pytest.mark.parametrize("argv", [["--clean", "-1"], ["--faults", "-3"]])
def test_negative_counts_are_refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        spots.main(argv)
    assert stop.value.code == 2 and "counts of frames" in capsys.readouterr().err


def test_the_report_counts_each_kind_and_names_each_miss(capsys: pytest.CaptureFixture[str]) -> None:
    def spot(index: int, die: bool, declined: bool, met: bool) -> object:
        return spots.GlareSpot("combined 777", index, (10.0, 20.0), die, declined, met, 3.0, 0.66, 0.05, 0.012)

    spots.report([spot(1, False, False, True), spot(2, False, True, True), spot(3, True, True, True),
                  spot(4, True, False, True), spot(5, True, False, False)])
    out = capsys.readouterr().out
    assert "spots on the cloth: 2, declined as a die's glare: 1" in out
    assert "glared dice: 3, declined for glare: 1; let pass with the game's count met (the frame accepted a die " \
           "short): 1" in out
    assert "spot on the cloth declined: combined 777 frame 2" in out
    assert "glared die let pass: combined 777 frame 4" in out and "frame 5 at" in out and "frame 1 at" not in out
