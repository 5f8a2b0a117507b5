"""Profile model of a cussec dome ("campânula", p217-2007/cussec/2) and the camera reading its dice.

The dome's controller reports each round on a serial line (CD protocol, ``docs/protocols/cussec-dome.md``):
the lever strokes, the betting lamp, the cover, the winning zones it lit on the layout. A camera over the
glass dome reads the three dice (the result, p217-2007/cussec/5). ``suites/test_cussec_dome.py`` judges
p217-2007/cussec/4 (three strokes, then the lamp lights by itself), /5 (the zones lit are exactly the
winning chances of the dice the camera read) and the balance of the dome's dice (/1).

The equipment kind is the catalogue's ``dice-shaker`` (the dome is the game's dice shaker), so the
report lists every clause of that kind.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, PositiveFloat, model_validator

from bench.games.cussec import ZONES
from bench.profiles.base import EquipmentBase, SimulatorBase, Strict
from bench.profiles.camera import CameraConnection

DOME_KIND = "dice-shaker"


class CussecDomeOptions(Strict):
    """How the dome is certified.

    ``rounds``: rounds played and logged (each committed to the journal as it is read); a round whose dice the
    camera declines (a "golpe nulo" candidate, p217-2007/cussec/6) still counts for the lamp clause but is
    never compared. ``alpha``: the family-wise level of the dice balance tests (Holm). ``lamp_within_ms``:
    the bench's bound on "na sequência do que se acende, automaticamente" (p217-2007/cussec/4): the lamp
    must light at most this long after the third stroke. ``command_rounds``: the bench plays the rounds with
    the dome's actuator when it has one (false: it waits for the dealer's rounds). ``round_timeout_s``: how
    long the driver waits for a round to be finished. ``max_declined_share``: the most rounds whose dice the camera
    may decline, as a share of ``rounds`` (at least one); beyond it the clauses judged on the dice the camera read
    (the zones lit, the dice's balance) are INCOMPLETE (:mod:`fixtures.decline_bound`): the rounds compared would be
    too few for the power the plan states, and a decline that depended on the dice would bias them.
    """

    rounds: Annotated[int, Field(ge=1, le=10_000_000)] = 300
    alpha: Annotated[float, Field(gt=0.0, lt=0.5)] = 0.01
    lamp_within_ms: Annotated[int, Field(ge=1, le=60_000)] = 2000
    command_rounds: bool = True
    round_timeout_s: PositiveFloat = 300.0
    max_declined_share: Annotated[float, Field(gt=0.0, lt=1.0)] = 0.1


Fault = Literal["fair", "lamp-manual", "short-shake", "zone-miswired", "sensor-misread"]


class CussecDomeSimulator(SimulatorBase):
    """The simulated dome (see :mod:`drivers.sim.cussec_dome`): fair dice from ``(seed, round)``.

    * ``fair``: three strokes, the lamp lit by the controller 50-400 ms after the third, the zones of the dice.
    * ``lamp-manual``: the lamp does not light by itself; the dealer switches it on 1.5-6 s after the third
      stroke (p217-2007/cussec/4).
    * ``short-shake``: the lever's linkage slips: only two strokes move the disc before the lamp lights
      (the dice jump fewer than three times, p217-2007/cussec/4).
    * ``zone-miswired``: the lamps of ``miswired_zone`` and ``miswired_with`` are swapped on the layout: each
      lights when the other's chance wins (p217-2007/cussec/5).
    * ``sensor-misread``: the controller lights the zones of the dice its own sensor read, wrong (one die read
      as another face) in ``misread_rate`` of the rounds (p217-2007/cussec/5).

    ``actuator``: the bench can play rounds (``PLAY``); without one the simulated dealer plays each round when
    the bench asks for it. ``dice_style`` / ``dice_edge_mm``: the dice the simulated camera shows.
    ``garble_rate`` corrupts the checksum of that share of reply frames; ``round_time_s`` is how long a round
    takes after ``PLAY``.
    """

    model: Fault = "fair"
    seed: int = 20070226
    actuator: bool = True
    miswired_zone: str = "dupla-4"
    miswired_with: str = "dupla-5"
    misread_rate: Annotated[float, Field(gt=0.0, lt=1.0)] = 1 / 40
    dice_style: Literal["translucent-red", "opaque-white"] = "translucent-red"
    dice_edge_mm: Annotated[float, Field(gt=5.0, lt=40.0)] | None = None
    garble_rate: Annotated[float, Field(ge=0.0, lt=1.0)] = 0.0
    round_time_s: Annotated[float, Field(ge=0.0, le=600.0)] = 0.0

    @model_validator(mode="after")
    def _zones_exist(self) -> CussecDomeSimulator:
        for name in (self.miswired_zone, self.miswired_with):
            if name not in ZONES:
                raise ValueError(f"{name!r} is not a cussec zone (e.g. dupla-4, numero-3, total-9)")
        if self.miswired_zone == self.miswired_with:
            raise ValueError("miswired_zone and miswired_with must be two different zones")
        return self


class CussecDomeEquipment(EquipmentBase):
    """A cussec dome: its controller on a serial line (CD protocol) and a camera over the glass dome."""

    kind: Literal["dice-shaker"]
    options: CussecDomeOptions = CussecDomeOptions()
    simulator: CussecDomeSimulator | None = None
    camera: CameraConnection

    @model_validator(mode="after")
    def _connection_camera_simulator(self) -> CussecDomeEquipment:
        self._check_connection(self.simulator is not None)
        simulated = self.simulator is not None
        if self.camera.simulated and not simulated:
            raise ValueError("camera source 'sim' renders a simulated dome: add a simulator table or a real camera")
        if simulated and not self.camera.simulated:
            raise ValueError(f"a simulated dome can only be watched by camera source 'sim', not {self.camera.source!r}")
        if self.camera.launch_clips:
            raise ValueError("camera.launch_clips films a roulette wheel's launches; a dome has none")
        return self
