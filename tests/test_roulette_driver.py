"""SerialRouletteWheel (drivers.roulette) against the real simulator process behind a pseudo-terminal.

The simulator draws game ``g`` from a generator seeded with ``(seed, g)``, so a
:class:`WheelModel` with the same configuration, run in this process, predicts
every frame the simulator sends: which games are void, which result frames it
garbles, and every result. The driver must return exactly those results.
"""

from __future__ import annotations

import itertools
import json
import os
import select
import threading
import time
import tty
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.games.roulette_layout import AMERICAN_ORDER, FRENCH_ORDER, Direction
from bench.profiles.model import RouletteSimulator
from drivers.roulette import SerialRouletteWheel, WheelIdentity
from drivers.roulette_protocol import NoResult, SpinResult, decode, encode
from drivers.serial_link import DeviceError, FrameError, LinkSettings, SerialLink, WireLog
from drivers.sim.host import SimulatorProcess, start_simulator
from drivers.sim.roulette_wheel import WheelModel

IDENTITY = {"manufacturer": "Acme Wheels", "model": "RW-37", "serial": "SN-0042", "firmware": "2.1.0"}


class OpenedWheel:
    """A simulator process, the driver on its tty, the wire log, and the in-process prediction."""

    def __init__(self, tmp_path: Path, simulator: dict[str, Any], layout: str, state: str, log: str) -> None:
        self.config = {"simulator": RouletteSimulator(**simulator).model_dump(), "identity": IDENTITY, "layout": layout}
        self.layout = layout
        self.state_file = tmp_path / state
        self.wire_log = tmp_path / log
        self.simulator: SimulatorProcess = start_simulator("roulette-wheel", self.config, self.state_file)
        link = SerialLink(LinkSettings(port=self.simulator.tty_path, timeout_s=2.0, retries=3), WireLog(self.wire_log))
        link.open()
        self.wheel = SerialRouletteWheel(link, spin_timeout_s=5.0)

    def predicted(self, games: int, first_game: int = 1) -> list[tuple[int, bytes, bool]]:
        """(game, ungarbled result or ERR frame, garbled?) for games ``first_game`` … as the simulator plays them."""
        model = WheelModel(RouletteSimulator.model_validate(self.config["simulator"]), self.layout)
        model.game = first_game - 1
        return [model.play() for _ in range(games)]

    def wire(self, *directions: str) -> list[bytes]:
        entries = [json.loads(line) for line in self.wire_log.read_text(encoding="utf-8").splitlines()]
        return [bytes.fromhex(entry["hex"]) for entry in entries if entry["dir"] in directions]

    def close(self) -> None:
        self.wheel.close()
        self.simulator.close()


@pytest.fixture
def open_wheel(tmp_path: Path) -> Iterator[Callable[..., OpenedWheel]]:
    opened: list[OpenedWheel] = []

    def start(
        simulator: dict[str, Any] | None = None,
        *,
        layout: str = "french",
        state: str = "wheel.sim-state.json",
        log: str = "wheel.wire.jsonl",
    ) -> OpenedWheel:
        wheel = OpenedWheel(tmp_path, simulator or {}, layout, state, log)
        opened.append(wheel)
        return wheel

    yield start
    for wheel in reversed(opened):
        wheel.close()


def spins(wheel: SerialRouletteWheel, count: int) -> list[SpinResult | NoResult]:
    return [wheel.spin() for _ in range(count)]


# -- identity and layout -----------------------------------------------------


def test_identify_returns_the_configured_identity(open_wheel) -> None:
    assert open_wheel().wheel.identify() == WheelIdentity(**IDENTITY)


def test_layout_is_the_french_order_by_default(open_wheel) -> None:
    layout = open_wheel().wheel.layout()
    assert layout == FRENCH_ORDER
    assert layout[:5] == (0, 32, 15, 19, 4) and sorted(layout) == list(range(37))


def test_layout_is_the_american_order_when_configured(open_wheel) -> None:
    assert open_wheel(layout="american").wheel.layout() == AMERICAN_ORDER


def test_the_simulator_table_layout_overrides_the_options_layout(open_wheel) -> None:
    assert open_wheel({"layout": "american"}, layout="french").wheel.layout() == AMERICAN_ORDER


# -- spins -------------------------------------------------------------------


