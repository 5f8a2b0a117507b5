"""``bench doctor``: check the rig before a run (:mod:`bench.doctor`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def doctor(
    profile: Annotated[str, typer.Option(help="Built-in profile name or TOML path.")] = "sim",
    key_dir: Annotated[Path | None, typer.Option(help="Laboratory key directory (default: $BENCH_KEY_DIR or "
                                                      "~/.bench/keys).")] = None,
) -> None:
    """Check the rig: every port opens and its device answers, every camera gives a frame, every VISA
    instrument is the one the profile names, the laboratory key loads, dieharder and the PDF libraries are
    installed. One line per check; exit 0 when all pass, 2 when any fails."""
    from bench.doctor import all_checks, name_width, report_line, summary
    from bench.profiles import ProfileError, load_profile
    from bench.rig_cameras import check_dice_readers

    try:
        loaded, profile_file, _ = load_profile(profile)
        check_dice_readers(loaded, str(profile_file))
    except ProfileError as error:
        typer.echo(f"profile error:\n{error}", err=True)
        raise typer.Exit(2) from error
    width = name_width(loaded)
    results = []
    for result in all_checks(loaded, key_dir):
        typer.echo(report_line(result, width))
        results.append(result)
    typer.echo(summary(results))
    raise typer.Exit(0 if all(result.ok for result in results) else 2)
