"""``bench doctor``: is the rig ready for a run?

Each check is a small function returning a :class:`CheckResult` (name, status, detail): every
device on a data line is opened as the run opens it (:class:`bench.rig.Rig`: a simulated device's
simulator started, its pseudo-terminal opened) and must answer (its identity; a progressive
controller, one level broadcast); every camera delivers a frame; every VISA instrument answers
``*IDN?`` with the identity the profile gives; the laboratory key loads (never asking for its
passphrase: an encrypted key with no ``BENCH_KEY_PASSPHRASE`` is a warning at a terminal, where
the run asks for it, and a failure without one); dieharder is installed; WeasyPrint lays out a
test page (Pango, HarfBuzz and a font are there).

``bench certify`` runs the checks of the rig first (:func:`rig_not_ready`) and stops, in one line,
before anything of the run is written when one fails: the key and the PDF libraries are left to
the run, which is then left unsigned or gets its certificate as HTML, and says so.

Nothing here decides a verdict: a failed check means no run, not a clause's result.
"""

from __future__ import annotations

import os
import sys
import tempfile
import textwrap
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from bench.journal import Journal
from bench.profiles import ProfileError, load_profile_text
from bench.profiles.arena_outline import frame_share_inside
from bench.profiles.cussec_dome import CussecDomeEquipment
from bench.profiles.instruments import FrequencyCounterInstrument, PowerSupplyInstrument
from bench.profiles.model import DiceTableEquipment, Profile, RngEquipment, RouletteWheelEquipment
from bench.rig import Rig
from bench.rig_cameras import check_dice_readers
from bench.rig_power import WrongInstrument, identity_mismatches
from drivers.camera import CameraError
from drivers.instruments import SIMULATED_INSTRUMENTS_YAML, open_instrument
from drivers.serial_link import DeviceError
from drivers.sim.host import SimulatorError

LINE_WIDTH = 80
"""Every line of the report fits a terminal of this many columns."""


class Status(StrEnum):
    OK = "ok"
    WARN = "warn"
    FAIL = "FAIL"


@dataclass(frozen=True)
class CheckResult:
    """One check of the rig: what was checked (``name``), how it went and what was found (``detail``)."""

    name: str
    status: Status
    detail: str

    @property
    def ok(self) -> bool:
        """Whether the check lets a run go ahead (a warning does)."""
        return self.status is not Status.FAIL


def _failure(error: Exception) -> str:
    """What went wrong, short: a device's last attempt rather than every attempt's repetition."""
    if isinstance(error, WrongInstrument):
        return "*IDN? " + "; ".join(f"{field} {got!r}, expected {wanted!r}" for field, got, wanted in error.mismatches)
    if isinstance(error, DeviceError) and error.attempts:
        what = error.what.strip("'")  # an instrument's command is quoted
        return f"{what}: {error.attempts[-1]}"
    if isinstance(error, CameraError):
        return f"{error.source}: {error.what}" + (f": {error.attempts[-1]}" if error.attempts else "")
    return str(error) or type(error).__name__


def _guarded(name: str, check: Callable[[], CheckResult]) -> CheckResult:
    """Run one check; whatever it raises is that check's failure (a doctor that crashes checks nothing)."""
    try:
        return check()
    except Exception as error:  # noqa: BLE001 - every failure of a device is reported, none ends the report
        return CheckResult(name, Status.FAIL, _failure(error))


def _identity_text(identity: object) -> str:
    """A device's reported identity in a few columns: its serial number (else its model)."""
    return str(getattr(identity, "serial", None) or getattr(identity, "model", None) or identity)


# -- the rig ---------------------------------------------------------------------------------------


def _missing_path(spec: str) -> bool:
    """Whether a port or camera ``spec`` names a path (not a URL, index or name) that is not there: said at once,
    rather than after the bounded attempts to open it."""
    return "/" in spec and "://" not in spec and not Path(spec).exists()



