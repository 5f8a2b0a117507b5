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