def test_spins_have_consecutive_games_valid_numbers_and_alternating_counter_rotating_launches(open_wheel) -> None:
    opened = open_wheel({"seed": 7})
    results = spins(opened.wheel, 12)
    assert all(isinstance(result, SpinResult) for result in results)
    assert [result.game for result in results] == list(range(1, 13))
    assert all(0 <= result.number <= 36 for result in results)
    balls = [result.ball_direction for result in results]
    assert all(first is not second for first, second in itertools.pairwise(balls))  # p217-2007/roleta-francesa/13
    assert all(result.rotor_direction is result.ball_direction.opposite for result in results)
    assert [result.raw for result in results] == [frame for _, frame, _ in opened.predicted(12)]
    assert len({result.number for result in results}) > 1


def test_spin_waits_for_the_ball_to_come_to_rest(open_wheel) -> None:
    opened = open_wheel({"spin_time_s": 0.3})
    started = time.monotonic()
    result = opened.wheel.spin()
    assert time.monotonic() - started >= 0.3
    assert isinstance(result, SpinResult) and result.game == 1
    # the ACK comes first, the result only after the spin time
    assert [decode(frame).type for frame in opened.wire("rx")] == ["ACK", "RES"]


def test_garbled_result_frames_are_repeated_on_request_and_every_result_is_correct(open_wheel) -> None:
    games = 30
    opened = open_wheel({"seed": 4242, "garble_rate": 0.3})
    expected = opened.predicted(games)
    garbled_games = [game for game, _, garbled in expected if garbled]
    assert len(garbled_games) >= 5  # the seed exercises the repair path

    results = spins(opened.wheel, games)

    assert [result.raw for result in results] == [frame for _, frame, _ in expected]
    assert [result.game for result in results] == list(range(1, games + 1))
    assert opened.wheel.garbled_frames == len(garbled_games)
    # the wire log holds each garbled frame as received, and the RES? repeat request for exactly those games
    bad_frames = []
    for frame in opened.wire("rx"):
        try:
            decode(frame)
        except FrameError as error:
            bad_frames.append((frame, str(error)))
    assert len(bad_frames) == len(garbled_games)
    assert all("checksum" in reason for _, reason in bad_frames)
    assert [frame[:-4] for frame, _ in bad_frames] == [expected[game - 1][1][:-4] for game in garbled_games]
    repeats = [frame for frame in opened.wire("tx") if frame.startswith(b"$RES?")]
    assert repeats == [encode("RES?", game) for game in garbled_games]


def test_void_games_return_no_result_and_never_a_number(open_wheel) -> None:
    games = 30
    opened = open_wheel({"seed": 99, "misread_rate": 0.3})
    expected = opened.predicted(games)
    void_games = [game for game, frame, _ in expected if decode(frame).type == "ERR"]
    assert 3 <= len(void_games) < games

    results = spins(opened.wheel, games)

    assert [result.game for result in results] == list(range(1, games + 1))
    assert [result.game for result in results if isinstance(result, NoResult)] == void_games
    for result in results:
        if isinstance(result, NoResult):
            assert result.code == "NO_RESULT"
            assert not hasattr(result, "number")
        else:
            assert isinstance(result, SpinResult)
    assert [result.raw for result in results] == [frame for _, frame, _ in expected]


def test_a_garbled_void_game_is_repeated_as_void(open_wheel) -> None:
    games = 40
    opened = open_wheel({"seed": 5, "misread_rate": 0.3, "garble_rate": 0.3})
    expected = opened.predicted(games)
    garbled_void = [game for game, frame, garbled in expected if garbled and decode(frame).type == "ERR"]
    assert garbled_void  # the seed garbles at least one ERR frame

    started = time.monotonic()
    results = spins(opened.wheel, games)

    assert [result.raw for result in results] == [frame for _, frame, _ in expected]
    assert all(isinstance(results[game - 1], NoResult) for game in garbled_void)
    assert time.monotonic() - started < 10.0  # repaired by RES?, not by waiting out timeouts


def test_co_rotation_fault_is_visible_in_the_results(open_wheel) -> None:
    results = spins(open_wheel({"launch_fault": "co-rotation"}).wheel, 6)
    assert all(result.rotor_direction is result.ball_direction for result in results)
    assert [result.ball_direction for result in results] == [Direction.CLOCKWISE, Direction.ANTICLOCKWISE] * 3


def test_no_alternation_fault_is_visible_in_the_results(open_wheel) -> None:
    results = spins(open_wheel({"launch_fault": "no-alternation"}).wheel, 6)
    assert {result.ball_direction for result in results} == {Direction.CLOCKWISE}
    assert all(result.rotor_direction is Direction.ANTICLOCKWISE for result in results)


