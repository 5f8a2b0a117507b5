"""A block of frames (a header that says how many items follow, the items numbered 1..k, ``END``) put together
from one or more repeats of the same reply: the GT gaming table's rounds and configuration
(:mod:`drivers.gaming_table_protocol`), the CD cussec dome's rounds (:mod:`drivers.cussec_dome_protocol`).

A device answers the same block whenever it is asked for it (a round as played, the configuration), so a
block whose frames were garbled or lost on the line need not be thrown away: every frame that arrived intact
(its checksum checked by the line framing) is kept, and the block is asked for again to fill the gaps. The
block is given only whole: the header, every item 1..k and an ``END`` that repeats the header's key and k.
Two copies that disagree (a header with other fields, two different frames numbered i, an item beyond k) make
the assembly start again from the frame that disagreed: a block is never made of two different replies.

Frames naming another block's key (an earlier request's late reply for another round) are not ours: counted
in ``stale_frames`` and refused as :class:`drivers.serial_link.StaleReply` (the link discards and counts the
line and reads on), never part of the block.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from drivers.line_frame import Frame, whole_number
from drivers.serial_link import FrameError, StaleReply


@dataclass(frozen=True)
class BlockShape:
    """Where a block's frames keep their numbers: the header's type and the index of its item count, the items'
    type and the index of their number; ``keyed_items``: items and ``END`` carry the block's key first."""

    header_type: str
    item_type: str
    count_at: int
    index_at: int
    keyed_items: bool


@dataclass
class BlockAssembly:
    """The frames of one block received so far (over every repeat of it), until it is whole.

    ``key`` (the header's first field, as a round's number) names the block awaited; None takes any.
    :meth:`feed` returns None until the block is whole, then (header, items in order).
    """

    shape: BlockShape
    key: str | None = None
    header: Frame | None = None
    items: dict[int, Frame] = field(default_factory=dict)
    stale_frames: int = 0
    """Frames of another block (an earlier request's late reply naming another key) seen and skipped."""
    restarts: int = 0
    """Times two copies disagreed and the assembly started again."""

    @property
    def held(self) -> int:
        """Frames of the block held so far (the header and the items): grows as repeats fill the gaps."""
        return (self.header is not None) + len(self.items)

    def _count(self) -> int:
        assert self.header is not None
        return whole_number(self.header, self.shape.count_at, "item count")

    def _restart(self, header: Frame | None = None) -> None:
        self.restarts += self.held > 0
        self.header, self.items = header, {}

    def _foreign(self, frame: Frame) -> bool:
        """Whether an item or ``END`` names another block's key."""
        if self.key is None or not self.shape.keyed_items and frame.type != "END":
            return False
        if frame.type == self.shape.item_type:
            return frame.fields[:1] != (self.key,)
        if frame.type == "END":
            return frame.fields[:1] == (self.shape.header_type,) and frame.fields[1:2] != (self.key,)
        return False

    def _stale(self, frame: Frame) -> StaleReply:
        self.stale_frames += 1
        return StaleReply(f"{frame.type} of another block than {self.shape.header_type} {self.key}", frame.raw)

    def feed(self, frame: Frame) -> tuple[Frame, list[Frame]] | None:
        """Take one intact frame; (header, items) when the block is whole, else None. :class:`FrameError` for an
        ``END`` that leaves items missing (the block must be asked for again; what was received is kept) or
        for copies that disagree (the assembly restarts); :class:`StaleReply` for a frame of another block."""
        shape = self.shape
        if frame.type == shape.header_type:
            if self.key is not None and frame.fields[:1] != (self.key,):
                raise self._stale(frame)
            if self.header is None or self.header.fields != frame.fields:
                self._restart(frame)
                self._count()
            return None
        if self._foreign(frame):
            raise self._stale(frame)
        if self.header is None:
            return None  # the tail of a reply whose header was lost: its frames come again with the next repeat
        count = self._count()
        if frame.type == shape.item_type:
            index = whole_number(frame, shape.index_at, "item number", 1)
            held = self.items.get(index)
            if index > count or (held is not None and held.fields != frame.fields):
                self._restart()
                raise FrameError(f"{frame.type} frame {index} disagrees with the block's "
                                 f"{'header' if index > count else 'earlier copy of it'} ({count} items): "
                                 "the block is read again from the start", frame.raw)
            self.items[index] = frame
            return None
        if frame.type == "END":
            key = self.header.fields[0] if self.header.fields else ""
            if frame.fields != (shape.header_type, key, str(count)):
                self._restart()
                raise FrameError(f"END {','.join(frame.fields)} does not close {shape.header_type} {key} of "
                                 f"{count} items", frame.raw)
            missing = [index for index in range(1, count + 1) if index not in self.items]
            if missing:
                raise FrameError(f"{shape.header_type} {key}: {len(missing)} of {count} items not received intact "
                                 f"(first: {missing[0]}); asked again, the {len(self.items)} received are kept",
                                 frame.raw)
            header, items = self.header, [self.items[index] for index in range(1, count + 1)]
            self.header, self.items = None, {}
            return header, items
        return None
