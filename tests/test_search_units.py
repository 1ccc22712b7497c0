"""What a search result is named by and how far it reaches: the windows of a long class, and
`--detail unit` (MCP `detail: "unit"`), which grows a hit to the whole unit holding its matching lines.

A class longer than 150 lines is stored as windows of 60 lines (parse/windows.py); each window holds
its methods' code, so a result must be named by the method it shows, and one unit must not be two
results."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

TOPICS = ["headers", "proxies", "cookies", "redirects", "auth", "hooks", "adapters", "timeouts", "retries",
          "streams", "certs", "params"]


def session_source() -> str:
    """A 161-line class of twelve 12-line methods: stored as three windows of its lines."""
    methods = [
        f'''
    def merge_{topic}(self, request, {topic}):
        """Merge the session's {topic} into the request."""
        merged = dict(self.{topic})
        merged.update({topic} or {{}})
        for key in list(merged):
            if merged[key] is None:
                del merged[key]
        request.{topic} = merged
        self.log("{topic}", merged)
        self.count += 1
        self.seen.add("{topic}")
        return request
'''
        for topic in TOPICS
    ]
    return 'class Session:\n    """A session keeps settings across requests."""\n\n    count = 0\n' + "".join(methods)


def long_function_source() -> str:
    """A 200-line function: stored as four windows; `quartz_marker` is on line 130 of the file."""
    body = [f"    total += {i}  # step {i}" for i in range(1, 197)]
    body[126] = "    total += quartz_marker(total)  # the rare step"
    tail = "\n    return total\n\n\ndef quartz_marker(x):\n    return x\n"
    return "def accumulate(total):\n" + "\n".join(body) + tail


GUIDE = "# Guide\n\nIntro.\n\n## Setup\n\n" + "\n".join(
    f"Setup line {i}: install the tool." if i != 90 else "Setup line 90: the zephyr flag enables mirrors."
    for i in range(1, 171)
) + "\n"

NOTES = "\n".join(
    ["Intro notes."] + [""] + [f"filler {i}" for i in range(1, 70)] + [""]
    + ["Mirrors paragraph begins.", "The mirror list is read at startup.", "A wombat mirror is the fallback.",
       "Mirrors paragraph ends."] + [""] + [f"tail {i}" for i in range(1, 20)]
) + "\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "session.py").write_text(session_source(), encoding="utf-8")
    (root / "pkg" / "steps.py").write_text(long_function_source(), encoding="utf-8")
    (root / "pkg" / "util.py").write_text(
        'def merge_settings(request, settings):\n    """Merge settings into a request."""\n    return request\n',
        encoding="utf-8",
    )
    (root / "docs").mkdir()
    (root / "docs" / "guide.md").write_text(GUIDE, encoding="utf-8")
    (root / "notes.txt").write_text(NOTES, encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    monkeypatch.setenv("CODEFATHOM_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CODEFATHOM_EMBEDDER", "none")
    return root


def method_extents() -> dict[str, tuple[int, int]]:
    """pkg.session.Session.merge_<topic> -> its first and last line, read from the source."""
    lines = session_source().split("\n")
    extents = {}
    for number, line in enumerate(lines, start=1):
        if line.strip().startswith("def merge_"):
            name = line.strip()[4:].split("(")[0]
            end = next(n for n in range(number, len(lines) + 1) if lines[n - 1].strip() == "return request")
            extents[f"pkg.session.Session.{name}"] = (number, end)
    return extents


@pytest.mark.parametrize("per_file", [[], ["--all-per-file"]])
def test_a_window_of_a_long_class_is_named_by_the_method_it_shows(
    project: Path, search_json: Any, per_file: list[str]
) -> None:
    # Every method logs `merged`: before, the class's three windows ranked first, each labelled
    # `Session` while showing a method's code, and with --all-per-file they took the top three.
    data = search_json("merged log", "-p", str(project), "-n", "5", *per_file)
    results = data["results"]
    extents = method_extents()
    assert len(results) == (5 if per_file else 4)
    named = [(r["path"], r["kind"], r["qualified_name"], r["start_line"]) for r in results]
    assert len(set(named)) == len(named), named  # no unit twice
    for result in results:
        if result["path"] != "pkg/session.py":
            continue
        assert result["kind"] == "method", named
        first, last = extents[result["qualified_name"]]
        assert (result["start_line"], result["end_line"]) == (first, last)
        assert result["lines"] and all(first <= number <= last for number, _ in result["lines"]), result


def test_a_window_and_the_method_it_shows_are_one_result(project: Path, search_json: Any) -> None:
    # The first window holds merge_cookies: before, it came second, as `Session`, showing the lines
    # the first result (merge_cookies itself) shows.
    data = search_json("merge the session cookies into the request", "-p", str(project), "-n", "5")
    names = [r["qualified_name"] for r in data["results"]]
    assert names[0] == "pkg.session.Session.merge_cookies"
    assert len(set(names)) == len(names), names
    assert "pkg.session.Session" not in names


def test_the_parts_of_a_long_function_are_one_result(project: Path, search_json: Any) -> None:
    data = search_json("total step", "-p", str(project), "-n", "5", "--all-per-file", "-k", "function")
    names = [r["qualified_name"] for r in data["results"]]
    assert names.count("pkg.steps.accumulate") == 1, names
