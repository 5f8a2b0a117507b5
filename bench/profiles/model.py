"""Typed model of an equipment profile (TOML), validated by pydantic.

A profile names each piece of equipment on the bench: its kind, identity,
connection and options, and, for a simulated device, the simulator's fairness
or fault model. ``bench certify`` reads it; suites receive drivers built from it.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, PositiveFloat, model_validator

from bench.games.roulette_layout import AMERICAN_ORDER, FRENCH_ORDER
from bench.profiles.attestations import Attestation
from bench.profiles.base import EquipmentBase, Identity, SimulatorBase, Strict
from bench.profiles.camera import CameraConnection
from bench.profiles.cussec_dome import CussecDomeEquipment
from bench.profiles.gaming_table import GamingTableEquipment
from bench.profiles.instruments import FrequencyCounterInstrument, Instrument, PowerSupplyInstrument
from bench.profiles.jackpot import JackpotEquipment
from bench.profiles.progressive import ProgressiveControllerEquipment, check_links
from bench.profiles.shuffler import ShufflerEquipment
from bench.profiles.slot import SlotMachineEquipment


class RouletteOptions(Strict):
    """How the wheel is certified.

    ``game`` selects which section's clauses apply (p217-2007/roleta-francesa or
    /roleta-americana); ``layout`` is the wheel's pocket order (p217-2007
    roleta-americana/2 allows French or American numbering, roleta-francesa/2
    French only); ``spins`` is the sample size of the fairness tests and
    ``alpha`` their significance level. ``outcome_source`` says where each game's
    winning number comes from: the wheel's own serial report, the camera, or both
    (the serial number is the outcome and every camera read is compared with it).

    ``sequential = true`` judges sector fairness with an anytime-valid sequential test
    (``suites/test_roulette.py``): ``spins`` becomes the most spins played, and the wheel
    stops as soon as the test rejects fairness (type I error <= ``alpha``) or accepts it
    (type II error <= ``beta`` against the named sector alternatives). The Pearson
    chi-square on a sample whose size the sequential rule chose does not keep its
    nominal level, so it is then information only, unless ``chi_square_spins`` > 0:
    that many spins are always played, the chi-square judges exactly the first
    ``chi_square_spins`` of them, and the two tests share ``alpha`` (Bonferroni, alpha/2 each).
    """

    game: Literal["roleta-francesa", "roleta-americana"] = "roleta-francesa"
    layout: Literal["french", "american"] = "french"
    spins: Annotated[int, Field(ge=37, le=10_000_000)] = 3700
    alpha: Annotated[float, Field(gt=0.0, lt=0.5)] = 0.01
    spin_timeout_s: PositiveFloat = 120.0
    outcome_source: Literal["serial", "camera", "both"] = "serial"
    sequential: bool = False
    beta: Annotated[float, Field(gt=0.0, lt=0.5)] = 0.1
    chi_square_spins: Annotated[int, Field(ge=0, le=10_000_000)] = 0
    max_declined_share: Annotated[float, Field(gt=0.0, lt=1.0)] = 0.1
    """The most games the wheel may void ("no result"), and apart the most the camera may decline when it gives the
    outcomes (``outcome_source = "camera"``), each as a share of ``spins`` (at least one): one more stops the test,
    its clauses INCOMPLETE (:mod:`fixtures.decline_bound`). With ``outcome_source = "both"`` a camera that declined
    more than this share of the games played leaves the camera's cross-check of the sensor INCOMPLETE."""

    @model_validator(mode="after")
    def _french_game_needs_french_layout(self) -> RouletteOptions:
        if self.game == "roleta-francesa" and self.layout != "french":
            raise ValueError("game 'roleta-francesa' requires layout 'french' (p217-2007/roleta-francesa/2)")
        return self

    @model_validator(mode="after")
    def _chi_square_spins_within_a_sequential_budget(self) -> RouletteOptions:
        if self.chi_square_spins and not self.sequential:
            raise ValueError("chi_square_spins applies to sequential = true (a fixed run judges all its spins)")
        if self.chi_square_spins and not 37 <= self.chi_square_spins <= self.spins:
            raise ValueError(f"chi_square_spins must be 0 or between 37 and spins ({self.spins}), "
                             f"got {self.chi_square_spins}")
        return self

    @property
    def pocket_order(self) -> tuple[int, ...]:
        return FRENCH_ORDER if self.layout == "french" else AMERICAN_ORDER


