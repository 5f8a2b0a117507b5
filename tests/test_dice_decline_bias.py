"""``benchmarks/dice_decline_bias.py``: its options, and a short run through the whole camera pipeline."""

from __future__ import annotations

import sys

import pytest
from benchmark_scripts import load_benchmark


def _main(monkeypatch: pytest.MonkeyPatch, *arguments: str) -> None:
    monkeypatch.setattr(sys, "argv", ["dice_decline_bias.py", *arguments])
    load_benchmark("dice_decline_bias").main()


@pytest.mark.parametrize(("arguments", "named"), [
    (("--profile", "sim", "--unreadable-replacements", "1"), "drop --unreadable-replacements"),
    (("--unreadable-replacements", "11"), "--unreadable-replacements 11: Input should be less than or equal to 10"),
    (("--unreadable-replacements", "-1"), "--unreadable-replacements -1: Input should be greater than or equal to 0"),
])
def test_options_out_of_place_or_range_are_refused_naming_them(monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str],
                                                               arguments: tuple[str, ...], named: str) -> None:
    with pytest.raises(SystemExit) as ended:
        _main(monkeypatch, *arguments)
    assert ended.value.code == 2
    assert named in capsys.readouterr().err


def test_a_short_run_counts_every_throw_it_made(monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """Two throws of the default table with no frame set aside: both counted, none read wrong."""
    _main(monkeypatch, "--throws", "2", "--unreadable-replacements", "0")
    out = " ".join(capsys.readouterr().out.split())
    assert "of 2 (" in out and "wrong reads: 0 of" in out
