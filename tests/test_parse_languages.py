"""Every supported language parses its fixture into the expected units (names, kinds, lines).

Each `fixtures/languages/<lang>/expected.json` names a source file, the path it is parsed as, the
units that must appear (with any of kind, parent, start/end line, signature prefix, doc prefix) and
qualified names that must not.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codefathom.parse import parse, supported_languages

FIXTURES = Path(__file__).parent / "fixtures" / "languages"
CASES = sorted(p.name for p in FIXTURES.iterdir() if (p / "expected.json").is_file())


def load_case(lang: str) -> tuple[dict, object]:
    expected = json.loads((FIXTURES / lang / "expected.json").read_text(encoding="utf-8"))
    text = (FIXTURES / lang / expected["file"]).read_text(encoding="utf-8")
    return expected, parse(expected["path"], text)


@pytest.mark.parametrize("lang", CASES)
def test_fixture_parses_into_expected_units(lang: str) -> None:
    expected, parsed = load_case(lang)
    assert parsed.status == "ok", parsed.error
    assert parsed.language == expected.get("language", lang)
    by_name: dict[str, list] = {}
    for unit in parsed.units:
        by_name.setdefault(unit.qualified_name, []).append(unit)
    for want in expected["units"]:
        candidates = by_name.get(want["qualified_name"], [])
        if "kind" in want:
            candidates = [u for u in candidates if u.kind == want["kind"]]
        assert candidates, f"{want['qualified_name']} ({want.get('kind')}) missing; got {sorted(by_name)}"
        unit = candidates[0]
        for key in ("parent", "start_line", "end_line"):
            if key in want:
                assert getattr(unit, key) == want[key], f"{want['qualified_name']}.{key}"
        for key in ("signature", "doc"):
            if key in want:
                assert getattr(unit, key).startswith(want[key]), f"{want['qualified_name']}.{key}"
    for name in expected.get("absent", []):
        assert name not in by_name, f"{name} should be part of its enclosing unit"


def test_every_grammar_language_has_a_fixture() -> None:
    missing = set(supported_languages()) - set(CASES)
    assert not missing, f"languages without a parser fixture: {sorted(missing)}"
