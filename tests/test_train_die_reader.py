"""The per-die reader's training script: its augmentation of a die's colours, and its crops at the model's size."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from benchmark_scripts import load_benchmark

train = load_benchmark("train_die_reader")


def _crop() -> np.ndarray:
    """A dark blue die with red pips on a pale table, as in the real photos the reader reads least surely."""
    crop = np.full((48, 48, 3), (200, 205, 210), np.uint8)
    crop[8:40, 8:40] = (90, 30, 20)
    for x, y in ((16, 16), (32, 32), (24, 24)):
        cv2.circle(crop, (x, y), 3, (30, 30, 200), -1)
    return crop


def test_appearance_leaves_a_crop_alone_at_its_default_shares() -> None:
    crop = _crop()
    rng = np.random.default_rng(1)
    assert all(np.array_equal(train.appearance(crop, rng), crop) for _ in range(50))


def test_appearance_inverts_or_turns_hues_at_the_shares_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    crop = _crop()
    monkeypatch.setattr(train, "INVERT_SHARE", 1.0)
    assert np.array_equal(train.appearance(crop, np.random.default_rng(2)), 255 - crop)
    monkeypatch.setattr(train, "INVERT_SHARE", 0.0)
    monkeypatch.setattr(train, "HUE_SHARE", 1.0)
    turned = train.appearance(crop, np.random.default_rng(3))
    before, after = (cv2.cvtColor(image, cv2.COLOR_BGR2HSV).astype(int) for image in (crop, turned))
    assert not np.array_equal(before[..., 0], after[..., 0])  # the hues turned...
    assert np.abs(before[..., 2] - after[..., 2]).max() <= 2  # ...the brightness (the pips' contrast) kept
    assert turned.dtype == np.uint8 and turned.shape == crop.shape


def test_a_patch_is_cut_at_the_size_the_model_reads() -> None:
    patch = np.zeros((train.CONTEXT_PX, train.CONTEXT_PX, 3), np.uint8)
    assert train.centre_crop(patch).shape == (train.CROP_PX, train.CROP_PX, 3)
    assert train.centre_crop(patch, 32).shape == (32, 32, 3)


def _bright_side_directions(cut_at_deg: float, camera_turns: bool, monkeypatch: pytest.MonkeyPatch,
                            frame_has_up: bool = True) -> np.ndarray:
    """Where, in degrees (atan2 of the crop's y and x), a frame's bright lower half lies in 200 jittered crops of a
    patch cut at ``cut_at_deg``: the frame's down as each crop sees it. ``frame_has_up`` False: the crops are not
    told the turn the patch was cut at, as for a rendered or simulated patch."""
    monkeypatch.setattr(train, "CAMERA_TURNS", camera_turns)
    frame = np.zeros((400, 400, 3), np.uint8)
    frame[200:] = 255
    patch = train.context_patch(frame, train.DieSquare((200.0, 200.0), 40.0, cut_at_deg))
    rng = np.random.default_rng(5)
    directions = []
    for _ in range(200):
        crop = train.jittered_crop(patch, rng, cut_at_deg) if frame_has_up else train.jittered_crop(patch, rng)
        ys, xs = np.nonzero(crop.mean(axis=2) > 128)
        directions.append(np.degrees(np.arctan2(ys.mean() - crop.shape[0] / 2, xs.mean() - crop.shape[1] / 2)))
    return np.array(directions)


@pytest.mark.parametrize("cut_at_deg", [0.0, 30.0, 75.0])
def test_camera_turns_keep_a_photos_down_within_the_quarter_the_stages_turn_squares_by(
        cut_at_deg: float, monkeypatch: pytest.MonkeyPatch) -> None:
    # a square turned by t (0..90) in the frame sees the frame's down at 90 - t: between right (0) and down (90)
    kept = _bright_side_directions(cut_at_deg, True, monkeypatch)
    assert kept.min() > -8 and kept.max() < 98
    assert kept.max() - kept.min() > 70  # the whole quarter is drawn
    free = _bright_side_directions(cut_at_deg, False, monkeypatch)
    assert np.mean((free < -8) | (free > 98)) > 0.5  # without: any turn


def test_a_rendered_patch_is_turned_freely_even_with_camera_turns(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _bright_side_directions(0.0, True, monkeypatch, frame_has_up=False)  # no up in its frame
    assert np.mean((seen < -8) | (seen > 98)) > 0.5


@pytest.mark.parametrize("share", [0.3, 0.4])
def test_an_epoch_takes_every_die_and_fresh_others_making_the_share_asked(monkeypatch: pytest.MonkeyPatch,
                                                                         share: float) -> None:
    monkeypatch.setattr(train, "NOT_A_DIE_SHARE", share)
    labels = np.array([0] * 70 + [5] * 70 + [train.NOT_A_DIE] * 1000)
    rng = np.random.default_rng(3)
    first, second = (train.epoch_indices(labels, rng) for _ in range(2))
    for chosen in (first, second):
        assert set(range(140)) <= set(chosen.tolist()) and len(set(chosen.tolist())) == len(chosen)
        assert np.mean(labels[chosen] == train.NOT_A_DIE) == pytest.approx(share, abs=0.005)
    assert set(first[140:].tolist()) != set(second[140:].tolist())  # a fresh subset each epoch


@pytest.mark.parametrize("share", ["0", "1", "-0.2", "1.5"])
def test_a_share_of_others_outside_zero_to_one_is_refused(share: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        train.main(["--not-a-die-share", share, "--calibrate-only"])
    assert stop.value.code == 2 and "--not-a-die-share must lie between 0 and 1" in capsys.readouterr().err


def test_an_epoch_s_crops_are_the_same_made_in_this_process_or_on_two_workers() -> None:
    rng = np.random.default_rng(11)
    images = rng.integers(0, 256, (40, train.CONTEXT_PX, train.CONTEXT_PX, 3), dtype=np.uint8)
    patches = train.Patches(images, np.array([0, 1, 2, 3, 4, 5, train.NOT_A_DIE, train.NOT_A_DIE] * 5))
    made = []
    for processes in (1, 2):
        with train.Augmenter(patches, processes) as augmenter:
            made.append(train.training_batch(patches, np.random.default_rng(7), augmenter))
    (one, labels_one), (two, labels_two) = made
    assert one.shape == (len(labels_one), train.CROP_PX, train.CROP_PX, 3) and one.dtype == np.uint8
    assert np.array_equal(one, two) and np.array_equal(labels_one, labels_two)
    again, _ = train.training_batch(patches, np.random.default_rng(8))
    assert not np.array_equal(one, again)  # another draw, other crops
    assert train._WORKER_PATCHES is None  # the workers' patches are let go with them


def test_rendered_patches_are_the_same_made_here_or_in_worker_processes() -> None:
    calls = [(train.render_patches, 5, 2), (train.render_patches, 6, 2)]
    here, there = (train.made_in_processes(calls, processes) for processes in (1, 2))
    for a, b in zip(here, there, strict=True):
        assert len(a.labels) > 0 and np.array_equal(a.images, b.images) and np.array_equal(a.labels, b.labels)
    assert not np.array_equal(here[0].labels, here[1].labels) or not np.array_equal(here[0].images, here[1].images)


def test_a_ctrl_c_reaching_the_workers_leaves_the_interrupt_to_the_trainer() -> None:
    """Ctrl-C goes to every process of the terminal's group: a worker that took it would lose its chunk and the pool
    would wait for it for ever (seen: an interrupted training run hung). The workers ignore it, so the trainer's own
    interrupt ends the pool; both pools' workers start so."""
    import signal

    patches = train.Patches(np.zeros((4, train.CONTEXT_PX, train.CONTEXT_PX, 3), np.uint8), np.array([0, 1, 2, 3]))
    with train.Augmenter(patches, 2) as augmenter:
        assert set(augmenter._pool.map(signal.getsignal, [signal.SIGINT] * 8, chunksize=1)) == {signal.SIG_IGN}
    calls = [(signal.getsignal, signal.SIGINT)] * 2
    assert set(train.made_in_processes(calls, 2)) == {signal.SIG_IGN}


def test_the_network_takes_an_epoch_s_uint8_crops_as_float32_in_zero_to_one_in_either_layout() -> None:
    """An epoch's crops stay uint8 and each batch is made float32 as it is taken: the values are those of dividing
    the float32 crops by 255 in numpy, in the layout asked for (needs the ``train`` extra, as training does)."""
    torch = pytest.importorskip("torch")

    crops = np.random.default_rng(3).integers(0, 256, (5, train.CROP_PX, train.CROP_PX, 3), dtype=np.uint8)
    expected = crops.transpose(0, 3, 1, 2).astype(np.float32) / 255.0
    for layout in (torch.channels_last, torch.contiguous_format):
        batch = train.network_input(crops, layout)
        assert batch.dtype == torch.float32 and batch.shape == (5, 3, train.CROP_PX, train.CROP_PX)
        assert batch.is_contiguous(memory_format=layout)
        assert np.array_equal(batch.numpy(), expected)  # bit for bit


def test_hiding_glare_teaches_a_die_whose_pip_it_hid_as_the_seventh_class(monkeypatch: pytest.MonkeyPatch) -> None:
    patch = np.full((train.CONTEXT_PX, train.CONTEXT_PX, 3), 120, np.uint8)
    centre, edge = train.CONTEXT_PX // 2, train.CONTEXT_PX // 3
    patch[centre - edge // 2:centre + edge // 2, centre - edge // 2:centre + edge // 2] = 230
    for dx, dy in ((-8, -8), (8, -8), (-8, 8), (8, 8)):
        cv2.circle(patch, (centre + dx, centre + dy), 4, (20, 20, 20), -1)
    patches = train.Patches(np.repeat(patch[None], 200, axis=0), np.full(200, 3))  # fours
    _, untouched = train.augmented_crops(patches, np.arange(200), 9)
    assert set(untouched.tolist()) == {3}  # the recipe's default: no hiding glare
    monkeypatch.setattr(train, "HIDING_GLARE_SHARE", 1.0)
    _, labels = train.augmented_crops(patches, np.arange(200), 9)
    assert set(labels.tolist()) == {3, train.NOT_A_DIE}
    assert 10 <= int(np.sum(labels == train.NOT_A_DIE)) <= 190


@pytest.mark.parametrize(("option", "value", "message"), [("--ema", "1", "--ema must lie within 0..1"),
                                                          ("--ema", "-0.1", "--ema must lie within 0..1"),
                                                          ("--hiding-glare-share", "1.5",
                                                           "--hiding-glare-share must lie between 0 and 1")])
def test_an_out_of_range_training_option_is_refused(option: str, value: str, message: str,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        train.main([option, value, "--calibrate-only"])
    assert stop.value.code == 2 and message in capsys.readouterr().err
