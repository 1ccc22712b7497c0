"""`codefathom duplicates`: copies found renamed and edited, grouped, with the lines that differ."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

pytestmark = pytest.mark.usefixtures("store")  # every test on SQLite and on PostgreSQL

FIXTURE = Path(__file__).parent / "fixtures" / "repos" / "clones"


@pytest.fixture
def clones(tmp_path: Path) -> Path:
    target = tmp_path / "clones"
    shutil.copytree(FIXTURE, target)
    return target


def _groups(run_cli: Callable[..., Result], root: Path, *extra: str) -> list[dict[str, object]]:
    result = run_cli("duplicates", "-p", str(root), "--json", *extra)
    assert result.exit_code in (0, 1), result.output
    groups: list[dict[str, object]] = json.loads(result.output)["groups"]
    return groups


def test_a_renamed_copy_and_an_edited_copy_are_one_group(clones: Path, run_cli: Callable[..., Result]) -> None:
    [group] = _groups(run_cli, clones)
    units = group["units"]
    assert isinstance(units, list)
    assert [(u["path"], u["name"].rsplit(".", 1)[-1]) for u in units] == [
        ("billing.py", "invoice_total"), ("orders.py", "order_total"), ("shop.py", "basket_sum"),
    ]
    assert group["exact"] is False and 0.9 <= float(str(group["similarity"])) < 1
    edited = next(u for u in units if u["path"] == "orders.py")
    assert [12, 12] in edited["differs"]  # the line it added
    text = run_cli("duplicates", "-p", str(clones)).output
    assert text.startswith("# 1 groups of duplicated definitions") and "shop.py:4-14" in text


def test_tests_are_compared_only_when_asked(clones: Path, run_cli: Callable[..., Result]) -> None:
    [group] = _groups(run_cli, clones, "--include-tests")
    paths = {u["path"] for u in group["units"]}  # type: ignore[attr-defined]
    assert "tests/test_billing.py" in paths
    exact = _groups(run_cli, clones, "--include-tests", "--similarity", "1")
    assert [sorted(u["path"] for u in g["units"]) for g in exact] == [  # type: ignore[attr-defined]
        ["billing.py", "shop.py", "tests/test_billing.py"]
    ]


def test_nothing_alike_is_said_and_exits_1(clones: Path, run_cli: Callable[..., Result]) -> None:
    for name in ("shop.py", "orders.py"):
        (clones / name).unlink()
    result = run_cli("duplicates", "-p", str(clones))
    assert result.exit_code == 1 and "No duplicated definitions found." in result.output
    assert run_cli("duplicates", "-p", str(clones), "--similarity", "0.2").exit_code == 2