class RouletteSimulator(SimulatorBase):
    """The simulated wheel's model.

    * ``fair``: every pocket 1/37.
    * ``sector-bias``: ``sector_width`` adjacent pockets starting at pocket
      number ``sector_start`` (clockwise) are ``bias_factor`` times as likely as
      the others, the way a worn or tilted wheel favours an arc.
    Faults: ``launch_fault`` makes the ball turn with the rotor (``co-rotation``)
    or stop alternating (``no-alternation``), or makes the ball turn with the rotor
    while the wheel's direction sensor reports the rotor turning against it
    (``co-rotation-misreported``: only a camera sees it); ``misread_rate`` reports "no result"
    for that share of games; ``garble_rate`` corrupts that share of result frames;
    ``sensor_error_rate`` makes the wheel's sensor report the pocket next to the
    one the ball is in for that share of games (a camera sees the truth).
    ``ball_diameter_mm`` and ``wheel_diameter_mm`` are the simulated equipment's
    physical sizes, which a simulated camera shows.
    """

    model: Literal["fair", "sector-bias"] = "fair"
    seed: int = 20070226
    sector_start: Annotated[int, Field(ge=0, le=36)] = 0
    sector_width: Annotated[int, Field(ge=1, le=36)] = 1
    bias_factor: PositiveFloat = 1.0
    launch_fault: Literal["none", "co-rotation", "no-alternation", "co-rotation-misreported"] = "none"
    misread_rate: Annotated[float, Field(ge=0.0, lt=1.0)] = 0.0
    garble_rate: Annotated[float, Field(ge=0.0, lt=1.0)] = 0.0
    spin_time_s: Annotated[float, Field(ge=0.0)] = 0.0
    sensor_error_rate: Annotated[float, Field(ge=0.0, lt=1.0)] = 0.0
    ball_diameter_mm: Annotated[float, Field(gt=5.0, lt=60.0)] = 21.0
    wheel_diameter_mm: Annotated[float, Field(gt=200.0, lt=1000.0)] = 560.0
    layout: Literal["french", "american"] | None = None  # defaults to the options' layout

    @model_validator(mode="after")
    def _bias_needs_sector(self) -> RouletteSimulator:
        if self.model == "sector-bias" and self.bias_factor == 1.0:
            raise ValueError("model 'sector-bias' needs a bias_factor other than 1.0")
        return self


class RouletteWheelEquipment(EquipmentBase):
    """An automated or semi-automated roulette wheel reporting results over RS-232."""

    kind: Literal["roulette-wheel"]
    options: RouletteOptions = RouletteOptions()
    simulator: RouletteSimulator | None = None
    camera: CameraConnection | None = None

    @model_validator(mode="after")
    def _connection_or_simulator(self) -> RouletteWheelEquipment:
        self._check_connection(self.simulator is not None)
        if self.options.outcome_source != "serial" and self.camera is None:
            raise ValueError(f"outcome_source {self.options.outcome_source!r} needs a camera table")
        _check_camera(self.camera, simulated=self.simulator is not None)
        if self.camera is not None and not self.camera.simulated and self.camera.calibration is None:
            raise ValueError("a real wheel camera needs camera.calibration (a file from 'bench calibrate roulette')")
        if self.camera is not None and "dice_reader" in self.camera.model_fields_set:
            raise ValueError("camera.dice_reader chooses a dice camera's reader; a wheel camera reads pockets")
        if self.camera is not None and self.camera.arena_px is not None:
            raise ValueError("camera.arena_px outlines a dice camera's arena; a wheel camera's calibration places "
                             "the wheel")
        if self.camera is not None and "unreadable_replacements" in self.camera.model_fields_set:
            raise ValueError("camera.unreadable_replacements sets aside a dice camera's unreadable frames; a wheel "
                             "camera's votes are consecutive frames, each a vote")
        return self


def _check_camera(camera: CameraConnection | None, *, simulated: bool) -> None:
    """A simulated camera ('sim') only watches simulated equipment, and simulated equipment only a simulated camera."""
    if camera is None:
        return
    if camera.simulated and not simulated:
        raise ValueError("camera source 'sim' renders a simulated device: add a simulator table or a real camera source")
    if simulated and not camera.simulated:
        raise ValueError(f"a simulated device can only be watched by camera source 'sim', not {camera.source!r}")


