"""Deeply nested code indexes in time linear in its size, and what a depth limit leaves out is named.

Not timed: the tests check where the limits cut, what stays searchable, and that the work per level stays the same.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from conftest import no_index, project_rows
from tree_sitter import Node

from codefathom.parse import facts, parse
from codefathom.parse.extract import MAX_UNIT_NESTING
from codefathom.parse.grammars import parser_for
from codefathom.parse.languages import language_for
from codefathom.parse.navigate import MAX_SYNTAX_DEPTH, Ancestry, deeper_than
from codefathom.service import Codefathom

pytestmark = pytest.mark.usefixtures("store")  # every test on SQLite and on PostgreSQL


def _index(run_cli: Callable[..., Result], project: Path) -> dict[str, Any]:
    """`codefathom index` then `status --json` of the project."""
    result = run_cli("index", str(project), "-q", "--no-embed")
    assert result.exit_code == 0, result.output
    status: dict[str, Any] = json.loads(run_cli("status", str(project), "--json").stdout)
    return status


def _units(status: dict[str, Any]) -> list[tuple[str, str, int, int]]:
    with Codefathom(status["project_root"]) as service:
        return project_rows(
            service, "SELECT kind, name, start_line, end_line FROM units ORDER BY start_line",
            "SELECT kind, name, start_line, end_line FROM units WHERE project_id = %s ORDER BY start_line",
        )


def test_thousands_of_nested_functions_index_with_the_depth_limit_named(
    tmp_path: Path, run_cli: Callable[..., Result], search_json: Callable[..., dict[str, Any]]
) -> None:
    project = tmp_path / "deep"
    project.mkdir()
    depth = 3000
    opening = "".join(f"function f{i}(a) {{\n" for i in range(depth))
    (project / "nested.js").write_text(opening + "return a;\n" + "}\n" * depth)
    (project / "app.js").write_text("function start() { return 1; }\n")

    status = _index(run_cli, project)
    [problem] = status["problems"]
    assert (problem["path"], problem["status"]) == ("nested.js", "partial")
    # Two syntax levels a function (its declaration, its body): the limit falls at the 250th.
    assert f"nested deeper than {MAX_SYNTAX_DEPTH} syntax levels at line 250" in problem["error"]
    assert status["parse_health"] == {"ok": 1, "partial": 1}
    # The outer function is the unit, its inner functions its text, all of it searchable.
    assert search_json("f0", "--path", str(project))["results"][0]["name"] == "f0"
    deepest = search_json("f2999", "--path", str(project))["results"]
    assert deepest and deepest[0]["name"] == "f0"


def test_classes_nested_past_the_unit_limit_stay_in_the_class_around_them(
    tmp_path: Path, run_cli: Callable[..., Result]
) -> None:
    project = tmp_path / "classes"
    project.mkdir()
    depth = 40  # 80 syntax levels: only the limit on units applies
    opening = "".join(f"class C{i} {{\n" for i in range(depth))
    (project / "Nested.java").write_text("package p;\n" + opening + "int x;\n" + "}\n" * depth)

    status = _index(run_cli, project)
    [problem] = status["problems"]
    assert problem["status"] == "partial"
    assert f"definitions nested more than {MAX_UNIT_NESTING} deep (from line 12)" in problem["error"]
    classes = sorted({name for kind, name, _, _ in _units(status) if kind == "class"}, key=lambda n: int(n[1:]))
    assert classes == [f"C{i}" for i in range(MAX_UNIT_NESTING)]


def test_the_units_of_a_deep_file_hold_each_line_a_bounded_number_of_times(
    tmp_path: Path, run_cli: Callable[..., Result]
) -> None:
    # A class longer than MAX_UNIT_LINES is split into parts of its whole text: without the limit,
    # 1,000 nested classes held the innermost lines 1,000 times (half a million lines of units).
    project = tmp_path / "classes"
    project.mkdir()
    depth = 1000
    text = "package p;\n" + "".join(f"class C{i} {{\n" for i in range(depth)) + "int x;\n" + "}\n" * depth
    (project / "Nested.java").write_text(text)

    status = _index(run_cli, project)
    assert [p["status"] for p in status["problems"]] == ["partial"]  # parsed, not fallen back to windows
    units = _units(status)
    assert sum(kind == "class" for kind, _, _, _ in units) >= MAX_UNIT_NESTING
    held = sum(end - start + 1 for _, _, start, end in units)
    assert held <= (MAX_UNIT_NESTING + 1) * text.count("\n")


@no_index
def test_python_nested_past_the_syntax_limit_is_cut_with_its_line() -> None:
    depth = 2000
    opening = "".join(f"f{i}(lambda a{i}:\n" for i in range(depth))
    parsed = parse("calls.py", "x = (\n" + opening + "a0" + ")" * depth + ")\n")
    assert parsed.status == "partial"
    assert parsed.error is not None and f"nested deeper than {MAX_SYNTAX_DEPTH} syntax levels" in parsed.error
    # References above the limit are extracted, those below it are not: fewer than the calls.
    calls = [ref for ref in parsed.facts.refs if ref.kind == "call"]
    assert 0 < len(calls) < depth


@no_index
def test_ordinary_code_is_not_near_the_limits() -> None:
    text = "class A:\n    class B:\n        def m(self):\n            return [[[1]]]\n"
    parsed = parse("a.py", text)
    assert (parsed.status, parsed.error) == ("ok", None)
    tree = parser_for(language_for("a.py", text)).parse(text.encode())  # type: ignore[arg-type]
    assert deeper_than(tree.root_node, 5) is not None
    assert deeper_than(tree.root_node, MAX_SYNTAX_DEPTH) is None


def _nodes(node: Node) -> list[Node]:
    found = [node]
    for child in node.children:
        found.extend(_nodes(child))
    return found


@no_index
def test_the_walk_to_nested_definitions_steps_on_each_node_at_most_once() -> None:
    # tree-sitter's own Node.parent searches down from the root: asked of each of n nested
    # definitions it takes n² steps. The walk takes at most one step per node of the tree.
    visited = {}
    for depth in (100, 200):
        text = "".join(f"{{ function f{i}() {{ return {i}; }}\n" for i in range(depth)) + "}\n" * depth
        tree = parser_for(language_for("a.js", text)).parse(text.encode())  # type: ignore[arg-type]
        nodes = _nodes(tree.root_node)
        functions = [n for n in nodes if n.type == "function_declaration"]
        ancestry = Ancestry(tree.root_node, functions)
        assert ancestry.visited <= len(nodes)
        visited[depth] = ancestry.visited
        for node in nodes[1:]:  # the same answers as tree-sitter's own
            assert ancestry.parent(node) == node.parent
            assert ancestry.prev_sibling(node) == node.prev_sibling
    assert visited[200] <= 2.1 * visited[100]


@no_index
def test_what_is_around_nested_python_definitions_is_read_without_walking_up_the_tree(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Each walk up costs the depth in Node.parent calls, each a search down from the root: at 250
    # levels a walk per definition took a second. The matches in document order say it instead.
    walks = 0
    nearest = facts._nearest_definition

    def counted(node: Node, *args: Any) -> Node | None:
        nonlocal walks
        walks += 1
        return nearest(node, *args)

    monkeypatch.setattr(facts, "_nearest_definition", counted)
    depth = 60
    lines = [" " * i + (f"class C{i}:" if i % 2 else f"def f{i}():") for i in range(depth)]
    parsed = parse("deep.py", "\n".join(lines) + "\n" + " " * depth + "return 1\n")
    assert walks == 0
    local = {s.qualified_name: s.kind for s in parsed.facts.symbols}
    assert local["deep.f0.C1.f2"] == "method" and local["deep.f0.C1"] == "class"
    assert len([name for name in local if name.startswith("deep.f0.")]) == depth - 1
