"""The training augmentation's clipping glare (vision.die_hiding_glare): a die whose pip it hid is no longer its
face, one whose pips all stay seen keeps it, and what cannot be told is not taught."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.die_hiding_glare import find_pips, glare_outcome, lay_hiding_glare

PIPS_OF_FOUR = ((18, 18), (30, 18), (18, 30), (30, 30))


def _die(pips: tuple[tuple[int, int], ...] = PIPS_OF_FOUR, face=(230, 230, 230), pip=(20, 20, 20)) -> np.ndarray:
    """A 48 px crop of a die's face (8..40, as the reader's margin leaves it) on a grey table, with ``pips``."""
    crop = np.full((48, 48, 3), 120, np.uint8)
    crop[8:40, 8:40] = face
    for centre in pips:
        cv2.circle(crop, centre, 3, pip, -1)
    return crop


def _spot(centre: tuple[float, float], sigma_px: float, peak: float = 2.0) -> np.ndarray:
    yy, xx = np.mgrid[:48, :48].astype(np.float32)
    return peak * np.exp(-((xx - centre[0]) ** 2 + (yy - centre[1]) ** 2) / (2 * sigma_px**2))


@pytest.mark.parametrize("colours", [((230, 230, 230), (20, 20, 20)), ((60, 20, 20), (230, 230, 240))],
                         ids=["light die, dark pips", "dark die, light pips"])
def test_every_pip_of_a_four_is_found(colours) -> None:
    assert len(find_pips(_die(face=colours[0], pip=colours[1]).astype(np.float32).mean(axis=2))) == 4


@pytest.mark.parametrize("colours", [((230, 230, 230), (20, 20, 20)), ((60, 20, 20), (230, 230, 240))],
                         ids=["light die, dark pips", "dark die, light pips"])
def test_a_glare_clipping_two_pips_of_a_four_makes_the_die_unreadable(colours) -> None:
    crop = _die(face=colours[0], pip=colours[1])
    weight = _spot((30, 24), 5.0)  # over the right-hand column: a two is left to see
    outcome = glare_outcome(crop, 4, weight)
    assert outcome.hid_pip
    assert not np.array_equal(outcome.crop, crop)
    assert (outcome.crop[24 - 2:24 + 3, 30 - 2:30 + 3] == 255).all()  # its core clipped


def test_a_glare_on_bare_face_keeps_the_die_readable_and_is_kept() -> None:
    crop = _die()
    outcome = glare_outcome(crop, 4, _spot((24, 24), 1.5))  # the face's centre, between the four pips
    assert not outcome.hid_pip
    assert not np.array_equal(outcome.crop, crop)


def test_a_glare_over_a_die_whose_pips_were_not_all_found_is_dropped() -> None:
    crop = _die()  # four pips drawn, labelled five: one pip was not found, so the glare could have hidden it
    outcome = glare_outcome(crop, 5, _spot((24, 24), 1.5))
    assert not outcome.hid_pip and np.array_equal(outcome.crop, crop)


def test_a_glare_half_hiding_a_pip_is_dropped() -> None:
    crop = _die()
    weight = _spot((30, 30), 3.0, peak=0.55)  # dims one pip's contrast to about half: neither seen nor hidden
    outcome = glare_outcome(crop, 4, weight)
    assert not outcome.hid_pip and np.array_equal(outcome.crop, crop)


def test_a_crop_of_no_die_keeps_its_glare() -> None:
    crop = _die()
    outcome = glare_outcome(crop, None, _spot((30, 24), 4.0))
    assert not outcome.hid_pip and not np.array_equal(outcome.crop, crop)


def test_drawn_glares_hide_some_pips_and_spare_others() -> None:
    rng = np.random.default_rng(3)
    outcomes = [lay_hiding_glare(_die(), 4, rng) for _ in range(300)]
    hidden = sum(o.hid_pip for o in outcomes)
    kept = sum(not o.hid_pip and not np.array_equal(o.crop, _die()) for o in outcomes)
    assert 30 <= hidden <= 270 and kept >= 30
    assert all(o.crop.dtype == np.uint8 and o.crop.shape == (48, 48, 3) for o in outcomes)