def test_a_restarted_simulator_continues_the_game_numbering(open_wheel, tmp_path: Path) -> None:
    first = open_wheel({"seed": 11})
    before = spins(first.wheel, 3)
    first.close()
    assert json.loads((tmp_path / "wheel.sim-state.json").read_text()) == {"game": 3}

    second = open_wheel({"seed": 11}, log="wheel-restarted.wire.jsonl")
    after = spins(second.wheel, 3)
    assert [result.game for result in before + after] == [1, 2, 3, 4, 5, 6]
    assert [result.raw for result in after] == [frame for _, frame, _ in second.predicted(3, first_game=4)]
    # ball direction keeps alternating across the restart
    assert after[0].ball_direction is before[-1].ball_direction.opposite


def test_the_simulator_answers_status_and_refuses_unknown_requests(open_wheel) -> None:
    opened = open_wheel()
    opened.wheel.spin()
    link = opened.wheel.link

    def reply(request: bytes) -> bytes:
        return link.transact(request, lambda line: decode(line), what="raw request").raw

    assert reply(encode("STATUS?")) == encode("STATUS", "IDLE", 1)
    assert reply(encode("FOO?")) == encode("NAK", "FOO?", "UNKNOWN_COMMAND")
    assert reply(encode("RES?", 99)) == encode("NAK", "RES?", "UNKNOWN_GAME")
    assert reply(encode("RES?", "x")) == encode("NAK", "RES?", "BAD_GAME")
    assert reply(b"$ID?*00\r\n") == encode("NAK", "?", "BAD_FRAME")


# -- a scripted wheel (faults the simulator does not make) -------------------


@pytest.fixture
def scripted_wheel(tmp_path: Path) -> Iterator[Callable[[dict[bytes, Any]], SerialRouletteWheel]]:
    """A driver on a pseudo-terminal whose far end answers each request line with fixed frames: a list of
    frames (the same each time), or an iterator of lists (the next list each time the request comes)."""
    stop = threading.Event()
    cleanups: list[Callable[[], None]] = []

    def start(script: dict[bytes, Any]) -> SerialRouletteWheel:
        master, slave = os.openpty()
        tty.setraw(slave)

        def serve() -> None:
            buffer = bytearray()
            while not stop.is_set():
                if not select.select([master], [], [], 0.02)[0]:
                    continue
                buffer.extend(os.read(master, 4096))
                while (end := buffer.find(b"\n")) >= 0:
                    line = bytes(buffer[: end + 1])
                    del buffer[: end + 1]
                    replies = script.get(line, [])
                    for reply in (replies if isinstance(replies, list) else next(replies, [])):
                        os.write(master, reply)

        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        link = SerialLink(
            LinkSettings(port=os.ttyname(slave), timeout_s=0.5, retries=2), WireLog(tmp_path / "scripted.wire.jsonl")
        )
        link.open()
        wheel = SerialRouletteWheel(link, spin_timeout_s=0.3)

        def cleanup() -> None:
            wheel.close()
            stop.set()
            thread.join(timeout=2.0)
            os.close(master)
            os.close(slave)

        cleanups.append(cleanup)
        return wheel

    yield start
    for cleanup in cleanups:
        cleanup()


def test_a_lost_result_is_asked_for_again(scripted_wheel) -> None:
    result = encode("RES", 8, 13, "CCW", "CW", "23.1")
    wheel = scripted_wheel({encode("SPIN"): [encode("ACK", "SPIN", 8)], encode("RES?", 8): [result]})
    outcome = wheel.spin()
    assert isinstance(outcome, SpinResult) and outcome.raw == result
    assert wheel.garbled_frames == 0


def test_a_result_for_another_game_is_not_taken_for_this_one(scripted_wheel) -> None:
    stale, current = encode("RES", 7, 1, "CW", "CCW", "23.0"), encode("RES", 8, 2, "CCW", "CW", "23.0")
    wheel = scripted_wheel({encode("SPIN"): [encode("ACK", "SPIN", 8), stale, current]})
    assert wheel.spin().raw == current