def check_serial(rig: Rig, name: str) -> CheckResult:
    """The named device's line: a real port exists and opens, a simulator starts and its tty opens; then the
    device answers through its driver (its identity; a progressive controller, one level broadcast)."""
    check = f"{name} serial"
    equipment = rig.profile.equipment[name]
    port = equipment.connection.port if equipment.connection is not None and equipment.simulator is None else None
    if port is not None and _missing_path(port):
        return CheckResult(check, Status.FAIL, f"{port} does not exist")
    try:
        device = rig.device(name)
    except SimulatorError as error:
        return CheckResult(check, Status.FAIL, f"simulator did not start: {error}")
    where = f"sim {device.simulator.tty_path}" if device.simulator is not None else port
    driver = device.driver
    identify = getattr(driver, "identify", None)
    if identify is None:  # a progressive link: the bench only listens
        broadcast = driver.next_broadcast()  # type: ignore[union-attr]
        return CheckResult(check, Status.OK, f"{where} answers: a level broadcast of group {broadcast.group}")
    identity = identify()
    reported = getattr(identity, "serial", None)
    if reported is not None and reported != equipment.identity.serial:
        return CheckResult(check, Status.WARN, f"{where} answers: serial {reported!r}, the profile says "
                                               f"{equipment.identity.serial!r}")
    return CheckResult(check, Status.OK, f"{where} answers: {_identity_text(identity)}")


def check_camera(rig: Rig, name: str) -> CheckResult:
    """The camera watching the named device opens (a wheel's is calibrated) and delivers a frame."""
    connection = rig.profile.equipment[name].camera  # type: ignore[union-attr]
    assert connection is not None, f"{name} has no camera"
    if not connection.simulated and _missing_path(connection.source):
        return CheckResult(f"{name} camera", Status.FAIL, f"{connection.source} does not exist")
    opened = rig.open_camera(name)
    assert opened is not None
    camera = opened.camera
    frame = camera.read()
    height, width = frame.image.shape[:2]
    identity = camera.identity
    source = identity.source if identity.source.startswith(identity.kind) else f"{identity.kind} {identity.source}"
    if connection.arena_px is None:
        return CheckResult(f"{name} camera", Status.OK, f"{source}: a {width}x{height} frame")
    share = frame_share_inside(connection.arena_px, width, height)
    if share == 0.0:
        return CheckResult(f"{name} camera", Status.FAIL,
                           f"camera.arena_px outlines no part of its {width}x{height} frame (marked on a still of "
                           "another size or camera?): every throw would be declined outside-arena")
    return CheckResult(f"{name} camera", Status.OK, f"{source}: a {width}x{height} frame, {share:.0%} in the arena")


def check_power_supply(rig: Rig, name: str) -> CheckResult:
    """The named power supply (simulated: its simulator started) answers ``*IDN?`` as the profile says, takes
    its voltage and switches its output on, as a run brings it up (and leaves it on, as a run does)."""
    supply = rig.power.supply(name)
    where = "sim" if supply.simulator is not None else supply.instrument.connection.resource  # type: ignore[union-attr]
    return CheckResult(f"{name} VISA", Status.OK, f"{where} *IDN?: {_identity_text(supply.reported)}")


def check_frequency_counter(name: str, instrument: FrequencyCounterInstrument) -> CheckResult:
    """The named frequency counter answers ``*IDN?`` with the identity the profile gives (when it gives one)."""
    if instrument.connection is not None:
        connection = instrument.connection
        resource, options = connection.resource, {"backend": connection.backend, "timeout_s": connection.timeout_s,
                                                  "retries": connection.retries}
    else:
        resource, options = instrument.simulated_resource, {"backend": f"{SIMULATED_INSTRUMENTS_YAML}@sim"}
    counter = open_instrument(resource, kind="frequency-counter", name=name, **options)
    try:
        reported = counter.identify()
    finally:
        counter.close()
    mismatches = identity_mismatches(instrument.identity, reported)
    if mismatches:
        raise WrongInstrument(name, mismatches)
    return CheckResult(f"{name} VISA", Status.OK, f"{resource} *IDN?: {_identity_text(reported)}")


