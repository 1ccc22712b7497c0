"""Context for agents through the `codefathom` command: outline (a ranked map cut to a token budget)
and brief (one file's definitions, imports, dependents and tests).

Runs on a copy of the `shop` fixture and on a generated repository with a hub module most files
call (high PageRank) and a quiet `billing` area the focus must bring to the top.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from codefathom.service.context import estimate_tokens

pytestmark = pytest.mark.usefixtures("store")  # every test on SQLite and on PostgreSQL


def run_ok(run_cli: Callable[..., Result], *args: str) -> str:
    result = run_cli(*args)
    assert result.exit_code == 0, result.output
    return result.stdout.rstrip("\n")


def run_json(run_cli: Callable[..., Result], *args: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(run_ok(run_cli, *args, "--json"))
    return data


@pytest.fixture
def big_repo(tmp_path: Path) -> Path:
    """40 modules of 6 functions each calling `core/hub.py`, a quiet `billing/invoice.py`, and a web
    module with a test named by convention."""
    root = tmp_path / "big"
    (root / "core").mkdir(parents=True)
    (root / "core" / "hub.py").write_text(
        '"""The hub."""\n\n\ndef shared_helper(value):\n    """Everyone calls this."""\n    return value\n\n\n'
        "class Registry:\n    def register(self, name):\n        return name\n",
        encoding="utf-8",
    )
    for m in range(40):
        package = root / f"area{m % 4}"
        package.mkdir(exist_ok=True)
        body = ["from core.hub import shared_helper, Registry", ""]
        for f in range(6):
            body += ["", f"def handler_{m}_{f}(request):", f'    """Handle case {f} of module {m}."""',
                     "    Registry().register(request)", "    return shared_helper(request)", ""]
        (package / f"module_{m}.py").write_text("\n".join(body), encoding="utf-8")
    (root / "billing").mkdir()
    (root / "billing" / "invoice.py").write_text(
        '"""Invoices."""\n\n\ndef total_invoice(lines):\n    """Sum the invoice lines."""\n    return sum(lines)\n\n\n'
        "def send_invoice(invoice):\n    return invoice\n",
        encoding="utf-8",
    )
    (root / "web").mkdir()
    (root / "web" / "cart.ts").write_text("export function addItem(sku: string): string {\n  return sku;\n}\n")
    (root / "web" / "cart.spec.ts").write_text("it('adds', () => {});\n")
    return root


@pytest.mark.parametrize("budget", [50, 80, 200, 500, 1500])
@pytest.mark.parametrize("focus", [(), ("--focus", "billing invoice")])
def test_an_outline_never_exceeds_its_budget(big_repo: Path, run_cli, budget: int, focus: tuple[str, ...]) -> None:
    text = run_ok(run_cli, "outline", str(big_repo), "--tokens", str(budget), *focus)
    assert estimate_tokens(text) <= budget
    assert text.startswith("# outline of the project")
    raw = run_ok(run_cli, "outline", str(big_repo), "--tokens", str(budget), "--json", *focus)
    assert estimate_tokens(raw) <= budget
    data = json.loads(raw)
    assert data["budget"] == budget and data["tokens"] <= budget
    if "note" in data:  # the JSON frame with a long project_root alone is over 50 tokens
        assert budget <= 80 and data["note"] == "too few tokens for an outline"
        return
    shown = [f"{d['dir']}/{f['file']}" for d in data["dirs"] for f in d["files"]]
    assert len(shown) == len(set(shown)) == data["files_shown"]  # no duplicates
    assert data["files_total"] == 44


def test_the_shop_outline_for_200_tokens_fits_and_says_what_was_cut(shop_repo: Path, run_cli) -> None:
    text = run_ok(run_cli, "outline", str(shop_repo), "--tokens", "200")
    assert estimate_tokens(text) <= 200
    lines = text.splitlines()
    assert lines[0].startswith("# outline of the project: ") and "of 200 tokens" in lines[0]
    assert "shop/" in lines and "  config.py" in lines
    assert "    def load_config(path: str) -> dict  :6" in lines  # the definition most depended on
    assert any(line.lstrip().startswith("+") and "more" in line for line in lines)
    data = run_json(run_cli, "outline", str(shop_repo), "--tokens", "200")
    assert estimate_tokens(json.dumps(data, ensure_ascii=False, indent=2)) <= 200
    # Everything fits in a large budget: no summaries, every file once, methods nested in their class.
    whole = run_json(run_cli, "outline", str(shop_repo), "--tokens", "3000", "--no-sync")
    assert whole["files_shown"] == whole["files_total"] == 8 and "more" not in whole
    [shop] = [d for d in whole["dirs"] if d["dir"] == "shop"]
    [stack] = [f for f in shop["files"] if f["file"] == "stack.py"]
    assert stack["defs"][0] == {"sig": "class Stack", "line": 4, "defs": [
        {"sig": "def __init__(self) -> None", "line": 7}, {"sig": "def push(self, item: object) -> None", "line": 10},
        {"sig": "def pop(self) -> object", "line": 14},
    ]}
    # The same request twice gives the same reply.
    assert run_ok(run_cli, "outline", str(shop_repo), "-t", "200") == text


def test_the_focus_moves_its_area_to_the_top(big_repo: Path, run_cli) -> None:
    plain = run_ok(run_cli, "outline", str(big_repo), "--tokens", "300").splitlines()
    assert plain[1:3] == ["core/", "  hub.py"]  # the most depended-on file leads
    assert "billing/" not in plain
    focused = run_ok(run_cli, "outline", str(big_repo), "--tokens", "300", "--focus", "invoice totals").splitlines()
    assert focused[1:3] == ["billing/", "  invoice.py"]
    assert focused[3].startswith("    def total_invoice(lines)")
    # A file named in the focus comes first too.
    named = run_ok(run_cli, "outline", str(big_repo), "-t", "300", "-f", "area2/module_6.py").splitlines()
    assert named[1:3] == ["area2/", "  module_6.py"]


def test_elided_parts_are_summarised(big_repo: Path, run_cli) -> None:
    lines = run_ok(run_cli, "outline", str(big_repo), "--tokens", "400").splitlines()
    assert any(line.startswith("    +") and line.endswith("more functions") for line in lines), lines
    assert any(line.startswith("  +") and line.endswith("more files") for line in lines), lines
    assert lines[-1].startswith("+") and "more files in" in lines[-1] and "more director" in lines[-1]
    data = run_json(run_cli, "outline", str(big_repo), "--tokens", "400")
    in_shown_dirs = sum(d.get("more_files", 0) for d in data["dirs"])
    assert data["more"]["files"] + in_shown_dirs + data["files_shown"] == data["files_total"]
    assert any(f.get("more") == {"function": 5} for d in data["dirs"] for f in d["files"])


def test_outline_keeps_to_a_directory(big_repo: Path, run_cli) -> None:
    data = run_json(run_cli, "outline", str(big_repo / "billing"), "--tokens", "500")
    # Not a git work tree: the directory is a project of its own.
    assert [d["dir"] for d in data["dirs"]] == [""] and data["files_total"] == 1


def test_brief_shows_definitions_imports_dependents_and_tests(shop_repo: Path, run_cli) -> None:
    data = run_json(run_cli, "brief", "shop/stack.py", "-p", str(shop_repo))
    assert (data["path"], data["language"], data["status"]) == ("shop/stack.py", "python", "ok")
    assert "error" not in data
    push = data["definitions"][2]
    assert push == {"line": 10, "end_line": 12, "kind": "method", "qualified_name": "shop.stack.Stack.push",
                    "signature": "def push(self, item: object) -> None", "doc": "Put an item on top of the stack."}
    assert [d["qualified_name"] for d in data["definitions"]][:2] == ["shop.stack.Stack", "shop.stack.Stack.__init__"]
    assert data["imports"] == [] and data["external"] == []
    assert data["dependents"] == [{"path": "tests/test_stack.py", "via": {"call": 4, "import": 1}}]
    assert data["tests"] == [{"path": "tests/test_stack.py", "why": ["call", "import", "named like it"]}]

    text = run_ok(run_cli, "brief", "shop/stack.py", "-p", str(shop_repo), "--no-sync")
    lines = text.splitlines()
    assert lines[0].startswith("shop/stack.py  python, parse ok, rank ")
    assert lines[1] == "  A last-in, first-out stack." and data["doc"] == "A last-in, first-out stack."
    assert "    10  def push(self, item: object) -> None  # Put an item on top of the stack." in lines
    assert "  tests/test_stack.py  call 4, import 1" in lines
    assert "  tests/test_stack.py  (call, import, named like it)" in lines

    users = run_json(run_cli, "brief", "shop/users.py", "-p", str(shop_repo))
    assert users["imports"] == [{"path": "shop/config.py", "names": ["load_config"]}]
    config = run_json(run_cli, "brief", "shop/config.py", "-p", str(shop_repo))
    assert config["external"] == ["tomllib"]
    assert config["dependents"] == [{"path": "shop/users.py", "via": {"call": 1, "import": 1}}]


def test_brief_finds_tests_by_naming_convention_and_reports_parse_health(big_repo: Path, run_cli) -> None:
    cart = run_json(run_cli, "brief", "web/cart.ts", "-p", str(big_repo))
    assert cart["language"] == "typescript"
    assert cart["tests"] == [{"path": "web/cart.spec.ts", "why": ["named like it"]}]
    (big_repo / "broken.py").write_text("def broken(:\n    pass\n", encoding="utf-8")
    broken = run_json(run_cli, "brief", "broken.py", "-p", str(big_repo))
    assert broken["status"] in ("partial", "failed") and broken["error"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("brief", "../elsewhere.py"), "outside the project root"),
        (("outline", "--tokens", "10"), "10 is not in the range"),
    ],
)
def test_context_usage_errors_exit_with_2(shop_repo: Path, run_cli, args: tuple[str, ...], message: str) -> None:
    extra = ("-p", str(shop_repo)) if args[0] == "brief" else (str(shop_repo),)
    result = run_cli(*args, *extra)
    assert result.exit_code == 2
    assert message in result.output


def test_brief_cuts_each_list_to_its_limit_and_counts_the_rest(tmp_path: Path, run_cli) -> None:
    root = tmp_path / "wide"
    (root / "pkg").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "many.py").write_text("".join(f"def f{n}():\n    return {n}\n\n\n" for n in range(105)))
    for n in range(55):  # the last one calls it twice: the strongest dependent, kept though last by name
        calls = "    f1()\n    f2()\n" if n == 54 else "    f1()\n"
        (root / "pkg" / f"user_{n:02}.py").write_text(f"from pkg.many import f1, f2\n\n\ndef use():\n{calls}")
    data = run_json(run_cli, "brief", "pkg/many.py", "-p", str(root))
    assert len(data["definitions"]) == 100 and len(data["dependents"]) == 50
    assert data["left_out"] == {"definitions": 5, "dependents": 5}
    assert "pkg/user_54.py" in {d["path"] for d in data["dependents"]}
    text = run_ok(run_cli, "brief", "pkg/many.py", "-p", str(root)).splitlines()
    assert "definitions (105):" in text and "dependents (55):" in text
    assert text.count("  (+5 more)") == 2
