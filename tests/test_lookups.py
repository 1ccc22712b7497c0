"""The lookups agents make all day, through `codefathom search`: a stack trace's `path:line`, grep
(`--mode literal|regex`) checked line for line against a plain scan of every indexed file of a real
repository, files by path (`--mode path`), reading lines (`--mode read`), and `--detail exists`,
the channel choice, comma-separated languages and case-insensitive name globs.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from conftest import git, project_rows

from codefathom.service import Codefathom

pytestmark = pytest.mark.usefixtures("store")  # every test on SQLite and on PostgreSQL

SOURCE = Path(__file__).resolve().parents[1] / "src" / "codefathom"


def _json(result: Result, code: int = 0) -> dict[str, Any]:
    assert result.exit_code == code, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


# -- path:line ------------------------------------------------------------------------------------


def test_a_stack_trace_line_brings_the_definition_around_it_first(
    shop_repo: Path, run_cli: Callable[..., Result]
) -> None:
    # shop/stack.py line 15 is the docstring of Stack.pop; the class Stack holds it too.
    for query in ("shop/stack.py:15", f"{shop_repo.resolve()}/shop/stack.py:15",
                  f'File "{shop_repo.resolve()}/shop/stack.py", line 15, in pop', "shop/stack.py#L15"):
        data = _json(run_cli("search", query, "-p", str(shop_repo), "--json", "-n", "3"))
        first = data["results"][0]
        assert (first["qualified_name"], first["path"]) == ("shop.stack.Stack.pop", "shop/stack.py"), query
        assert first["lines"] == [[15, '        """Take the top item off the stack."""']], query  # the line it names
        assert data["results"][1]["qualified_name"] == "shop.stack.Stack"  # then the class around it

    text = run_cli("search", "shop/stack.py:15", "-p", str(shop_repo), "-A", "1", "-n", "1").stdout
    assert text.splitlines()[0].startswith("shop/stack.py:14-16  method  shop.stack.Stack.pop")
    assert "    15: " in text and "    16: return self._items.pop()" in text


def test_a_path_alone_brings_that_files_units_top_level_first(shop_repo: Path, run_cli: Callable[..., Result]) -> None:
    data = _json(run_cli("search", "shop/stack.py", "-p", str(shop_repo), "--json"))
    assert {r["path"] for r in data["results"]} == {"shop/stack.py"}
    assert [r["qualified_name"] for r in data["results"][:3]] == ["shop.stack", "shop.stack.Stack", "shop.stack.Queue"]
    # A file name alone names it when one indexed file has that name.
    assert _json(run_cli("search", "stack.py", "-p", str(shop_repo), "--json"))["results"][0]["path"] == "shop/stack.py"


# -- grep: every occurrence a plain scan of the indexed files finds --------------------------------

PATTERNS = [
    ("literal", "def "), ("literal", "replace_file"), ("literal", "arse"), ("literal", "):"), ("literal", "self._"),
    ("literal", "import re\n"[:-1]), ("literal", "UsageError("), ("literal", " = {"), ("literal", "needle_at_the_end"),
    ("literal", "ignored_needle"), ("literal", "Ω"), ("regex", r"def \w+\(self"), ("regex", r"\bStore\.\w+"),
    ("regex", r"^import (os|re)$"), ("regex", r"(?i)unitkind"), ("regex", r"raise \w+Error\("), ("regex", "todo|fixme"),
    ("regex", r"\d{4,}"), ("regex", r"^\s*@dataclass\b"), ("regex", r"colou?r"),
]


@pytest.fixture
def real_repo(tmp_path: Path) -> Path:
    """A copy of this project's own source as a git repository, with a unit longer than the index keeps
    of it (its end is only on disk) and an ignored file."""
    repo = tmp_path / "real"
    shutil.copytree(SOURCE, repo / "codefathom", ignore=shutil.ignore_patterns("__pycache__"))
    rows = [f'        "{"w" * 290}",' for _ in range(70)]
    rows[54] = '        "needle_at_the_end",'  # line 57: past the 12,000 characters the index keeps of lines 1-60
    (repo / "codefathom" / "long_unit.py").write_text(
        "def long_one():\n    return [\n" + "\n".join(rows) + "\n    ]\n", encoding="utf-8"
    )
    (repo / "scratch").mkdir()
    (repo / "scratch" / "notes.py").write_text("ignored_needle = 1\n", encoding="utf-8")
    (repo / ".gitignore").write_text("scratch/\n", encoding="utf-8")
    git(repo, "init")
    git(repo, "add", "-A")
    git(repo, "commit", "-m", "source")
    return repo


def _indexed(repo: Path) -> list[str]:
    with Codefathom(repo) as service:
        return sorted(r[0] for r in project_rows(
            service, "SELECT path FROM files WHERE status != 'skipped'",
            "SELECT path FROM files WHERE project_id = %s AND status != 'skipped'",
        ))


def _scan(repo: Path, paths: list[str], pattern: re.Pattern[str]) -> list[tuple[str, int]]:
    found = []
    for path in paths:
        text = (repo / path).read_bytes().decode("utf-8", errors="replace")
        found.extend((path, n) for n, line in enumerate(text.split("\n"), start=1) if pattern.search(line))
    return found


def test_grep_finds_every_line_a_scan_of_the_indexed_files_finds(
    real_repo: Path, run_cli: Callable[..., Result]
) -> None:
    assert run_cli("index", str(real_repo), "-q", "--no-embed").exit_code == 0
    paths = _indexed(real_repo)
    assert "codefathom/long_unit.py" in paths and "scratch/notes.py" not in paths and len(paths) > 100
    pruned = 0
    for mode, pattern in PATTERNS:
        compiled = re.compile(re.escape(pattern) if mode == "literal" else pattern)
        expected = _scan(real_repo, paths, compiled)
        result = run_cli("search", pattern, "-m", mode, "-p", str(real_repo), "-n", "1000", "--json", "--no-sync")
        data = _json(result, 0 if expected else 1)
        assert [(m["path"], m["line"]) for m in data["matches"]] == expected[:1000], (mode, pattern)
        assert data["total"] == len(expected) and data["files_indexed"] == len(paths), (mode, pattern)
        pruned += data["files_read"] < len(paths)
    # The index ruled files out for most patterns: only those files were read.
    assert pruned >= len(PATTERNS) // 2, pruned
    literal = _json(run_cli("search", "needle_at_the_end", "-m", "literal", "-p", str(real_repo), "--json"))
    needle = {"path": "codefathom/long_unit.py", "line": 57, "text": '        "needle_at_the_end",'}
    assert literal["matches"] == [needle]


def test_literal_search_finds_every_line_ripgrep_finds_in_the_indexed_files(
    real_repo: Path, run_cli: Callable[..., Result]
) -> None:
    # ripgrep itself as the oracle on a real repository (this project's source): every line `rg -F`
    # finds in a file the index holds, a literal search finds, and no other.
    rg = shutil.which("rg")
    if rg is None:
        if os.environ.get("CI"):
            pytest.fail("ripgrep is not installed; .ci/run installs it")
        pytest.skip("ripgrep is not installed (apt-get install ripgrep)")
    assert run_cli("index", str(real_repo), "-q", "--no-embed").exit_code == 0
    indexed = set(_indexed(real_repo))
    for mode, pattern in PATTERNS:
        if mode != "literal":
            continue
        found = subprocess.run(
            [rg, "--fixed-strings", "--line-number", "--no-heading", "--with-filename", "--no-config", "-e", pattern],
            cwd=real_repo, capture_output=True, text=True, errors="replace",
        )
        assert found.returncode in (0, 1), found.stderr
        expected = sorted(
            (path, int(line)) for path, line, _ in (row.split(":", 2) for row in found.stdout.splitlines())
            if path in indexed
        )
        result = run_cli("search", pattern, "-m", "literal", "-p", str(real_repo), "-n", "1000", "--json", "--no-sync")
        data = _json(result, 0 if expected else 1)
        assert sorted((m["path"], m["line"]) for m in data["matches"]) == expected[:1000], pattern
        assert data["total"] == len(expected), pattern


def test_grep_shows_path_line_text_with_a_limit_and_context(shop_repo: Path, run_cli: Callable[..., Result]) -> None:
    result = run_cli("search", "def ", "-m", "literal", "-p", str(shop_repo), "-n", "2")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "shop/config.py:6: def load_config(path: str) -> dict:",
        "shop/config.py:12: def parse_args(argv: list[str]) -> dict:",
        "(+9 more matching lines: 11 in 4 files)",
    ]
    context = run_cli("search", r"def pop\(", "-m", "regex", "-p", str(shop_repo), "-B", "1", "-A", "1").stdout
    assert context.splitlines() == [
        "shop/stack.py-13-", "shop/stack.py:14: def pop(self) -> object:",
        'shop/stack.py-15- """Take the top item off the stack."""',
    ]
    globbed = _json(run_cli("search", "def ", "-m", "literal", "-p", str(shop_repo), "-g", "tests/", "--json"))
    assert {m["path"] for m in globbed["matches"]} == {"tests/test_stack.py"}


def test_a_bad_regex_is_one_usage_line(shop_repo: Path, run_cli: Callable[..., Result]) -> None:
    result = run_cli("search", "def (", "-m", "regex", "-p", str(shop_repo))
    assert result.exit_code == 2
    assert result.stderr.strip().count("\n") == 0 and "not a valid regular expression" in result.stderr
    refused = run_cli("search", "push", "-m", "literal", "-p", str(shop_repo), "-k", "method")
    assert refused.exit_code == 2 and "does not take kinds" in refused.stderr


# -- files by path, reading lines ------------------------------------------------------------------


def test_files_by_name_or_fuzzy_path(shop_repo: Path, run_cli: Callable[..., Result]) -> None:
    def files(query: str) -> list[str]:
        data = _json(run_cli("search", query, "-m", "path", "-p", str(shop_repo), "--json"))
        return [f["path"] for f in data["files"]]

    assert files("stack.py")[:2] == ["shop/stack.py", "tests/test_stack.py"]
    assert files("test_stack")[0] == "tests/test_stack.py"
    assert files("shp/cfg")[0] == "shop/config.py"  # its letters in order
    assert files("CART")[0] == "web/cart.ts"
    assert run_cli("search", "nothing_like_it", "-m", "path", "-p", str(shop_repo)).exit_code == 1


def test_read_a_range_a_line_or_a_definition_with_what_holds_it(
    shop_repo: Path, run_cli: Callable[..., Result]
) -> None:
    def read(target: str) -> dict[str, Any]:
        return _json(run_cli("search", target, "-m", "read", "-p", str(shop_repo), "--json"))

    line = read("shop/stack.py:15")  # the definition around the line, whole
    assert (line["start_line"], line["end_line"]) == (14, 16)
    assert [a["qualified_name"] for a in line["around"]] == ["shop.stack.Stack.pop", "shop.stack.Stack"]
    span = read("shop/stack.py:8-10")
    assert span["lines"] == [
        [8, "        self._items: list[object] = []"], [9, ""], [10, "    def push(self, item: object) -> None:"]
    ]
    assert [a["qualified_name"] for a in span["around"]] == ["shop.stack.Stack"]
    by_name = read("Stack.pop")
    assert (by_name["path"], by_name["start_line"], by_name["end_line"]) == ("shop/stack.py", 14, 16)
    text = run_cli("search", "shop/stack.py:14-15", "-m", "read", "-p", str(shop_repo)).stdout
    assert text.splitlines() == [
        "shop/stack.py:14-15 (of 21)  in method shop.stack.Stack.pop 14-16 < class shop.stack.Stack 4-16",
        "14:     def pop(self) -> object:", '15:         """Take the top item off the stack."""',
    ]
    past = run_cli("search", "shop/stack.py:500", "-m", "read", "-p", str(shop_repo))
    assert past.exit_code == 1 and "has 21 lines" in past.stderr
    assert run_cli("search", "NoSuchThing", "-m", "read", "-p", str(shop_repo)).exit_code == 1


# -- exists, channels, languages, name globs -------------------------------------------------------


def test_exists_answers_found_count_and_top_file(shop_repo: Path, run_cli: Callable[..., Result]) -> None:
    grep = _json(run_cli("search", "def ", "-m", "literal", "-p", str(shop_repo), "--detail", "exists", "--json"))
    assert grep == {"found": True, "count": 11, "counted": "matching lines", "top_file": "shop/stack.py"}
    ranked = _json(run_cli("search", "Stack.pop", "-p", str(shop_repo), "--detail", "exists", "--json"))
    assert ranked["found"] and ranked["top_file"] == "shop/stack.py" and ranked["count"] >= 1
    missing = run_cli("search", "zzz_nowhere", "-m", "literal", "-p", str(shop_repo), "--detail", "exists")
    assert (missing.exit_code, missing.stdout.strip()) == (1, "found: no")


def test_the_channel_choice_is_honoured(shop_repo: Path, run_cli: Callable[..., Result]) -> None:
    lexical = _json(run_cli("search", "push", "-m", "lexical", "-p", str(shop_repo), "--json"))
    assert lexical["results"][0]["name"] == "push"
    # Vectors only, in an index with none (the tests' embedder is "none"): nothing is found.
    assert _json(run_cli("search", "push", "-m", "vector", "-p", str(shop_repo), "--json"), 1)["results"] == []


def test_languages_comma_separated_and_name_globs_in_any_case(
    shop_repo: Path, search_json: Callable[..., dict[str, Any]]
) -> None:
    both = search_json("items", "-p", str(shop_repo), "-l", "python,typescript", "-n", "20", "--all-per-file")
    assert {r["language"] for r in both["results"]} == {"python", "typescript"}
    only = search_json("items", "-p", str(shop_repo), "-l", "typescript", "-n", "20")
    assert {r["language"] for r in only["results"]} == {"typescript"}
    # A glob in lower case matches any case; one with capitals, case and all (`Stack.*`, not module `stack`).
    lower = search_json("push", "-p", str(shop_repo), "-s", "stack.push")
    assert [r["qualified_name"] for r in lower["results"]] == ["shop.stack.Stack.push"]
    assert [r["qualified_name"] for r in search_json("push", "-p", str(shop_repo), "-s", "sta*")["results"]] == [
        "shop.stack.Stack"
    ]
    capitals = search_json("push", "-p", str(shop_repo), "-s", "Stack.*")
    assert [r["qualified_name"] for r in capitals["results"]] == ["shop.stack.Stack.push"]