def rig_checks(profile: Profile, work_dir: Path) -> Iterator[CheckResult]:
    """Every check of the profile's rig, as each is done: instruments first (a supply feeds devices), then each
    device's line and its camera. Devices are opened in ``work_dir`` and closed at the end."""
    with Rig(profile, work_dir, cameras=False) as rig:
        failed_supplies: set[str] = set()
        for name, instrument in profile.instruments.items():
            if isinstance(instrument, PowerSupplyInstrument):
                result = _guarded(f"{name} VISA", lambda name=name: check_power_supply(rig, name))
                if not result.ok:
                    failed_supplies.add(name)
            else:
                result = _guarded(f"{name} VISA", lambda name=name, item=instrument: check_frequency_counter(name, item))
            yield result
        for name, equipment in profile.equipment.items():
            if not isinstance(equipment, DiceTableEquipment):
                supply = rig.power.supply_name_for(name)
                if supply in failed_supplies:
                    yield CheckResult(f"{name} serial", Status.FAIL, f"not opened: its power supply {supply} is not ready")
                else:
                    yield _guarded(f"{name} serial", lambda name=name: check_serial(rig, name))
            if isinstance(equipment, DiceTableEquipment | CussecDomeEquipment) or (
                    isinstance(equipment, RouletteWheelEquipment) and equipment.camera is not None):
                yield _guarded(f"{name} camera", lambda name=name: check_camera(rig, name))


# -- the laboratory's tools and key ----------------------------------------------------------------


def check_key(key_dir: Path | None = None) -> CheckResult:
    """The laboratory key loads; never asks for a passphrase (see the module's docstring)."""
    from reports.signing import (
        ENCRYPTED_PEM_HEADER,
        PASSPHRASE_VARIABLE,
        PRIVATE_KEY_FILE,
        KeyFileError,
        default_key_dir,
        load_key,
    )

    directory = Path(key_dir) if key_dir is not None else default_key_dir()
    path = directory / PRIVATE_KEY_FILE
    try:
        pem = path.read_bytes()
    except FileNotFoundError:
        return CheckResult("laboratory key", Status.FAIL, f"no key in {directory} (`bench keys init`)")
    except OSError as error:
        return CheckResult("laboratory key", Status.FAIL, f"{path}: {error.strerror or error}")
    if ENCRYPTED_PEM_HEADER in pem and not os.environ.get(PASSPHRASE_VARIABLE):
        if sys.stdin.isatty():
            return CheckResult("laboratory key", Status.WARN, f"encrypted, no {PASSPHRASE_VARIABLE}: the run asks")
        return CheckResult("laboratory key", Status.FAIL, f"encrypted, no passphrase available ({PASSPHRASE_VARIABLE})")
    try:
        key = load_key(directory)
    except KeyFileError as error:
        return CheckResult("laboratory key", Status.FAIL, str(error))
    return CheckResult("laboratory key", Status.OK, f"{directory}: loads, {key.fingerprint[:19]}…")


def check_dieharder() -> CheckResult:
    """dieharder is installed where the RNG suite looks for it."""
    from rng_tests.dieharder.runner import Dieharder

    dieharder = Dieharder()
    if dieharder.path is None:
        return CheckResult("dieharder", Status.FAIL, dieharder.missing_reason)
    return CheckResult("dieharder", Status.OK, dieharder.path)


def check_pdf(work_dir: Path) -> CheckResult:
    """WeasyPrint, Pango, HarfBuzz and a font are there: a test page is laid out as PDF."""
    from reports.pdf import PdfUnavailable, html_to_pdf

    try:
        written = html_to_pdf("<p>Certificado de ensaio — Test certificate</p>", Path(work_dir) / "doctor.pdf")
    except PdfUnavailable as error:
        return CheckResult("PDF libraries", Status.FAIL, str(error))
    import weasyprint

    return CheckResult("PDF libraries", Status.OK, f"WeasyPrint {weasyprint.__version__}: test page of "
                                                   f"{written.stat().st_size:,} bytes")


