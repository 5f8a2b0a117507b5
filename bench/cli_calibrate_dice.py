"""``bench calibrate dice``: fit the staged dice reader's acceptance threshold on a lab's own labelled photos.

The photos are of the lab's arena under its camera, with YOLO labels beside them (``class xc yc w h``,
class 0..5 = faces 1..6). The body and proposal stages run on each photo as they will at run time, the
per-die model reads every square they propose, and each square takes the face of the labelled die it lies
on, else "not a flat readable die" (:mod:`vision.dice_calibration_samples`). The threshold is the smallest
at which wrong reads stay at most ``--max-wrong`` of the accepted ones there and at every higher threshold
(:func:`vision.die_reader_calibration.fit_threshold`). A fit below the model card's threshold is written
only when the photos vouch for ``--max-wrong`` at 95 % (Clopper-Pearson upper bound within it, counting each
labelled die, or body with no labelled die, once however many of its squares are read); otherwise
the card's threshold is written (:func:`vision.die_reader_calibration.lab_threshold`), since a few photos
with no wrong read do not show that a lower threshold keeps wrong reads rare. The reader configuration is
written with the threshold, the model's hash it was fitted for, the figures at the threshold written and,
under ``fit``, those of the fit; the figures are printed, with the upper bound that says how far so many
photos vouch for the rate.

A camera fixed on its mount sees the dice at one size. Unless the configuration states it already (or
``--no-die-size``), the dice's edge is measured first on the squares the reader reads surely and
rightly (:func:`vision.die_size_calibration.fit_die_size`); when the photos agree on it, it is written for
the stages (``stages.die_edge_px``) and the threshold is fitted on what the stages propose told it, as
they will run.

A rig whose camera states the arena's outline (``camera.arena_px``) tells it to the reader's first stage, which
then finds dice in the arena's corners it would otherwise cut off; ``--arena`` tells the calibration the same
outline, so the threshold is fitted on the squares certification will propose. The outline is recorded with the
figures (``calibration.arena_px``).

Interrupted (Ctrl-C) while the photos are read, it fits nothing and leaves the configuration file as it was
(exit 130): a threshold fitted on part of the photos would vouch for what they do not show.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from bench.cli_read import arena_option, console, error_console, input_error, load_image
from vision.image_file import DEFAULT_MAX_PIXELS

if TYPE_CHECKING:
    from bench.profiles.arena_outline import ArenaOutline
    from vision.dice_calibration_samples import CalibrationSamples
    from vision.dice_pipeline import StagedDiceReader
    from vision.yolo_labels import LabelledImage


def _labelled(paths: list[Path]) -> list[LabelledImage]:
    from vision.yolo_labels import labelled_images

    items: list[LabelledImage] = []
    for path in paths:
        items += labelled_images(path)
    return items


def _samples(items: Sequence[LabelledImage], reader: StagedDiceReader, max_pixels: int, description: str,
             arena: ArenaOutline | None) -> CalibrationSamples:
    """The reader's readings of every square its stages propose on the labelled photos ``items`` (told the ``arena``
    outline, when given), with progress."""
    import numpy as np
    from rich.progress import Progress

    from vision.dice_calibration_samples import calibration_samples

    with Progress(console=console, transient=True) as progress:
        photos = ((load_image(item.image, max_pixels), item.dice)
                  for item in progress.track(items, description=description))
        return calibration_samples(photos, reader.reader, reader.stages, reader.looks, reader.side_share,
                                   None if arena is None else np.asarray(arena, np.float64))


def calibrate_dice(
    folders: Annotated[list[Path], typer.Argument(help="Folders of labelled photos of the arena (YOLO labels "
                                                        "beside each image: class 0..5 = faces 1..6).")],
    output: Annotated[Path, typer.Option("-o", "--output", help="Reader configuration to write (JSON).")],
    start: Annotated[Path | None, typer.Option("--reader", help="Configuration to start from (its model and "
                                                                 "settings are kept).")] = None,
    max_wrong: Annotated[float, typer.Option(help="Largest share of wrong reads among accepted ones.")] = 0.001,
    side_share: Annotated[float | None, typer.Option(help="Side face a flat die shows to this camera, share of "
                                                          "its edge (0.12 overhead, ~0.45 oblique).")] = None,
    max_pixels: Annotated[int, typer.Option(help="Refuse images larger than this many pixels.")] = DEFAULT_MAX_PIXELS,
    measure_die_size: Annotated[bool, typer.Option(
        "--die-size/--no-die-size",
        help="Measure the dice's edge in the photos (a camera fixed on its mount) and write it for the stages, "
             "then fit the threshold on what they propose told it.")] = True,
    arena: Annotated[str | None, typer.Option(
        "--arena", help="The arena's outline in the photos, 'x,y x,y x,y ...' px in order round it, as the "
                        "profile's camera.arena_px tells certification. Default: no arena told.")] = None,
) -> None:
    """Fit the dice reader's acceptance threshold on labelled photos; writes the reader configuration."""
    from bench.rundir import atomic_write_text
    from vision.dice_reader_settings import DiceReaderSettings, load_reader_settings, settings_json
    from vision.dice_staged_reader import staged_reader
    from vision.die_reader_calibration import figures_at, fit_threshold, lab_threshold
    from vision.die_reader_model import ModelIntegrityError
    from vision.die_size_calibration import fit_die_size
    from vision.yolo_labels import LabelError

    if not 0.0 <= max_wrong < 1.0:
        raise input_error(f"--max-wrong {max_wrong}: a share of the accepted reads within 0..1")
    outline = arena_option(arena)
    try:
        settings = load_reader_settings(start) if start is not None else DiceReaderSettings()
        if side_share is not None:
            settings = settings.model_copy(update={"side_share": side_share})
        reader = staged_reader(settings, start)
        items = _labelled(folders)
        samples = _samples(items, reader, max_pixels, "reading the photos", outline)
        size_record: dict[str, object] = {"reason": "not measured (--no-die-size)"}
        if settings.stages.get("die_edge_px") is not None:
            size_record = {"reason": "stated by the configuration", "die_edge_px": settings.stages["die_edge_px"]}
        elif measure_die_size:
            size = fit_die_size(samples.labelled_edges, samples.probabilities, samples.truth, reader.reader.threshold)
            size_record = size.as_dict()
            if size.edge_px is not None:  # fit the threshold on the squares the stages propose told the size
                settings = settings.model_copy(update={"stages": {**settings.stages,
                                                                  "die_edge_px": list(size.edge_px)}})
                reader = staged_reader(settings, start)
                samples = _samples(items, reader, max_pixels, "reading the photos told the dice's size", outline)
    except (LabelError, ModelIntegrityError, ValueError) as error:
        raise input_error(str(error)) from None
    except KeyboardInterrupt:  # nothing is fitted on part of the photos: the configuration is left as it was
        kept = f"{output} is left as it was" if output.exists() else f"{output} is not written"
        error_console.print(f"interrupted while reading the photos: no threshold fitted, {kept}", markup=False,
                            highlight=False)
        raise typer.Exit(130) from None
    if len(samples.truth) == 0:
        raise input_error(f"no die square was proposed on the {samples.images} photos: nothing to calibrate on")
    fit = fit_threshold(samples.probabilities, samples.truth, max_wrong, groups=samples.groups)
    chosen = lab_threshold(fit, reader.reader.model.card.threshold)
    in_force = fit if chosen.threshold == fit.threshold else \
        figures_at(samples.probabilities, samples.truth, chosen.threshold, max_wrong, groups=samples.groups)
    calibration = {**in_force.as_dict(), **chosen.as_dict(), "fit": fit.as_dict(),
                   "photos": [str(folder) for folder in folders], "images": samples.images,
                   "labelled_dice": samples.labelled, "labelled_with_a_square": samples.labelled_with_a_square,
                   "die_size": size_record,
                   "arena_px": None if outline is None else [list(corner) for corner in outline],
                   "fitted": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")}
    fitted = settings.model_copy(update={"threshold": chosen.threshold, "model_sha256": reader.reader.sha256,
                                         "model_views": reader.reader.model.card.views, "calibration": calibration})
    atomic_write_text(output, settings_json(fitted))
    upper = 1000 * fit.vouching_upper_95
    console.print(f"threshold {chosen.threshold:.6f} written to {output}: {chosen.reason}", markup=False,
                  highlight=False)
    if in_force is not fit:
        console.print(f"  (the photos alone would fit {fit.threshold:.6f}; the card's is {chosen.card:.6f}, at which "
                      f"{in_force.accepted} squares are accepted, {in_force.wrong} wrong)", markup=False,
                      highlight=False)
    written_size = settings.stages.get("die_edge_px")
    console.print(f"  dice's edge: {written_size} px ({size_record['reason']})" if written_size is not None else
                  f"  dice's edge not written: {size_record['reason']}", markup=False, highlight=False)
    console.print(f"  arena outlined by {len(outline)} corners (--arena)" if outline is not None else
                  "  no arena outline told (--arena): a rig whose camera states one proposes squares in its corners "
                  "too", markup=False, highlight=False)
    console.print(f"  {samples.images} photos, {samples.labelled} labelled dice "
                  f"({samples.labelled_with_a_square} with a square proposed)", markup=False, highlight=False)
    console.print(f"  at the fit: {fit.crops} squares read, {fit.accepted} accepted ({fit.accepted_share:.1%}), "
                  f"{fit.wrong} wrong", markup=False, highlight=False)
    console.print(f"  the accepted squares lie on {fit.groups_accepted} dice or bodies, {fit.groups_wrong} of them "
                  f"read wrong: wrong per 1,000 accepted {1000 * fit.wrong_rate:.1f} (95 % upper bound {upper:.1f}, "
                  "counting each die or body once)", markup=False, highlight=False)
    if upper > 1000 * max_wrong:
        console.print(f"  so few dice vouch for at most {upper:.1f} wrong per 1,000: label more "
                      f"photos to vouch for {1000 * max_wrong:g}", markup=False, highlight=False)
