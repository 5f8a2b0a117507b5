"""Profile model of a camera watching equipment: where frames come from and how reads become outcomes.

A camera reads outcomes independently of what the equipment itself claims (dice
faces, the roulette pocket under the ball). ``source`` is what
:func:`drivers.camera.open_camera` accepts: a device index (``"0"``), a device path,
a video file, a folder of images, an ``rtsp://`` or ``http(s)://`` URL, or ``"sim"``
for a simulated camera that renders the simulated equipment's physical state.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, PositiveFloat, PositiveInt, ValidationInfo, field_validator, model_validator

from bench.profiles.arena_outline import checked_arena
from bench.profiles.base import Strict

CLASSICAL_DICE_READER = "classical"
"""The pip-counting dice reader of earlier versions of the bench, since removed: a profile read back from an older
run's journal may name it (:mod:`reports.run_data` still reports it); a profile loaded for a run may not."""
STAGED_DICE_READER = "staged"
"""The staged dice reader with the bench's own per-die model at its model card's threshold: the default."""
PROFILE_FILE_CONTEXT = "profile_file"
"""Key of the validation context naming the profile's file: relative paths in the profile start from its folder."""
CHECK_FILES_CONTEXT = "check_files"
"""Key of the validation context asking that the files a profile names exist (a profile loaded for a run; not
one read back from a journal, whose run may have been made on another machine)."""


class CameraSimulation(Strict):
    """How a simulated camera renders frames: nuisance strength and read-decline cases injected.

    ``nuisance = "realistic"`` draws lighting, glare, noise, defocus, perspective and JPEG
    at the strengths the readers are benchmarked against; ``"none"`` renders clean frames.
    The ``*_rate`` fields inject cases a reader must decline (ball on a fret, ball
    hidden; a die cocked or stacked), each the share of outcomes affected.
    """

    seed: int = 20070226
    nuisance: Literal["realistic", "none"] = "realistic"
    fret_rate: Annotated[float, Field(ge=0.0, lt=1.0)] = 0.0
    hidden_rate: Annotated[float, Field(ge=0.0, lt=1.0)] = 0.0
    cocked_rate: Annotated[float, Field(ge=0.0, lt=1.0)] = 0.0
    stacked_rate: Annotated[float, Field(ge=0.0, lt=1.0)] = 0.0
    markers: bool = True
    """ArUco markers on the wheel surround (calibration by homography; ellipse fitting without)."""
    target: bool = True
    """A printed ArUco calibration board in view, for measuring dimensions in mm."""
    die_edge_px: Annotated[float, Field(ge=16.0, le=120.0)] | None = None
    """A dice camera fixed over the table: the dice's edge in its frames, px, the same every throw (as a lab's
    camera on its mount; a staged reader's configuration may then state it, ``stages.die_edge_px``). ``None``:
    each throw draws its own scale, 30 to 56 px, as a camera moved between throws would."""

    @model_validator(mode="after")
    def _shares_add_up_to_at_most_one(self) -> CameraSimulation:
        """The wheel's cases (fret, hidden) and the dice's (cocked, stacked) are each shares of the same outcomes."""
        for names in (("fret_rate", "hidden_rate"), ("cocked_rate", "stacked_rate")):
            total = sum(getattr(self, name) for name in names)
            if total > 1.0:
                raise ValueError(f"{' + '.join(names)} add up to {total:g}, above 1 (every outcome): "
                                 + ", ".join(f"{name} = {getattr(self, name):g}" for name in names))
        return self