def all_checks(profile: Profile, key_dir: Path | None = None) -> Iterator[CheckResult]:
    """Every check ``bench doctor`` makes, as each is done."""
    with tempfile.TemporaryDirectory(prefix="bench-doctor-") as scratch:
        yield from rig_checks(profile, Path(scratch) / "devices")
        yield check_key(key_dir)
        yield check_dieharder()
        yield _guarded("PDF libraries", lambda: check_pdf(Path(scratch)))


def rig_not_ready(profile: Profile, suites: list[str] | None = None, profile_arg: str | None = None) -> str | None:
    """``bench certify``'s checks before a run: the rig's, and dieharder when the RNG suite is to test an RNG.
    ``None`` when every one passes, else one line naming the first failure (and how many more there are)."""
    rng_suite = not suites or any(Path(suite).stem.removeprefix("test_") == "rng" for suite in suites)
    wants_dieharder = rng_suite and any(isinstance(item, RngEquipment) for item in profile.equipment.values())
    with tempfile.TemporaryDirectory(prefix="bench-doctor-") as scratch:
        failed = [result for result in rig_checks(profile, Path(scratch) / "devices") if not result.ok]
    if wants_dieharder and not (dieharder := check_dieharder()).ok:
        failed.append(dieharder)
    if not failed:
        return None
    first = failed[0]
    more = f" (and {len(failed) - 1} more)" if len(failed) > 1 else ""
    return (f"Rig not ready, nothing run: {first.name}: {first.detail}{more}; "
            f"`bench doctor --profile {profile_arg or profile.name}` checks every device")


def resumed_rig_not_ready(run_dir: Path, suites: list[str] | None) -> str | None:
    """:func:`rig_not_ready` for a run to be resumed: the rig of the profile its journal holds, whose dice readers
    must still be built (:func:`bench.rig_cameras.check_dice_readers`: not the removed classical reader an older
    run may name, nor a reader configuration that can no longer be used)."""
    with Journal(Path(run_dir) / Journal.FILENAME, create=False) as journal:
        [run] = journal.rows("runs")[:1]
    try:
        profile = load_profile_text(run["profile_text"], run["profile_source"])
    except ProfileError as error:
        return f"Rig not checked, nothing run: the profile in {run_dir}'s journal does not load: {error}"
    try:
        check_dice_readers(profile, run["profile_source"])
    except ProfileError as error:
        return f"Rig not checked, nothing run: {run_dir} cannot be resumed: {error}"
    return rig_not_ready(profile, suites, run["profile_source"])


# -- the report ------------------------------------------------------------------------------------


def name_width(profile: Profile) -> int:
    """The width of the name column for the checks of ``profile`` (the longest name they can have)."""
    names = [f"{name} serial" for name in profile.equipment] + [f"{name} VISA" for name in profile.instruments]
    return max(len(name) for name in [*names, "laboratory key"])


def report_line(result: CheckResult, name_width: int = 16) -> str:
    """One check as one line of at most :data:`LINE_WIDTH` columns (a long detail is shortened at a word)."""
    head = f"{result.status.value:<4}  {result.name:<{name_width}}  "
    return head + textwrap.shorten(result.detail, max(LINE_WIDTH - len(head), 10), placeholder=" …",
                                   break_on_hyphens=False)


def summary(results: Iterable[CheckResult]) -> str:
    """The closing line: ready or not, with the counts."""
    results = list(results)
    failed = sum(1 for result in results if not result.ok)
    warned = sum(1 for result in results if result.status is Status.WARN)
    warnings = f", {warned} warning(s)" if warned else ""
    if failed:
        return f"Rig NOT ready: {failed} of {len(results)} checks failed{warnings}"
    return f"Rig ready: {len(results)} checks passed{warnings}"
