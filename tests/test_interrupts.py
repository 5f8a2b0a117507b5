"""An operator's Ctrl-C stops a run even when Python drops its KeyboardInterrupt (:mod:`bench.interrupts`)."""

from __future__ import annotations

import os
import signal
import time

import pytest

from bench.interrupts import raise_if_interrupted, watching


class _InterruptedWhileFinalized:
    """An object whose finalizer is running when SIGINT arrives: Python prints the KeyboardInterrupt raised there
    as "Exception ignored" and drops it."""

    def __del__(self) -> None:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)  # the handler runs here, inside the finalizer


def _drop_an_interrupt() -> None:
    _InterruptedWhileFinalized()  # no reference kept: finalized at once


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_an_interrupt_dropped_in_a_finalizer_is_raised_again_at_the_next_check() -> None:
    with watching():
        _drop_an_interrupt()  # returns: the KeyboardInterrupt never reached this frame
        with pytest.raises(KeyboardInterrupt):
            raise_if_interrupted()
    raise_if_interrupted()  # the flag goes with the block


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_without_watching_a_dropped_interrupt_is_lost() -> None:
    """The case the bench guards against: the process's own handler raises once, and that raise is gone."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        _drop_an_interrupt()
        raise_if_interrupted()  # nothing remembers it
    finally:
        signal.signal(signal.SIGINT, previous)


def test_a_watched_interrupt_raises_at_once_and_the_previous_handler_comes_back() -> None:
    before = signal.getsignal(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt), watching():
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(1)  # interrupted
    assert signal.getsignal(signal.SIGINT) is before
    raise_if_interrupted()


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_an_observation_taken_after_a_dropped_interrupt_is_journalled_and_then_the_run_stops() -> None:
    """Every suite's observations go through one stream: the one taken when the flag is set is kept, then the
    interrupt is raised (a resumed run goes on after it)."""
    from types import SimpleNamespace

    from fixtures.session import ObservationStream

    journalled = []
    session = SimpleNamespace(run_id="r1", journal=SimpleNamespace(record=journalled.append))
    stream = ObservationStream(session, "wheel/spins", "suites/test_roulette.py::spins", [])
    with watching():
        stream.record({"number": 7}, source="wheel")
        _drop_an_interrupt()
        with pytest.raises(KeyboardInterrupt):
            stream.record({"number": 12}, source="wheel")
    assert [row.value for row in journalled] == [{"number": 7}, {"number": 12}] and stream.count == 2
