"""``bench read`` and ``bench calibrate``: the camera readers on image files, from the command line.

``bench read dice IMAGE...`` and ``bench read roulette IMAGE... --calibration FILE`` print one
result per image (``--json``: one JSON object per line) with the faces or the number, the
confidences, or the reason the reader declined. ``bench read dice FOLDER... --labels yolo`` measures
the reader on a lab's own labelled photos instead: the figures the benchmarks print (dice read
correctly, wrong, declined by reason, the confusion of faces; :mod:`vision.dice_scoring`). Exit status: 0 when every image was read,
1 when any was declined, 2 on an error (unreadable or truncated image, an image above
``--max-pixels``, refused from its header before decoding, bad calibration file), with a message
naming the file. ``bench calibrate roulette IMAGE... -o FILE`` writes a wheel calibration.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Literal

import typer
from rich.console import Console

from bench.profiles.arena_outline import ArenaOutline, parse_arena
from bench.profiles.camera import CLASSICAL_DICE_READER
from vision.image_file import DEFAULT_MAX_PIXELS

read_app = typer.Typer(help="Read dice faces or the roulette pocket from images.", no_args_is_help=True)
calibrate_app = typer.Typer(help="Calibrate a camera over equipment.", no_args_is_help=True)
console = Console(soft_wrap=True)
error_console = Console(stderr=True, soft_wrap=True)


def load_image(path: Path, max_pixels: int) -> Any:
    """The image in ``path`` (BGR), refused when truncated or above ``max_pixels`` (before decoding); the read
    commands' one way in (OpenCV is imported on first use, so ``bench --help`` stays quick)."""
    from vision import image_file

    return image_file.load_image(path, max_pixels=max_pixels)


def _check_max_pixels(max_pixels: int) -> None:
    if max_pixels <= 0:
        raise input_error(f"--max-pixels {max_pixels}: the pixel limit must be positive")


def input_error(message: str) -> typer.Exit:
    """Print ``message`` as an input error and give the exit (status 2) a read command raises for it."""
    error_console.print(f"[red]error:[/] {message}")
    return typer.Exit(2)


def _emit(results: list[dict[str, Any]], as_json: bool, summary: Any) -> None:
    for result in results:
        if as_json:
            console.print_json(json.dumps(result), indent=None)
        else:
            console.print(f"{result['image']}: {summary(result)}")
    if any(result.get("decline") for result in results):
        raise typer.Exit(1)


@read_app.command("dice")
def read_dice_images(
    images: Annotated[list[Path], typer.Argument(help="Images of the arena (one settled throw each).")],
    dice: Annotated[int | None, typer.Option("--dice", help="Dice the game throws (craps 2, banca francesa and "
                                                "cussec 3); default: every die in view.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per image.")] = False,
    max_pixels: Annotated[int, typer.Option(help="Refuse images larger than this many pixels (read from the "
                                                   "header, before decoding).")] = DEFAULT_MAX_PIXELS,
    labels: Annotated[Literal["yolo"] | None, typer.Option(
        "--labels", help="Score the reader against the labels beside the images (YOLO text files: class 0..5 = "
                         "faces 1..6); arguments may be folders of labelled images.")] = None,
    reader: Annotated[str, typer.Option(
        "--reader", help="'staged' (the bench's own model at its card's threshold, as certification reads by "
                         "default), or a reader configuration from 'bench calibrate dice' (the staged reader as it "
                         "sets it).")] = "staged",
    arena: Annotated[str | None, typer.Option(
        "--arena", help="The arena's outline in the images, 'x,y x,y x,y ...' px in order round it, as the "
                        "profile's camera.arena_px tells certification: a die read beyond it declines the image "
                        "(outside-arena). Default: no arena told.")] = None,
) -> None:
    """Read the dice in each image: faces, centres, sizes and confidences, or why the frame is declined."""
    _check_max_pixels(max_pixels)
    read_frame = _dice_reader(dice, reader, arena_option(arena))
    if labels is not None:
        _score_dice(images, read_frame, as_json, max_pixels)
        return
    folders = [path for path in images if path.is_dir()]
    if folders:
        raise input_error(f"{folders[0]} is a folder: give image files, or --labels yolo to score the reader on a "
                          "folder of labelled images")
    try:
        results = []
        for path in images:
            read = read_frame(load_image(path, max_pixels))
            results.append({"image": str(path)} | read.to_json())
    except ValueError as error:
        raise input_error(str(error)) from None

    def summary(result: dict[str, Any]) -> str:
        if result["decline"]:
            return f"DECLINED ({result['decline']}): {result['detail']}"
        confidences = ", ".join(f"{die['confidence']:.2f}" for die in result["dice"])
        return f"faces {result['faces']} (confidence {confidences})"

    _emit(results, as_json, summary)


def arena_option(text: str | None) -> ArenaOutline | None:
    """``--arena`` as an outline, or exit 2 naming the option and the corner at fault."""
    if text is None:
        return None
    try:
        return parse_arena(text)
    except ValueError as error:
        raise input_error(f"--arena: {error}") from None


def _dice_reader(dice: int | None, reader: str, arena: ArenaOutline | None = None) -> Any:
    """The frame reader ``reader`` names: ``"staged"`` (the bench's own), or the staged reader with a configuration
    file's settings; told the game's ``dice`` and the ``arena`` outline when given."""
    if reader == CLASSICAL_DICE_READER:
        raise input_error(f"--reader {reader}: the pip-counting reader is no longer part of the bench; use "
                          "'staged' (the default) or a reader configuration from 'bench calibrate dice'")
    from vision.dice_reader_settings import load_reader_settings
    from vision.dice_staged_reader import staged_reader
    from vision.die_reader_model import ModelIntegrityError

    reader_file = None if reader == "staged" else Path(reader)
    try:
        settings = None if reader_file is None else load_reader_settings(reader_file)
        return staged_reader(settings, reader_file, expected_dice=dice, arena=arena).read
    except (ValueError, ModelIntegrityError) as error:
        raise input_error(str(error)) from None


