"""Generated bad input, in every way in, ends in an answer or an error naming its cause, and leaves the index as it was.

The short run of bench/fuzz.py (a fixed seed, a few hundred inputs); the long one is in docs/benchmarks.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

import fuzz  # noqa: E402


@pytest.mark.parametrize("seed", [11])
def test_no_generated_input_raises_and_the_index_is_left_as_it_was(
    seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CODEFATHOM_HOME", str(tmp_path / "home"))
    reports = fuzz.fuzz(seed, jsonl=150, cli_calls=150, mcp=60, workdir=tmp_path)
    assert sum(report.inputs for report in reports.values()) >= 350
    failures = [failure for report in reports.values() for failure in report.failures]
    assert failures == []
    # Both kinds of outcome are exercised, not only refusals.
    for way, report in reports.items():
        assert report.outcomes.get("answer", 0) > 0, way
        assert sum(n for outcome, n in report.outcomes.items() if outcome != "answer") > 0, way
