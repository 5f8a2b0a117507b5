"""SerialLink (drivers.serial_link): replies, bounded retries, DeviceError reasons, the wire log.

The far end is either pyserial's ``loop://`` (every byte written comes back) or
a pseudo-terminal whose master side is served by a thread in this test, so the
link opens a real tty path exactly as it would open ``/dev/ttyUSB0``.
"""

from __future__ import annotations

import json
import os
import select
import threading
import time
import tty
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import pytest
import serial

from drivers.roulette_protocol import Frame, decode, encode
from drivers.serial_link import DeviceError, FrameError, LinkSettings, SerialLink, StaleReply, WireLog

Responder = Callable[[bytes, int], Iterable[bytes]]  # (request line, 1-based request count) -> replies


class PtyPeer:
    """The device end of a pseudo-terminal: records each request line and writes scripted replies."""

    def __init__(self, respond: Responder) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)  # no echo, no CR/LF translation
        self.path = os.ttyname(self.slave)
        self.received: list[bytes] = []
        self._respond = respond
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        buffer = bytearray()
        while not self._stop.is_set():
            readable, _, _ = select.select([self.master], [], [], 0.02)
            if not readable:
                continue
            try:
                buffer.extend(os.read(self.master, 4096))
            except OSError:
                return
            while (end := buffer.find(b"\n")) >= 0:
                line = bytes(buffer[: end + 1])
                del buffer[: end + 1]
                self.received.append(line)
                for reply in self._respond(line, len(self.received)):
                    os.write(self.master, reply)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2.0)
        os.close(self.master)
        os.close(self.slave)


@pytest.fixture
def pty_peer() -> Iterator[Callable[[Responder], PtyPeer]]:
    peers: list[PtyPeer] = []

    def start(respond: Responder) -> PtyPeer:
        peer = PtyPeer(respond)
        peers.append(peer)
        return peer

    yield start
    for peer in peers:
        peer.close()


def wire_entries(path: Path, *directions: str) -> list[dict[str, object]]:
    entries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [entry for entry in entries if not directions or entry["dir"] in directions]


def accept_id(line: bytes) -> Frame | None:
    """Accept an ``ID`` frame; ignore other valid frames; FrameError for garbled ones."""
    frame = decode(line)
    return frame if frame.type == "ID" else None


ID_REPLY = encode("ID", "Acme", "RW-37", "SN-1", "1.0")


def make_link(port: str, wire_log: Path | None, **settings: object) -> SerialLink:
    options: dict[str, object] = {"timeout_s": 0.5, "retries": 3, "open_attempts": 2, "open_backoff_s": 0.01}
    options.update(settings)
    return SerialLink(LinkSettings(port=port, **options), WireLog(wire_log))


# -- replies -----------------------------------------------------------------


def test_loop_url_reply_arrives_and_value_is_returned(tmp_path: Path) -> None:
    log = tmp_path / "wire.jsonl"
    with make_link("loop://", log) as link:  # loop:// hands back every byte written
        value = link.transact(ID_REPLY, accept_id, what="identify")
    assert value.fields == ("Acme", "RW-37", "SN-1", "1.0")
    frames = wire_entries(log, "tx", "rx")
    assert [(entry["dir"], entry["hex"]) for entry in frames] == [("tx", ID_REPLY.hex()), ("rx", ID_REPLY.hex())]


def test_pty_reply_arrives_and_value_is_returned(tmp_path: Path, pty_peer) -> None:
    peer = pty_peer(lambda line, _n: [ID_REPLY] if line == encode("ID?") else [])
    with make_link(peer.path, tmp_path / "wire.jsonl") as link:
        frame = link.transact(encode("ID?"), accept_id, what="identify")
    assert frame.raw == ID_REPLY
    assert peer.received == [encode("ID?")]


def test_an_unsolicited_valid_frame_is_skipped_without_costing_an_attempt(tmp_path: Path, pty_peer) -> None:
    peer = pty_peer(lambda _line, _n: [encode("STATUS", "IDLE", 4), ID_REPLY])
    with make_link(peer.path, tmp_path / "wire.jsonl") as link:
        frame = link.transact(encode("ID?"), accept_id, what="identify")
    assert frame.raw == ID_REPLY
    assert peer.received == [encode("ID?")]


# -- retries -----------------------------------------------------------------