def _score_dice(paths: list[Path], read_frame: Any, as_json: bool, max_pixels: int) -> None:
    """``--labels yolo``: read every labelled image and print the score (exit 0), or exit 2 naming the fault."""
    from rich.progress import Progress

    from vision.dice_scoring import image_read_of, score
    from vision.yolo_labels import LabelError, LabelledImage, labelled_images, read_label_file

    try:
        items: list[LabelledImage] = []
        for path in paths:
            if path.is_dir():
                items += labelled_images(path)
            else:
                height, width = load_image(path, max_pixels).shape[:2]
                items.append(LabelledImage(path, path.with_suffix(".txt"),
                                           read_label_file(path.with_suffix(".txt"), width, height), (width, height)))
        pairs = []
        interrupted = False
        with Progress(console=error_console, transient=True) as progress:
            try:
                for item in progress.track(items, description="reading"):
                    read = read_frame(load_image(item.image, max_pixels))
                    pairs.append((item.dice, image_read_of(str(item.image), read)))
            except KeyboardInterrupt:
                interrupted = True  # the images read so far are scored, and said to be a part
    except (LabelError, ValueError) as error:
        raise input_error(str(error)) from None
    tally = score(pairs)
    if interrupted:
        error_console.print(f"interrupted after {len(pairs)} of {len(items)} images: the score below is of those "
                            f"{len(pairs)} only")
    _print_score(tally, paths, as_json, len(items) if interrupted else None)
    if interrupted:
        raise typer.Exit(130)


def _print_score(tally: Any, paths: list[Path], as_json: bool, of_images: int | None) -> None:
    """The score of ``--labels yolo`` (``of_images``: the images planned, when only a part of them was read)."""
    from vision.dice_scoring import image_lines, score_lines

    if as_json:
        console.print_json(json.dumps(tally.to_json() | ({} if of_images is None else {"of_images": of_images,
                                                                                      "interrupted": True})),
                           indent=None)
        return
    title = ", ".join(str(path) for path in paths) if len(paths) <= 2 else f"{len(paths)} folders or images"
    if of_images is not None:
        title += f" (interrupted: {tally.images} of {of_images} images read)"
    for line in [*score_lines(tally, title), *image_lines(tally)]:
        console.print(line, markup=False, highlight=False)


@read_app.command("roulette")
def read_roulette_images(
    images: Annotated[list[Path], typer.Argument(help="Images of the wheel with the ball at rest.")],
    calibration: Annotated[Path, typer.Option(help="Calibration file from 'bench calibrate roulette'.")],
    layout: Annotated[str | None, typer.Option(help="french or american (default: the calibration's).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per image.")] = False,
    max_pixels: Annotated[int, typer.Option(help="Refuse images larger than this many pixels (read from the "
                                                   "header, before decoding).")] = DEFAULT_MAX_PIXELS,
) -> None:
    """Read the winning number in each image, or why the frame is declined."""
    import dataclasses

    from vision.roulette import RouletteReader
    from vision.roulette_calibration import WheelCalibration

    _check_max_pixels(max_pixels)
    try:
        wheel = WheelCalibration.load(calibration)
        if layout is not None and layout != wheel.layout:
            if layout not in ("french", "american"):
                raise ValueError(f"--layout must be 'french' or 'american', got {layout!r}")
            wheel = dataclasses.replace(wheel, layout=layout)
        reader = RouletteReader(wheel)
        results = []
        for path in images:
            read = reader.read(load_image(path, max_pixels))
            results.append({"image": str(path)} | json.loads(read.to_json()))
    except ValueError as error:
        raise input_error(str(error)) from None

    def summary(result: dict[str, Any]) -> str:
        if result["decline"]:
            return f"DECLINED ({result['decline']}): {result['detail']}"
        return f"number {result['number']} (confidence {result['confidence']:.2f})"

    _emit(results, as_json, summary)


@calibrate_app.command("roulette")
def calibrate_roulette(
    images: Annotated[list[Path], typer.Argument(help="Stills of the stationary wheel from the fixed camera.")],
    output: Annotated[Path, typer.Option("-o", "--output", help="Calibration file to write (JSON).")],
    layout: Annotated[str, typer.Option(help="Pocket order: french or american.")] = "french",
    markers: Annotated[str, typer.Option(help="auto, aruco (markers on the surround) or ellipse.")] = "auto",
    max_pixels: Annotated[int, typer.Option(help="Refuse images larger than this many pixels (read from the "
                                                   "header, before decoding).")] = DEFAULT_MAX_PIXELS,
) -> None:
    """Calibrate the wheel camera: top-down homography, ring radii, pocket geometry; writes FILE."""
    from vision.roulette_calibration import calibrate_wheel

    if markers not in ("auto", "aruco", "ellipse"):
        raise input_error(f"--markers must be auto, aruco or ellipse, got {markers!r}")
    method: Literal["auto", "aruco", "ellipse"] = markers  # type: ignore[assignment]
    _check_max_pixels(max_pixels)
    try:
        stills = [load_image(path, max_pixels) for path in images]
        calibration = calibrate_wheel(stills, layout, markers=method)
        calibration.save(output)
    except ValueError as error:
        raise input_error(str(error)) from None
    console.print(f"calibration written to {output} (method {calibration.method}, layout {calibration.layout})")