class CameraConnection(Strict):
    """A camera and how its reads are turned into outcomes.

    ``votes`` settled frames are read per outcome and must all agree, otherwise the
    outcome is declined. ``calibration`` is a wheel calibration file written by
    ``bench calibrate roulette`` (real wheels; a simulated camera calibrates itself).
    ``keep_frames`` says which frames are kept as evidence: ``all`` keeps one frame of
    every outcome plus every declined or disputed frame; ``disputed`` keeps only the
    declined and disputed ones (for long simulated runs).
    """

    source: str = Field(min_length=1)
    width: PositiveInt | None = None
    height: PositiveInt | None = None
    timeout_s: PositiveFloat = 5.0
    retries: Annotated[int, Field(ge=0, le=10)] = 3
    votes: Annotated[int, Field(ge=1, le=15)] = 3
    unreadable_replacements: Annotated[int, Field(ge=0, le=10)] = 2
    """Dice cameras: how many settled frames of a throw the reader declines as unreadable (no face read surely, an
    abstention) are set aside and replaced by the next settled frame before the ``votes`` are counted; a frame
    declined for what the dice show (cocked, stacked, glare, motion, outside the arena, a wrong count) is always a
    vote. 0: every settled frame read is a vote (:class:`drivers.dice_table.CameraDiceTable`)."""
    calibration: str | None = None
    keep_frames: Literal["all", "disputed"] = "all"
    target_marker_mm: PositiveFloat = 20.0
    """Side of one marker of the printed 2x2 ArUco board beside the dice (a wheel camera uses the bench's
    wheel target, :data:`vision.measure_wheel.WHEEL_TARGET`)."""
    reference_ball_mm: PositiveFloat | None = None
    """Diameter of a certified gauge ball the camera reads in several pockets to correct the ball-outline
    bias before measuring the game's balls; without it the ball measurement is not made."""
    camera_height_mm: PositiveFloat | None = None
    """Lens height above the table, for the parallax correction of raised features (a die's top face)."""
    launch_clips: Annotated[int, Field(ge=0, le=100_000)] = 0
    """Wheel cameras: how many consecutive games, from the first of the run, are filmed from the launch to
    read the ball's and the rotor's directions (p217-2007/roleta-francesa/13); 0 films none."""
    launch_clip_frames: Annotated[int, Field(ge=4, le=300)] = 8
    """Frames per launch clip (at 30 frames/s a ball at 3 rev/s turns 36 degrees a frame: more than 6 frames/s
    is needed to tell its direction, and 8 frames give 7 steps)."""
    launch_clip_delay_s: Annotated[float, Field(ge=0.0, le=30.0)] = 0.0
    """Seconds from the wheel's game-start acknowledgement to the first frame of the clip (the launcher's delay)."""
    simulation: CameraSimulation | None = None
    dice_reader: str = STAGED_DICE_READER
    """Dice cameras: the reader of every frame. ``"staged"`` (the default) is the staged reader with the bench's
    own per-die model at its model card's threshold; a path to a reader configuration (``.json``, written by
    ``bench calibrate dice``; relative to the profile file) is the staged reader as that file sets it. Loaded as
    the profile is, the path is made absolute (and, for a run, must name a file); the file's content is checked
    before a run starts and whenever the rig builds the reader (:func:`bench.rig_cameras.check_dice_readers`).
    ``"classical"``, the pip-counting reader of earlier versions, is refused for a run and accepted only in a
    profile read back from an older run's journal (:data:`CLASSICAL_DICE_READER`)."""

    arena_px: tuple[tuple[float, float], ...] | None = None
    """Dice cameras: the arena's outline in the camera's frames, its corners in order round it (px from the frame's
    top-left corner, x right, y down), as the lab marks it on a still of its fixed camera. The reader declines a
    throw with a die read beyond it (``outside-arena``: p217-2007/banca-francesa/8 b, p217-2007/craps/7 a) and takes
    no body beyond it where no die is read (a rail, a marker) for a die. ``None``: the reader is told no arena, so
    no die is declined for lying outside it and every body in view must be a die read or none
    (:mod:`bench.profiles.arena_outline`)."""

    @field_validator("arena_px")
    @classmethod
    def _arena_outline(cls, value: tuple[tuple[float, float], ...] | None) -> tuple[tuple[float, float], ...] | None:
        """3 to 64 finite corners whose sides do not cross, enclosing at least a 20 px square."""
        return None if value is None else checked_arena(value)

    @field_validator("dice_reader")
    @classmethod
    def _dice_reader_named(cls, value: str, info: ValidationInfo) -> str:
        """A reader's name, or the path of a reader configuration (relative to the profile file; for a run, one
        that exists). The removed classical reader only in a profile read back from an older run's journal."""
        context = info.context or {}
        if value == CLASSICAL_DICE_READER and context.get(CHECK_FILES_CONTEXT):
            raise ValueError(f"the {CLASSICAL_DICE_READER!r} (pip-counting) reader is no longer part of the bench: "
                             f"use {STAGED_DICE_READER!r} (the default) or a reader configuration from "
                             "'bench calibrate dice'")
        if value in (CLASSICAL_DICE_READER, STAGED_DICE_READER):
            return value
        if not value.strip() or Path(value).suffix.lower() != ".json":
            raise ValueError(f"{value!r} is neither {STAGED_DICE_READER!r} nor the path of a reader configuration "
                             "(.json, from 'bench calibrate dice')")
        path = Path(value).expanduser()
        profile_file = context.get(PROFILE_FILE_CONTEXT)
        if not path.is_absolute() and profile_file is not None:
            path = Path(profile_file).parent / path
        path = path.absolute()
        if context.get(CHECK_FILES_CONTEXT) and not path.is_file():
            raise ValueError(f"reader configuration {path} does not exist (a path is taken relative to the "
                             "profile file)")
        return str(path)

    @property
    def simulated(self) -> bool:
        return self.source == "sim"

    @property
    def staged_dice_reader(self) -> bool:
        """Whether the dice are read by the staged reader (the bench's own, or as a configuration sets it): always,
        except in a profile read back from an older run's journal that names the removed classical reader."""
        return self.dice_reader != CLASSICAL_DICE_READER

    @property
    def dice_reader_settings(self) -> Path | None:
        """The reader configuration file the profile names (absolute), or ``None``."""
        return None if self.dice_reader in (CLASSICAL_DICE_READER, STAGED_DICE_READER) else Path(self.dice_reader)
