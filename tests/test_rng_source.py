"""RG protocol (drivers.rng_protocol), the RNG device model and simulator, and SerialRngSource."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from bench.profiles.model import RngSimulator
from drivers.line_frame import corrupt_checksum, encode
from drivers.rng_protocol import decode, parse_draw, parse_raw
from drivers.rng_source import RngIdentity, SerialRngSource
from drivers.serial_link import DeviceError, FrameError, LinkSettings, SerialLink, WireLog
from drivers.sim.host import start_simulator
from drivers.sim.rng_device import RngDeviceSimulator, RngModel

IDENTITY = {"manufacturer": "Acme Gaming", "model": "RNG-9", "serial": "SN-77", "firmware": "3.2"}


# -- frames ------------------------------------------------------------------


def test_raw_frame_round_trip() -> None:
    block = parse_raw(decode(encode("RAW", 7, "00FF10")), 3)
    assert block.block == 7 and block.data == b"\x00\xff\x10"


@pytest.mark.parametrize(
    ("frame", "size", "message"),
    [
        (encode("RAW", 1, "00FF"), 3, "carries 2 bytes, 3 requested"),
        (encode("RAW", 1, "0G"), 1, "not hexadecimal"),
        (encode("RAW", 0, "00"), 1, "block number 0 must be positive"),
        (encode("RAW", "x", "00"), 1, "needs a block number"),
        (encode("RAW", 1), 1, "needs block and hex data"),
    ],
)
def test_bad_raw_frames_are_refused_with_the_reason(frame: bytes, size: int, message: str) -> None:
    with pytest.raises(FrameError, match=message):
        parse_raw(decode(frame), size)


def test_draw_frame_values_must_lie_in_the_range_and_match_the_count() -> None:
    assert parse_draw(decode(encode("DRAW", 2, 0, 36, 5)), 37, 3).values == (0, 36, 5)
    with pytest.raises(FrameError, match="DRAW value 37 outside 0-36"):
        parse_draw(decode(encode("DRAW", 2, 0, 37, 5)), 37, 3)
    with pytest.raises(FrameError, match="carries 2 values, 3 requested"):
        parse_draw(decode(encode("DRAW", 2, 0, 1)), 37, 3)


def test_a_corrupted_checksum_names_the_rg_protocol() -> None:
    frame = encode("RAW", 1, "00")
    with pytest.raises(FrameError, match="checksum"):
        decode(corrupt_checksum(frame))
    with pytest.raises(FrameError, match="not an RG frame"):
        decode(b"RAW,1,00\r\n")


# -- the model ---------------------------------------------------------------


def test_fair_blocks_are_reproducible_and_a_restart_continues_from_the_state_file(tmp_path: Path) -> None:
    state = tmp_path / "rng.state"
    first = RngModel(RngSimulator(seed=5), state)
    blocks = [first.raw(64) for _ in range(3)]
    assert [number for number, _ in blocks] == [1, 2, 3]
    assert len({data for _, data in blocks}) == 3
    restarted = RngModel(RngSimulator(seed=5), state)
    assert restarted.raw(64)[0] == 4  # no block is sent twice after a power cycle
    again = RngModel(RngSimulator(seed=5), None)
    assert [again.raw(64) for _ in range(3)] == blocks


def test_biased_bits_have_the_configured_share_of_ones() -> None:
    model = RngModel(RngSimulator(model="biased-bits", one_probability=0.6, seed=1))
    bits = np.unpackbits(np.frombuffer(model.raw(4096)[1], dtype=np.uint8))
    # 32,768 bits: standard error of the share is 0.0027, so ±0.015 is over 5 standard errors.
    assert abs(bits.mean() - 0.6) < 0.015


def test_lcg_low_byte_repeats_with_period_256() -> None:
    data = np.frombuffer(RngModel(RngSimulator(model="lcg-low-byte", seed=12345)).raw(1024)[1], dtype=np.uint8)
    assert np.array_equal(data[:256], data[256:512]) and np.array_equal(data[:256], data[768:])
    assert len(set(data[:256].tolist())) == 256  # full period in the low byte of a mod-2^31 LCG


def test_modulo_mapping_of_bytes_favours_the_low_outcomes_exactly_as_256_mod_37_predicts() -> None:
    model = RngModel(RngSimulator(draw_mapping="modulo", raw_bits=8, seed=3))
    values = [value for _ in range(200) for value in model.draw(37, 256)[1]]
    counts = Counter(values)
    low = sum(counts[v] for v in range(34)) / 34  # 256 = 6*37 + 34: outcomes 0-33 have 7 raw bytes, 34-36 six
    high = sum(counts[v] for v in range(34, 37)) / 3
    assert low / high == pytest.approx(7 / 6, rel=0.05)  # 51,200 draws: ratio's standard error ~0.012


def test_rejection_mapping_is_uniform_and_in_range() -> None:
    model = RngModel(RngSimulator(seed=9))
    values = np.array([value for _ in range(100) for value in model.draw(37, 256)[1]])
    assert values.min() == 0 and values.max() == 36
    counts = np.bincount(values, minlength=37)
    low, high = counts[:34].mean(), counts[34:].mean()
    assert abs(low / high - 1) < 0.06  # 25,600 draws: a 7/6 bias (0.167) would be far outside


def test_simulator_refuses_bad_requests() -> None:
    device = RngDeviceSimulator(RngModel(RngSimulator()), IDENTITY)
    assert decode(next(iter(device.handle(encode("RAW?", 0))))[1]).fields == ("RAW?", "SIZE_OUT_OF_RANGE")
    assert decode(next(iter(device.handle(encode("RAW?", 4097))))[1]).fields == ("RAW?", "SIZE_OUT_OF_RANGE")
    assert decode(next(iter(device.handle(encode("DRAW?", 1, 5))))[1]).fields == ("DRAW?", "OUT_OF_RANGE")
    assert decode(next(iter(device.handle(encode("FOO"))))[1]).fields == ("FOO", "UNKNOWN_COMMAND")
    assert decode(next(iter(device.handle(b"garbage\r\n")))[1]).fields == ("?", "BAD_FRAME")


# -- the driver against the simulator process ---------------------------------


def _open(tmp_path: Path, **simulator: object) -> tuple[SerialRngSource, object, Path]:
    config = {"simulator": RngSimulator(**simulator).model_dump(), "identity": IDENTITY}
    process = start_simulator("rng", config, tmp_path / "rng.state")
    wire_log = tmp_path / "rng.wire.jsonl"
    link = SerialLink(LinkSettings(port=process.tty_path, timeout_s=2.0, retries=3), WireLog(wire_log))
    link.open()
    return SerialRngSource(link), process, wire_log


def test_driver_reads_identity_and_the_exact_blocks_the_model_produces(tmp_path: Path) -> None:
    source, process, _ = _open(tmp_path, seed=11)
    try:
        assert source.identify() == RngIdentity(**IDENTITY)
        blocks = [source.raw_block(4096) for _ in range(3)]
        predicted = RngModel(RngSimulator(seed=11))
        assert [(block.block, block.data) for block in blocks] == [predicted.raw(4096) for _ in range(3)]
        draw = source.draw_block(37, 256)
        assert draw.block == 1 and len(draw.values) == 256
    finally:
        source.close()
        process.close()


def test_garbled_blocks_are_dropped_and_logged_never_used(tmp_path: Path) -> None:
    source, process, wire_log = _open(tmp_path, seed=4, garble_rate=0.3)
    try:
        received = [source.raw_block(256) for _ in range(40)]
    finally:
        source.close()
        process.close()
    predicted = RngModel(RngSimulator(seed=4))
    truth = dict(predicted.raw(256) for _ in range(received[-1].block))
    assert all(block.data == truth[block.block] for block in received)  # every kept block is exactly the device's
    numbers = [block.block for block in received]
    assert numbers == sorted(set(numbers)) and numbers[-1] > 40  # some blocks were garbled and skipped
    entries = [json.loads(line) for line in wire_log.read_text().splitlines()]
    assert sum(1 for entry in entries if entry["dir"] == "rx") >= numbers[-1]


def test_a_device_that_never_answers_is_reported_after_bounded_retries(tmp_path: Path) -> None:
    source, process, _ = _open(tmp_path, seed=4, garble_rate=0.999)
    try:
        with pytest.raises(DeviceError, match="read 16 raw bytes"):
            source.raw_block(16)
    finally:
        source.close()
        process.close()