class RngOptions(Strict):
    """How a game's random number generator is certified (``suites/test_rng.py``).

    The raw output is cut into ``nist_sequences`` sequences of ``nist_sequence_bits`` bits for
    the SP 800-22 battery and its second-level analysis (section 4.2 asks for at least 55
    sequences for the uniformity of p-values); ``dieharder_tests`` each read the first
    ``dieharder_bytes`` bytes of the raw output (the defaults need 4.8, 6.5 and 9.6 MB at
    dieharder's default psamples); ``draws`` game outcomes in ``0..draw_range-1`` test the mapping from raw output to
    the game (modulo bias) and the outcome stream. ``alpha`` is the family-wise level of each
    test family (Holm).
    """

    nist_sequences: Annotated[int, Field(ge=1, le=10_000)] = 55
    nist_sequence_bits: Annotated[int, Field(ge=100, le=100_000_000)] = 1_000_000
    dieharder_tests: list[str] = Field(default_factory=lambda: ["diehard_3dsphere", "diehard_2dsphere",
                                                                "diehard_parking_lot"])
    dieharder_bytes: Annotated[int, Field(ge=0, le=10_000_000_000)] = 10_000_000
    draw_range: Annotated[int, Field(ge=2, le=65_536)] = 37
    draws: Annotated[int, Field(ge=0, le=100_000_000)] = 20_000
    alpha: Annotated[float, Field(gt=0.0, lt=0.5)] = 0.01


class RngSimulator(SimulatorBase):
    """The simulated generator and outcome mapping (see :mod:`drivers.sim.rng_device`)."""

    model: Literal["fair", "biased-bits", "lcg-low-byte"] = "fair"
    seed: int = 20070226
    one_probability: Annotated[float, Field(gt=0.0, lt=1.0)] = 0.5
    draw_mapping: Literal["rejection", "modulo"] = "rejection"
    raw_bits: Literal[8, 16, 32] = 32
    garble_rate: Annotated[float, Field(ge=0.0, lt=1.0)] = 0.0

    @model_validator(mode="after")
    def _bias_needs_probability(self) -> RngSimulator:
        if self.model == "biased-bits" and self.one_probability == 0.5:
            raise ValueError("model 'biased-bits' needs a one_probability other than 0.5")
        return self


class RngEquipment(EquipmentBase):
    """A game's RNG test interface on a serial line (RG protocol): raw output and game draws."""

    kind: Literal["rng"]
    options: RngOptions = RngOptions()
    simulator: RngSimulator | None = None

    @model_validator(mode="after")
    def _connection_or_simulator(self) -> RngEquipment:
        self._check_connection(self.simulator is not None)
        return self


class DiceOptions(Strict):
    """How a dice game is certified (``suites/test_dice.py``).

    ``game`` selects the clauses and the dice per throw: banca francesa and cussec
    throw 3 dice (p217-2007/banca-francesa/3, p217-2007/cussec/1), craps throws 2 of its
    5 dice (p217-2007/craps/2). ``throws`` is the sample size; a declined read is a
    "golpe nulo" candidate and is not a throw.
    """

    game: Literal["banca-francesa", "craps", "cussec"] = "banca-francesa"
    throws: Annotated[int, Field(ge=10, le=10_000_000)] = 1000
    alpha: Annotated[float, Field(gt=0.0, lt=0.5)] = 0.01
    throw_timeout_s: PositiveFloat = 120.0
    max_declined_share: Annotated[float, Field(gt=0.0, lt=1.0)] = 0.1
    """The most throws the camera may decline, as a share of ``throws`` (at least one): one more stops the test,
    its clauses INCOMPLETE (:mod:`fixtures.decline_bound`). The `sim` profile's camera declines about 4 %."""
    edge_definition_mm: Annotated[float, Field(ge=0.0, le=2.0)] = 0.0
    """The dice model's edge definition: the standard uncertainty of an edge's width from rounded or bevelled
    edges, which shade off so that the outline the camera finds lies inside the true edge
    (:func:`vision.measure.measure_die_edges`, p217-2007/banca-francesa/3 b). 0 for sharp-edged precision dice;
    for edges that put the outline up to ``a`` mm inside the width, ``a / sqrt(3)``."""

    @property
    def dice_per_throw(self) -> int:
        return 2 if self.game == "craps" else 3

    @property
    def edge_limits_mm(self) -> tuple[float, float]:
        """Allowed die edge (p217-2007/banca-francesa/3, cussec/1: 12-15 mm; craps/2: 18-20 mm)."""
        return (18.0, 20.0) if self.game == "craps" else (12.0, 15.0)


