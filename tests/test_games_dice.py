"""bench.games.dice: the one check of dice faces shared by banca francesa, cussec and craps."""

import pytest

from bench.games.dice import every_throw, faces


def test_faces_are_kept_in_order_and_checked() -> None:
    assert faces([6, 1, 3], 3, "cussec") == (6, 1, 3)
    assert faces((2, 2), 2, "craps") == (2, 2)
    for bad in ([1, 2], [1, 2, 7], [0, 2, 3], [1, 2, True], [1, 2, 3.0]):
        with pytest.raises(ValueError, match="cussec is settled on three dice faces 1-6"):
            faces(bad, 3, "cussec")
    with pytest.raises(ValueError, match="craps is settled on two dice faces 1-6"):
        faces((1, 2, 3), 2, "craps")


def test_every_throw_enumerates_fair_dice() -> None:
    three = every_throw(3)
    assert len(three) == len(set(three)) == 216 and all(faces(t, 3, "cussec") == t for t in three)
    assert sum(t[0] + t[1] == 7 for t in every_throw(2)) == 6  # 6 ways of 36 to throw 7
    with pytest.raises(ValueError, match="positive int"):
        every_throw(0)