def test_a_refused_repeat_request_fails_promptly_naming_the_refusal(scripted_wheel) -> None:
    garbled = encode("RES", 8, 13, "CCW", "CW", "23.1")[:-4] + b"00\r\n"
    wheel = scripted_wheel(
        {
            encode("SPIN"): [encode("ACK", "SPIN", 8), garbled],
            encode("RES?", 8): [encode("NAK", "RES?", "UNKNOWN_GAME")],
        }
    )
    started = time.monotonic()
    with pytest.raises(DeviceError) as caught:
        wheel.spin()
    assert time.monotonic() - started < 1.5  # three refusals, not three 0.5 s timeouts
    assert caught.value.what == "repeat of game 8's result"
    assert len(caught.value.attempts) == 3
    assert all("wheel refused the request (RES?,UNKNOWN_GAME)" in reason for reason in caught.value.attempts)
    assert wheel.garbled_frames == 1


# -- replies matched to their requests (a late reply is never another request's answer) -----------


def test_a_late_ack_of_an_earlier_game_is_not_taken_for_the_next_game(scripted_wheel) -> None:
    """p217-2007/roleta-francesa/5 (the camera cross-check reads the wheel's latest game): the ACK of game 1,
    arriving late in front of game 2's ACK, is discarded and counted; the second game is game 2."""
    first, second = encode("RES", 1, 5, "CW", "CCW", "23.0"), encode("RES", 2, 17, "CCW", "CW", "23.0")
    spins = iter([[encode("ACK", "SPIN", 1), first],
                  [encode("ACK", "SPIN", 1), encode("ACK", "SPIN", 2), second]])
    wheel = scripted_wheel({encode("SPIN"): spins, encode("STATUS?"): [encode("STATUS", "IDLE", 2)],
                            encode("RES?", 1): [first], encode("RES?", 2): [second]})
    assert wheel.spin().raw == first
    outcome = wheel.spin()
    assert isinstance(outcome, SpinResult)
    assert (outcome.game, outcome.raw) == (2, second)
    assert wheel.stale_replies == 1


def test_a_game_started_by_a_repeated_spin_is_the_one_awaited(scripted_wheel) -> None:
    """The ACK of game 1 is lost, the repeated SPIN starts game 2, and the late ACK of game 1 arrives first:
    the wheel's STATUS names game 2, its latest, and game 2's result is the one returned."""
    first, second = encode("RES", 1, 5, "CW", "CCW", "23.0"), encode("RES", 2, 17, "CCW", "CW", "23.0")
    spins = iter([[first], [encode("ACK", "SPIN", 1), encode("ACK", "SPIN", 2), second]])
    wheel = scripted_wheel({encode("SPIN"): spins, encode("STATUS?"): [encode("STATUS", "IDLE", 2)],
                            encode("RES?", 2): [second]})
    outcome = wheel.spin()
    assert isinstance(outcome, SpinResult) and (outcome.game, outcome.raw) == (2, second)


def test_a_game_not_confirmed_is_a_device_error_and_the_next_start_reads_the_last_game(scripted_wheel) -> None:
    """A SPIN never acknowledged is a DeviceError (the suite's counted no-read); before the next SPIN the
    wheel's last game is read from STATUS, so the lost game's late ACK cannot be taken for the next one."""
    result = encode("RES", 4, 9, "CW", "CCW", "23.0")
    spins = iter([[], [], [], [encode("ACK", "SPIN", 3), encode("ACK", "SPIN", 4), result]])
    statuses = iter([[encode("STATUS", "IDLE", 3)], [encode("STATUS", "IDLE", 4)]])
    wheel = scripted_wheel({encode("SPIN"): spins, encode("STATUS?"): statuses, encode("RES?", 4): [result]})
    with pytest.raises(DeviceError):
        wheel.start_game()
    outcome = wheel.spin()
    assert isinstance(outcome, SpinResult) and outcome.game == 4
    assert wheel.resynchronisations == 1 and wheel.stale_replies == 1


def test_a_result_that_arrives_before_the_status_confirming_its_game_is_kept(scripted_wheel) -> None:
    """A fast wheel: the first SPIN's ACK is garbled, the repeated SPIN starts game 2, and game 2's RES arrives
    while the bench reads the STATUS that confirms game 2 is the latest. The result is kept for game 2 (the
    wheel is never asked for it again, nor waited for until the spin timeout)."""
    second = encode("RES", 2, 17, "CCW", "CW", "23.0")
    garbled_ack = encode("ACK", "SPIN", 1)[:-4] + b"00\r\n"
    spins = iter([[garbled_ack], [encode("ACK", "SPIN", 2)]])
    wheel = scripted_wheel({encode("SPIN"): spins, encode("STATUS?"): [second, encode("STATUS", "IDLE", 2)]})
    outcome = wheel.spin()
    assert isinstance(outcome, SpinResult) and (outcome.game, outcome.raw) == (2, second)