class DiceSimulator(Strict):
    """The simulated dice: ``fair`` (every face 1/6) or ``loaded`` (``loaded_face`` comes up with
    ``loaded_probability`` on every die, the other faces sharing the rest), their size and look."""

    model: Literal["fair", "loaded"] = "fair"
    seed: int = 20070226
    loaded_face: Annotated[int, Field(ge=1, le=6)] = 6
    loaded_probability: Annotated[float, Field(gt=0.0, lt=1.0)] = 1 / 6
    edge_mm: Annotated[float, Field(gt=5.0, lt=40.0)] | None = None  # default: the middle of the game's range
    style: Literal["translucent-red", "opaque-white"] = "translucent-red"
    throw_time_s: Annotated[float, Field(ge=0.0)] = 0.0

    @model_validator(mode="after")
    def _load_needs_probability(self) -> DiceSimulator:
        if self.model == "loaded" and abs(self.loaded_probability - 1 / 6) < 1e-9:
            raise ValueError("model 'loaded' needs a loaded_probability other than 1/6")
        return self


class DiceTableEquipment(Strict):
    """A dice game (arena or cussec dome) watched by a camera that reads every throw."""

    kind: Literal["dice"]
    identity: Identity
    options: DiceOptions = DiceOptions()
    camera: CameraConnection
    simulator: DiceSimulator | None = None
    connection: None = None  # dice have no data line: the camera is the only witness

    @model_validator(mode="after")
    def _camera_matches_simulation(self) -> DiceTableEquipment:
        _check_camera(self.camera, simulated=self.simulator is not None)
        if self.camera.launch_clips:
            raise ValueError("camera.launch_clips films a roulette wheel's launches; a dice table has none")
        return self


Equipment = Annotated[RouletteWheelEquipment | RngEquipment | DiceTableEquipment | ShufflerEquipment
                      | SlotMachineEquipment | JackpotEquipment | GamingTableEquipment
                      | ProgressiveControllerEquipment | CussecDomeEquipment, Field(discriminator="kind")]


class Laboratory(Strict):
    """Who runs the bench (printed on the report)."""

    name: str = "Unnamed laboratory"
    operator: str = "unknown operator"


class Profile(Strict):
    """A whole bench: laboratory and every piece of equipment, by name."""

    name: str = Field(min_length=1)
    description: str = ""
    laboratory: Laboratory = Laboratory()
    equipment: dict[str, Equipment] = Field(min_length=1)
    instruments: dict[str, Instrument] = Field(default_factory=dict)
    """Lab instruments (VISA): power supplies feeding equipment, frequency counters watching a rotor."""
    attestations: list[Attestation] = Field(default_factory=list)
    """People's attestations of procedure clauses, journalled with the run and shown ATTESTED on the certificate."""

    @model_validator(mode="after")
    def _instruments_name_equipment(self) -> Profile:
        for name, instrument in self.instruments.items():
            if isinstance(instrument, PowerSupplyInstrument):
                named = instrument.powers
            elif isinstance(instrument, FrequencyCounterInstrument):
                named = [instrument.measures] if instrument.measures else []
            else:  # pragma: no cover - the union has two kinds
                named = []
            unknown = [item for item in named if item not in self.equipment]
            if unknown:
                raise ValueError(f"instrument {name!r} names equipment the profile lacks: {', '.join(unknown)} "
                                 f"(have: {', '.join(self.equipment)})")
        return self

    @model_validator(mode="after")
    def _progressive_links_name_slot_machines(self) -> Profile:
        for name, item in self.equipment.items():
            if isinstance(item, ProgressiveControllerEquipment):
                check_links(name, item, self.equipment)
        return self

    def of_kind(self, kind: str) -> dict[str, Equipment]:
        """Equipment of one kind, by name."""
        return {name: item for name, item in self.equipment.items() if item.kind == kind}
