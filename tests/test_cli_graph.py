"""The code graph through the `codefathom` command: symbol, refs, callers, callees, deps, impact, dead.

Runs on a copy of the `shop` fixture; `graph_shop` adds a module that calls into it, so there are
call chains two levels deep and a call `box.push()` that could mean Stack.push or Queue.push.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from conftest import git

pytestmark = pytest.mark.usefixtures("store")  # every test on SQLite and on PostgreSQL

SESSION = '''\
    """Sessions: renewing tokens."""

    from shop.users import UserService


    def renew(db, user):
        service = UserService(db)
        return service.refresh_token(user)


    def fill(box, items):
        for item in items:
            box.push(item)
'''


@pytest.fixture
def graph_shop(shop_repo: Path) -> Path:
    (shop_repo / "shop" / "session.py").write_text(textwrap.dedent(SESSION), encoding="utf-8")
    return shop_repo


@pytest.fixture
def graph(run_cli: Callable[..., Result]) -> Callable[..., dict[str, Any]]:
    """`codefathom VERB ARGS --json` parsed; fails the test unless it exits 0 for an answer and 1 for
    one that found no definition of the name asked about."""

    def call(*args: str) -> dict[str, Any]:
        result = run_cli(*args, "--json")
        data: dict[str, Any] = json.loads(result.stdout)
        found = bool(data.get("symbols", True)) and bool(data.get("roots", True) or data.get("paths"))
        assert result.exit_code == (0 if found else 1), result.output
        return data

    return call


def text(run_cli: Callable[..., Result], *args: str) -> str:
    result = run_cli(*args)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_symbol_shows_location_signature_and_doc(shop_repo: Path, graph, run_cli) -> None:
    data = graph("symbol", "UserService.find", "-p", str(shop_repo))
    assert data["project_root"] == str(shop_repo.resolve())
    assert data["symbols"] == [{
        "path": "shop/users.py", "start_line": 11, "end_line": 13, "kind": "method", "name": "find",
        "qualified_name": "shop.users.UserService.find", "parent": "shop.users.UserService",
        "signature": "def find(self, user_id: int)", "doc": "Look a user up by id, or None when there is no such user.",
    }]
    assert "note" not in data
    out = text(run_cli, "symbol", "UserService.find", "--path", str(shop_repo), "--no-sync")
    assert out.splitlines()[:2] == ["shop/users.py:11-13  method  shop.users.UserService.find",
                                    "    def find(self, user_id: int)"]
    # --kind keeps to definitions of that kind: `push` is two methods, no class.
    assert len(graph("symbol", "push", "-p", str(shop_repo))["symbols"]) == 2
    assert graph("symbol", "push", "-p", str(shop_repo), "--kind", "class")["symbols"] == []


def test_an_unknown_symbol_says_to_search_instead(shop_repo: Path, graph, run_cli) -> None:
    data = graph("symbol", "no_such_thing", "-p", str(shop_repo))
    assert data["symbols"] == [] and "codefathom search no_such_thing" in data["note"]
    refs = run_cli("refs", "no_such_thing", "-p", str(shop_repo))
    assert refs.exit_code == 1 and "codefathom search no_such_thing" in refs.stdout  # not found: exit 1


def test_refs_lists_each_use_with_its_confidence_label(graph_shop: Path, graph, run_cli) -> None:
    data = graph("refs", "load_config", "-p", str(graph_shop))
    assert [s["qualified_name"] for s in data["symbols"]] == ["shop.config.load_config"]
    assert data["references"] == [{
        "path": "shop/users.py", "line": 9, "column": 22, "kind": "call", "label": "exact", "confidence": 0.95,
        "scope": "shop.users.UserService.__init__", "receiver": "",
    }]
    assert data["unbound_elsewhere"] == 0 and "note" not in data

    out = text(run_cli, "refs", "Stack.push", "-p", str(graph_shop))
    assert "  tests/test_stack.py:6  high  tests.test_stack.test_push_then_pop_returns_the_item" in out
    assert "  tests/test_stack.py:7  high  tests.test_stack.test_push_then_pop_returns_the_item" in out
    # `box.push(item)` could mean Stack.push or Queue.push: it is counted, not bound.
    assert "1 other reference to `push` could not be bound to one definition" in out

    both = graph("refs", "push", "-p", str(graph_shop), "--ref-kind", "call")
    assert both["unbound_elsewhere"] == 1 and "could not be bound" in both["note"]
    assert {r["target"] for r in both["references"]} == {"shop.stack.Stack.push"}  # several definitions: named
    assert graph("refs", "push", "-p", str(graph_shop), "--ref-kind", "inherit")["references"] == []


def test_refs_lists_up_to_a_limit_and_counts_them_all(graph_shop: Path, graph, run_cli) -> None:
    # A definition used everywhere has thousands of references: a reply lists the first ones by
    # path and line and says how many there are, per definition and in all.
    everything = graph("refs", "Stack.push", "-p", str(graph_shop), "--limit", "0")
    assert len(everything["references"]) == everything["total_references"] == 2 and everything["limit"] == 0
    first = graph("refs", "Stack.push", "-p", str(graph_shop), "--limit", "1")
    assert first["references"] == everything["references"][:1]
    assert (first["total_references"], first["symbols"][0]["references"]) == (2, 2)
    assert "The first 1 of 2 references are listed" in first["note"]
    out = text(run_cli, "refs", "Stack.push", "-p", str(graph_shop), "-n", "1")
    assert "(2 references)" in out and out.count("tests/test_stack.py:") == 1
    assert "a limit of 0 lists them all" in out
    refused = run_cli("refs", "Stack.push", "-p", str(graph_shop), "--limit", "-1")
    assert refused.exit_code == 2 and "--limit" in refused.output


def test_refs_of_a_language_without_references_say_so(shop_repo: Path, graph) -> None:
    # Every language with a grammar extracts references now (Scala was the last one this test used), so
    # the note is checked where it still applies, a Markdown path, and its absence on a Scala answer.
    from codefathom.service.render.graph import _without_references

    assert "only for" in _without_references(["docs/guide.md"]) and "markdown" in _without_references(["a.md"])
    (shop_repo / "web" / "Legacy.scala").write_text(
        "object Legacy {\n  def findUserById(id: Int): Int = id\n  def run(): Int = findUserById(1)\n}\n"
    )
    data = graph("refs", "findUserById", "-p", str(shop_repo))
    assert data["symbols"][0]["path"] == "web/Legacy.scala"
    assert [(r["path"], r["line"]) for r in data["references"]] == [("web/Legacy.scala", 3)]
    assert "only for" not in data.get("note", "")


def test_callers_walk_up_two_levels(graph_shop: Path, graph, run_cli) -> None:
    data = graph("callers", "sign_jwt", "--depth", "2", "-p", str(graph_shop))
    assert (data["direction"], data["depth"], data["truncated"]) == ("callers", 2, False)
    [root] = data["roots"]
    assert (root["qualified_name"], root["label"], root["line"]) == ("shop.users.sign_jwt", "definition", 20)
    [caller] = root["children"]
    assert (caller["qualified_name"], caller["path"], caller["line"], caller["label"]) == (
        "shop.users.UserService.refresh_token", "shop/users.py", 17, "exact"
    )
    [second] = caller["children"]
    assert (second["qualified_name"], second["line"], second["label"]) == ("shop.session.renew", 8, "high")
    assert "children" not in second and "seen_before" not in second

    out = text(run_cli, "callers", "sign_jwt", "-d", "2", "-p", str(graph_shop))
    assert out.splitlines() == [
        "callers of shop.users.sign_jwt  (shop/users.py:20)",
        "  shop/users.py:17  exact  shop.users.UserService.refresh_token",
        "    shop/session.py:8  high  shop.session.renew",
    ]
    one = graph("callers", "sign_jwt", "-p", str(graph_shop))  # depth 1 by default
    assert "children" not in one["roots"][0]["children"][0]


def test_trees_and_definitions_stop_at_their_limit_and_count_what_they_left_out(graph_shop: Path, graph) -> None:
    cut = graph("callers", "sign_jwt", "--depth", "2", "--limit", "1", "-p", str(graph_shop))
    [caller] = cut["roots"][0]["children"]
    assert caller["qualified_name"] == "shop.users.UserService.refresh_token" and "children" not in caller
    assert (cut["truncated"], cut["limit"], cut["more"]) == (True, 1, 1)
    assert "stops at 1 nodes: 1 more" in cut["note"]
    whole = graph("callees", "renew", "--depth", "2", "-p", str(graph_shop))
    assert (whole["truncated"], whole["limit"]) == (False, 100) and "more" not in whole
    callees = graph("callees", "renew", "--limit", "1", "-p", str(graph_shop))
    assert len(callees["roots"][0]["children"]) == 1 and callees["more"] == 1
    pushes = graph("symbol", "push", "-p", str(graph_shop))
    assert pushes["total"] == len(pushes["symbols"]) == 2 and "note" not in pushes
    one = graph("symbol", "push", "--limit", "1", "-p", str(graph_shop))
    assert (len(one["symbols"]), one["total"]) == (1, 2) and "The first 1 of 2 definitions" in one["note"]


def test_callers_list_each_calling_definition_once(shop_repo: Path, graph) -> None:
    [stack_push, queue_push] = graph("callers", "push", "-d", "2", "-p", str(shop_repo))["roots"]
    [caller] = stack_push["children"]  # two calls from one test: one caller, at its first call
    assert (caller["qualified_name"], caller["line"]) == ("tests.test_stack.test_push_then_pop_returns_the_item", 6)
    assert "children" not in queue_push


def test_callees_walk_down(graph_shop: Path, graph, run_cli) -> None:
    data = graph("callees", "renew", "--depth", "2", "-p", str(graph_shop))
    [root] = data["roots"]
    assert [c["qualified_name"] for c in root["children"]] == [
        "shop.users.UserService", "shop.users.UserService.refresh_token"
    ]
    refresh = root["children"][1]
    assert [c["qualified_name"] for c in refresh["children"]] == ["shop.users.sign_jwt"]
    out = text(run_cli, "callees", "test_push_then_pop_returns_the_item", "-p", str(graph_shop))
    assert "  shop/stack.py:10  high  shop.stack.Stack.push" in out.splitlines()


def test_deps_is_a_tree_of_what_a_file_depends_on(graph_shop: Path, graph, run_cli) -> None:
    data = graph("deps", "shop/session.py", "--depth", "2", "-p", str(graph_shop))
    assert (data["paths"], data["direction"], data["files"]) == (["shop/session.py"], "dependencies", 2)
    assert data["roots"] == [{
        "path": "shop/session.py",
        "children": [{
            "path": "shop/users.py", "via": {"call": 2, "import": 1},
            "children": [{"path": "shop/config.py", "via": {"call": 1, "import": 1}}],
        }],
    }]
    imports = graph("deps", "shop/config.py", "-p", str(graph_shop), "--dep-type", "import")
    assert imports["dep_types"] == ["import"] and imports["external"] == {"shop/config.py": ["tomllib"]}

    out = text(run_cli, "deps", "shop/session.py", "-d", "2", "-p", str(graph_shop))
    assert out.splitlines()[:3] == [
        "shop/session.py", "  shop/users.py  call 2, import 1", "    shop/config.py  call 1, import 1"
    ]


def test_impact_is_what_depends_on_a_file_transitively(
    graph_shop: Path, graph, run_cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = graph("impact", "shop/config.py", "--depth", "3", "-p", str(graph_shop))
    assert data["direction"] == "dependents" and "external" not in data
    [root] = data["roots"]
    users = root["children"][0]
    assert users["path"] == "shop/users.py" and users["children"][0]["path"] == "shop/session.py"

    # Several files share one visited set; a path relative to the working directory works too.
    monkeypatch.chdir(graph_shop / "shop")
    both = graph("impact", "config.py", "stack.py", "-d", "3", "-p", str(graph_shop))
    assert both["paths"] == ["shop/config.py", "shop/stack.py"] and both["files"] == 3
    assert [c["path"] for c in both["roots"][1]["children"]] == ["tests/test_stack.py"]
    out = text(run_cli, "impact", "shop/config.py", "-p", str(graph_shop))
    assert out.splitlines()[:2] == ["shop/config.py", "  shop/users.py  call 1, import 1"]
    # Two files reached, the limit one: the second is counted, not shown.
    cut = graph("impact", "config.py", "stack.py", "-d", "3", "-n", "1", "-p", str(graph_shop))
    assert (cut["files"], cut["truncated"], cut["more"]) == (1, True, 1) and "stop at 1 files" in cut["note"]


def test_dead_lists_unused_definitions_with_confidence_and_reason(shop_repo: Path, graph, run_cli) -> None:
    data = graph("dead", "-p", str(shop_repo))
    unused = {d["qualified_name"]: d for d in data["unused"]}
    push = unused["shop.stack.Queue.push"]
    assert (push["path"], push["start_line"], push["kind"], push["confidence"]) == ("shop/stack.py", 20, "method", 0.6)
    assert "no reference in the project binds to it" in push["reason"]
    assert "shop.stack.Stack.push" not in unused
    assert {d["qualified_name"] for d in data["public_api"]} >= {"shop.config.parse_args", "shop.stack.Queue"}
    assert {"python", "javascript", "typescript", "tsx"} <= set(data["languages_checked"])
    assert not any(d["path"].startswith("tests/") for d in data["unused"])
    tests = graph("dead", "-p", str(shop_repo), "--include-tests")
    assert "tests.test_stack.test_push_then_pop_returns_the_item" in {d["qualified_name"] for d in tests["unused"]}

    out = text(run_cli, "dead", "-p", str(shop_repo)).splitlines()
    at = out.index("    shop/stack.py:20  method  shop.stack.Queue.push")  # under its confidence and reason, said once
    assert any(line.startswith("  0.60  no reference in the project binds") for line in out[:at])
    one = text(run_cli, "dead", "-p", str(shop_repo), "--limit", "1")
    assert data["total_unused"] > 1 and len(graph("dead", "-p", str(shop_repo), "-n", "1")["unused"]) == 1
    assert f"(+{data['total_unused'] - 1:,} more: a higher limit, or 0, lists them)" in one


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("deps", "shop/users.py", "--dep-type", "imports"), "'imports' is not one of"),
        (("impact", "shop/users.py", "--depth", "0"), "0 is not in the range"),
        (("callers", "sign_jwt", "--depth", "0"), "0 is not in the range"),
        (("deps", "/etc/hostname"), "outside the project root"),
        (("impact", "../elsewhere.py"), "outside the project root"),
        (("deps",), "Missing argument"),
        (("refs", " "), "give a symbol name"),
    ],
)
def test_usage_errors_exit_with_2(shop_repo: Path, run_cli, args: tuple[str, ...], message: str) -> None:
    result = run_cli(*args, "-p", str(shop_repo))
    assert result.exit_code == 2
    assert message in result.output


@pytest.mark.parametrize(
    "args",
    [("symbol", "no_such_name"), ("refs", "no_such_name"), ("callers", "no_such_name"), ("deps", "shop/missing.py"),
     ("impact", "shop/missing.py"), ("brief", "shop/missing.py"), ("tests", "no_such_name"),
     ("search", "zzzqqq_nothing_matches")],
)
def test_what_is_not_found_exits_with_1_and_says_so(shop_repo: Path, run_cli, args: tuple[str, ...]) -> None:
    result = run_cli(*args, "-p", str(shop_repo))
    assert result.exit_code == 1, result.output
    assert "not in the index" in result.output or "No " in result.output


def test_every_verb_takes_its_directory_as_p_and_each_short_flag_means_one_thing(
    shop_repo: Path, run_cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    from codefathom.cli.commands import cli as group

    for verb in ("index", "status", "clear", "stop", "outline"):
        assert run_cli(verb, "--path", str(shop_repo)).exit_code == 0, verb
    assert run_cli("outline", str(shop_repo), "-p", str(shop_repo)).exit_code == 2  # one or the other
    meanings: dict[str, set[str]] = {}
    for command in group.commands.values():
        for param in command.params:
            for flag in param.opts + param.secondary_opts:
                if flag.startswith("-") and not flag.startswith("--"):
                    meanings.setdefault(flag, set()).add(next(o for o in param.opts if o.startswith("--")))
    shared = {flag: names for flag, names in meanings.items() if len(names) > 1}
    assert shared == {}, shared


def test_a_directory_inside_the_project_keeps_graph_answers_to_it(shop_repo: Path, graph) -> None:
    git(shop_repo, "init")
    everywhere = graph("refs", "Stack.push", "-p", str(shop_repo))
    assert {r["path"] for r in everywhere["references"]} == {"tests/test_stack.py"}
    inside = graph("refs", "Stack.push", "-p", str(shop_repo / "shop"))
    assert inside["references"] == []
    assert [s["path"] for s in inside["symbols"]] == ["shop/stack.py"]
    callers = graph("callers", "push", "-p", str(shop_repo / "shop"))
    assert all("children" not in root for root in callers["roots"])
