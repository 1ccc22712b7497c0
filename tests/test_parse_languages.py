"""Every supported language parses its fixture into the expected units (names, kinds, lines).

Each `fixtures/languages/<lang>/expected.json` names a source file, the path it is parsed as, the
units that must appear (with any of kind, parent, start/end line, signature prefix, doc prefix) and
qualified names that must not.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tree_sitter import Query, QueryCursor

from codefathom.parse import LANGUAGES, LanguageSpec, parse, supported_languages
from codefathom.parse.facts import graph_query_text, has_graph_query, units_and_graph_query
from codefathom.parse.grammars import grammar_for, parser_for
from codefathom.parse.languages import language_for

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


GRAPH_SPECS = [spec for spec in LANGUAGES if has_graph_query(spec)]


@pytest.mark.parametrize("spec", GRAPH_SPECS, ids=lambda spec: spec.name)
def test_each_graph_pattern_names_one_tag(spec: LanguageSpec) -> None:
    """Facts extraction sorts a match by its pattern's tag, read once from the query's text, and
    records no node for reference and hint tags: that holds when every graph pattern names exactly
    one tag and every match of it captures that tag (checked on the fixtures, with every capture
    recorded), and when the graph patterns keep their order after the units query's."""
    from codefathom.parse.facts import _bucket, _graph_query, _tag

    graph = _graph_query(spec)
    assert graph is not None
    assert all(where is not None and where[0] >= 0 for where in graph.buckets)
    combined = units_and_graph_query(spec)
    assert combined.buckets[combined.first :] == graph.buckets
    assert all(where is None for where in combined.buckets[: combined.first])
    query = Query(grammar_for(spec), graph_query_text(spec) or "")
    checked = 0
    for path in sorted((FIXTURES.parent).rglob("*")):
        if not path.is_file() or path.suffix in ("", ".json", ".md"):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if language_for(path.name, text) != spec:
            continue
        tree = parser_for(spec).parse(text.encode("utf-8"))
        for index, captures in QueryCursor(query).matches(tree.root_node):
            tag = _tag(captures)
            assert tag is not None and _bucket(*tag) == graph.buckets[index], (path, index)
            checked += 1
    assert checked, f"no {spec.name} fixture matched the graph query"
