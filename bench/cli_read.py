"""``bench read`` and ``bench calibrate``: the camera readers on image files, from the command line.

``bench read dice IMAGE...`` and ``bench read roulette IMAGE... --calibration FILE`` print one
result per image (``--json``: one JSON object per line) with the faces or the number, the
confidences, or the reason the reader declined. Exit status: 0 when every image was read,
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

from vision.image_file import DEFAULT_MAX_PIXELS

read_app = typer.Typer(help="Read dice faces or the roulette pocket from images.", no_args_is_help=True)
calibrate_app = typer.Typer(help="Calibrate a camera over equipment.", no_args_is_help=True)
console = Console(soft_wrap=True)
error_console = Console(stderr=True, soft_wrap=True)


def _load_image(path: Path, max_pixels: int) -> Any:
    """The image in ``path`` (BGR), refused when truncated or above ``max_pixels`` (before decoding)."""
    from vision.image_file import load_image

    return load_image(path, max_pixels=max_pixels)


def _check_max_pixels(max_pixels: int) -> None:
    if max_pixels <= 0:
        raise _fail(f"--max-pixels {max_pixels}: the pixel limit must be positive")


def _fail(message: str) -> typer.Exit:
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
) -> None:
    """Read the dice in each image: faces, centres, sizes and confidences, or why the frame is declined."""
    from vision.dice import DiceReaderConfig, read_dice

    _check_max_pixels(max_pixels)
    try:
        config = DiceReaderConfig(expected_dice=dice)
        results = []
        for path in images:
            read = read_dice(_load_image(path, max_pixels), config)
            results.append({"image": str(path)} | read.to_json())
    except ValueError as error:
        raise _fail(str(error)) from None

    def summary(result: dict[str, Any]) -> str:
        if result["decline"]:
            return f"DECLINED ({result['decline']}): {result['detail']}"
        confidences = ", ".join(f"{die['confidence']:.2f}" for die in result["dice"])
        return f"faces {result['faces']} (confidence {confidences})"

    _emit(results, as_json, summary)


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
            read = reader.read(_load_image(path, max_pixels))
            results.append({"image": str(path)} | json.loads(read.to_json()))
    except ValueError as error:
        raise _fail(str(error)) from None

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
        raise _fail(f"--markers must be auto, aruco or ellipse, got {markers!r}")
    method: Literal["auto", "aruco", "ellipse"] = markers  # type: ignore[assignment]
    _check_max_pixels(max_pixels)
    try:
        stills = [_load_image(path, max_pixels) for path in images]
        calibration = calibrate_wheel(stills, layout, markers=method)
        calibration.save(output)
    except ValueError as error:
        raise _fail(str(error)) from None
    console.print(f"calibration written to {output} (method {calibration.method}, layout {calibration.layout})")