def test_garbled_reply_then_good_one_returns_after_one_retry_and_logs_both(tmp_path: Path, pty_peer) -> None:
    garbled = b"$ID,Acme,RW-37,SN-1,1.\xff*00\r\n"
    peer = pty_peer(lambda _line, count: [garbled] if count == 1 else [ID_REPLY])
    log = tmp_path / "wire.jsonl"
    with make_link(peer.path, log) as link:
        frame = link.transact(encode("ID?"), accept_id, what="identify")
    assert frame.raw == ID_REPLY
    assert peer.received == [encode("ID?"), encode("ID?")]  # exactly one retry

    frames = wire_entries(log, "tx", "rx")
    assert [(entry["dir"], bytes.fromhex(entry["hex"])) for entry in frames] == [
        ("tx", encode("ID?")),
        ("rx", garbled),
        ("tx", encode("ID?")),
        ("rx", ID_REPLY),
    ]
    for entry in frames:
        assert set(entry) >= {"t", "dir", "hex", "text"}
        assert isinstance(entry["t"], float)
        assert entry["text"] == bytes.fromhex(entry["hex"]).decode("ascii", errors="backslashreplace")
    assert frames[1]["text"] == "$ID,Acme,RW-37,SN-1,1.\\xff*00\r\n"
    times = [entry["t"] for entry in frames]
    assert times == sorted(times)


def test_no_reply_raises_after_exactly_one_plus_retries_attempts(tmp_path: Path, pty_peer) -> None:
    peer = pty_peer(lambda _line, _n: [])
    log = tmp_path / "wire.jsonl"
    with make_link(peer.path, log, timeout_s=0.1, retries=2) as link:
        started = time.monotonic()
        with pytest.raises(DeviceError) as caught:
            link.transact(encode("ID?"), accept_id, what="identify")
        elapsed = time.monotonic() - started
    error = caught.value
    assert error.port == peer.path
    assert error.what == "identify"
    assert error.attempts == ["no reply within 0.1 s"] * 3
    message = str(error)
    assert f"{peer.path}: identify failed after 3 attempt(s)" in message
    for index in (1, 2, 3):
        assert f"attempt {index}: no reply within 0.1 s" in message
    assert "attempt 4" not in message
    assert len(peer.received) == 3
    assert len(wire_entries(log, "tx")) == 3
    assert elapsed < 3 * 0.1 + 1.0  # bounded


def test_per_call_retries_override_the_settings(pty_peer, tmp_path: Path) -> None:
    peer = pty_peer(lambda _line, _n: [])
    settings = {"timeout_s": 0.1, "retries": 5}
    with make_link(peer.path, tmp_path / "wire.jsonl", **settings) as link, pytest.raises(DeviceError) as caught:
        link.transact(encode("ID?"), accept_id, what="identify", retries=0)
    assert len(caught.value.attempts) == 1
    assert len(peer.received) == 1


def test_every_garbled_reply_is_listed_with_its_reason(tmp_path: Path, pty_peer) -> None:
    peer = pty_peer(lambda _line, _n: [b"$ID,x*00\r\n"])
    with make_link(peer.path, tmp_path / "wire.jsonl", retries=1) as link, pytest.raises(DeviceError) as caught:
        link.transact(encode("ID?"), accept_id, what="identify")
    assert len(caught.value.attempts) == 2
    assert len(peer.received) == 2
    for reason in caught.value.attempts:
        assert reason.startswith("garbled reply (")
        assert "checksum 00 should be" in reason


def test_a_reply_without_terminator_is_logged_as_partial_and_never_accepted(tmp_path: Path, pty_peer) -> None:
    peer = pty_peer(lambda _line, _n: [ID_REPLY.rstrip(b"\r\n")])
    log = tmp_path / "wire.jsonl"
    no_reply = pytest.raises(DeviceError, match=r"no reply within 0.1 s")
    with make_link(peer.path, log, timeout_s=0.1, retries=0) as link, no_reply:
        link.transact(encode("ID?"), accept_id, what="identify")
    partial = wire_entries(log, "rx-partial")
    assert partial and bytes.fromhex(partial[0]["hex"]) == ID_REPLY.rstrip(b"\r\n")
    assert partial[0]["note"] == "no terminator before timeout"
    assert wire_entries(log, "rx") == []


def test_a_link_failure_reconnects_and_the_request_is_sent_again(tmp_path: Path) -> None:
    log = tmp_path / "wire.jsonl"
    link = make_link("loop://", log)
    link.open()
    failing_port = link._port  # the open port, made to fail like an unplugged USB adapter

    def unplugged(_data: bytes) -> int:
        raise serial.SerialException("device disconnected")

    failing_port.write = unplugged
    try:
        frame = link.transact(ID_REPLY, accept_id, what="identify")
    finally:
        link.close()
    assert frame.raw == ID_REPLY
    assert link._port is None
    notes = [entry.get("note") for entry in wire_entries(log, "event")]
    assert notes == ["opened loop://", "reconnecting", "closed", "opened loop://", "closed"]
    assert [entry["dir"] for entry in wire_entries(log, "tx", "rx")] == ["tx", "tx", "rx"]


