"""An operator's Ctrl-C stops a certification run, even when Python drops the first KeyboardInterrupt.

Python raises KeyboardInterrupt wherever the main thread is when SIGINT arrives. If that is a finalizer (an
object's ``__del__`` or a weakref callback run by the garbage collector), the exception is printed as "Exception
ignored in ..." and dropped, and the run goes on as if no one had pressed Ctrl-C. A run that then finishes would be
signed as the operator's complete run. A test of the bench once saw a run interrupted after 300 of its 1,500 spins
end PASS with exit 0; a dropped interrupt is the one way found for that (``tests/test_interrupts.py`` shows the drop).

While :func:`watching` is active, SIGINT also sets a flag. :func:`raise_if_interrupted` raises KeyboardInterrupt
again when the flag is set, so an interrupt that was dropped still stops the run. The bench calls it before each
test and after each observation is journalled (every suite's observations go through
:meth:`fixtures.session.ObservationStream.record`). The interrupted test never finishes, so its clauses are INCOMPLETE
(:mod:`reports.clause_verdicts`) and ``--resume`` completes them.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

_INTERRUPTED = threading.Event()


def _on_interrupt(signum: int, frame: FrameType | None) -> None:
    _INTERRUPTED.set()
    raise KeyboardInterrupt


@contextmanager
def watching() -> Iterator[None]:
    """Within the block, SIGINT raises KeyboardInterrupt as usual and is also remembered. It does nothing outside
    the main thread, where no signal handler can be set."""
    _INTERRUPTED.clear()
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, _on_interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        _INTERRUPTED.clear()


def raise_if_interrupted() -> None:
    """Raise KeyboardInterrupt if SIGINT arrived while :func:`watching`, even if its first KeyboardInterrupt was
    dropped."""
    if _INTERRUPTED.is_set():
        raise KeyboardInterrupt