def test_a_terminal_driver_error_on_flush_is_a_link_failure_too(tmp_path: Path) -> None:
    """A pseudo-terminal whose other end hung up makes ``flush`` raise ``termios.error``, not an OSError."""
    import termios

    link = make_link("loop://", tmp_path / "wire.jsonl")
    link.open()

    def hung_up() -> None:
        raise termios.error(5, "Input/output error")

    link._port.flush = hung_up
    try:
        frame = link.transact(ID_REPLY, accept_id, what="identify")
    finally:
        link.close()
    assert frame.raw == ID_REPLY  # reconnected and sent again, not an escaped exception


# -- opening -----------------------------------------------------------------


def test_a_port_that_cannot_be_opened_raises_device_error_naming_it(tmp_path: Path) -> None:
    port = str(tmp_path / "ttyNOPE0")
    link = make_link(port, tmp_path / "wire.jsonl", open_attempts=3, open_backoff_s=0.001)
    with pytest.raises(DeviceError) as caught:
        link.open()
    assert caught.value.port == port
    assert caught.value.what == "open"
    assert len(caught.value.attempts) == 3
    assert str(caught.value).startswith(f"{port}: open failed after 3 attempt(s)")
    assert not link.is_open


def test_transact_on_an_unopenable_port_raises_device_error_naming_it(tmp_path: Path) -> None:
    link = make_link("bogus-scheme://nowhere", None, open_attempts=1, open_backoff_s=0.001)
    with pytest.raises(DeviceError, match=r"^bogus-scheme://nowhere: open failed"):
        link.transact(encode("ID?"), accept_id, what="identify")


def test_without_a_wire_log_path_nothing_is_written(tmp_path: Path) -> None:
    with make_link("loop://", None) as link:
        assert link.transact(ID_REPLY, accept_id, what="identify").raw == ID_REPLY
    assert list(tmp_path.iterdir()) == []


def test_read_line_returns_none_when_nothing_arrives(tmp_path: Path) -> None:
    with make_link("loop://", tmp_path / "wire.jsonl") as link:
        started = time.monotonic()
        assert link.read_line(timeout_s=0.05) is None
        assert time.monotonic() - started < 1.0


def test_frames_on_a_closed_link_raise(tmp_path: Path) -> None:
    link = make_link("loop://", None)
    with pytest.raises(serial.SerialException):
        link.write_line(b"x\r\n")
    with pytest.raises(serial.SerialException):
        link.read_line(timeout_s=0.01)


def test_frame_error_carries_the_raw_bytes() -> None:
    error = FrameError("bad", b"$X*00\r\n")
    assert error.raw == b"$X*00\r\n"
    assert "bad" in str(error) and "$X*00" in str(error)


# -- replies matched to their requests ---------------------------------------------------------------------


def test_a_stale_reply_is_discarded_counted_and_logged_without_costing_an_attempt(tmp_path: Path,
                                                                                 pty_peer) -> None:
    """An ``accept`` raising StaleReply (an earlier request's late reply: its number does not match) never gives
    the value: the link reads on, counts it and logs it as rx-discarded."""
    late, current = encode("ACK", "SPIN", 3), encode("ACK", "SPIN", 4)
    peer = pty_peer(lambda _line, _n: [late, current])

    def accept(line: bytes) -> Frame | None:
        frame = decode(line)
        if frame.fields[1] != "4":
            raise StaleReply(f"game {frame.fields[1]}, not 4", frame.raw)
        return frame

    log = tmp_path / "wire.jsonl"
    with make_link(peer.path, log) as link:
        frame = link.transact(encode("SPIN"), accept, what="start a game")
    assert frame.raw == current
    assert peer.received == [encode("SPIN")]  # one attempt
    assert (link.stale_replies, link.last_stale, link.last_attempts) == (1, 1, 1)
    discarded = wire_entries(log, "rx-discarded")
    assert [entry["hex"] for entry in discarded] == [late.hex()]
    assert "stale reply discarded while awaiting start a game" in str(discarded[0]["note"])


def test_a_query_with_nothing_to_match_waits_out_the_late_reply_of_a_timed_out_attempt(tmp_path: Path,
                                                                                       pty_peer) -> None:
    """The first ID? is answered late (after its timeout, before the second attempt's reply would be); with
    ``settle`` the second attempt first waits out the late window and discards the late reply, so the next
    query's answer is its own: the late reply is counted, never taken for another request's."""
    def respond(line: bytes, index: int) -> list[bytes]:
        if index == 1:
            time.sleep(0.3)  # past the 0.2 s timeout
            return [encode("ID", "Acme", "RW-37", "SN-1", "old")]
        return [encode("ID", "Acme", "RW-37", "SN-1", f"reply {index}")]

    peer = pty_peer(respond)
    with make_link(peer.path, tmp_path / "wire.jsonl", timeout_s=0.2) as link:
        first = link.transact(encode("ID?"), accept_id, what="identify", settle=True)
        second = link.transact(encode("ID?"), accept_id, what="identify", settle=True)
    assert first.fields[3] == "reply 2" and second.fields[3] == "reply 3"
    assert link.stale_replies == 1
