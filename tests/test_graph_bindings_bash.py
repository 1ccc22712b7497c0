"""Bash references bound to the functions they mean: a script sourcing two libraries through
`$(dirname "$0")` and `${BASH_SOURCE%/*}`, both defining `retry` (the last sourced wins), a `log` the
script redefines over a library's, calls in a pipeline, in `$(...)`, in an `if`, in a `trap` and after `time`, a
function defined after its caller, a nested function, builtins and external programs; a second
script sourcing one library by a root-relative path."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import assert_bindings, fixture_project, index_rows

from codefathom.model import ImportSite
from codefathom.parse.grammars import parser_for
from codefathom.parse.hooks.bash import parse_import
from codefathom.parse.languages import LanguageSpec, language_for
from codefathom.service import Codefathom

DEPLOY = "bin/deploy.sh"
ROLLBACK = "bin/rollback.sh"
COMMON = "lib/common.sh"
NET = "lib/net.sh"

# (path, line) of each call -> (qualified name of the function it means, label); a shell function's
# qualified name is its own name, so TARGET_FILES says which file's definition each one is.
EXPECTED = {
    (DEPLOY, 19): ("cleanup", "exact"),  # trap cleanup EXIT
    (DEPLOY, 21): ("slugify", "exact"),  # name=$(slugify "$1")
    (DEPLOY, 22): ("build_artifact", "exact"),  # time build_artifact "$name"
    (DEPLOY, 23): ("fetch_url", "exact"),  # fetch_url ... | checksum
    (DEPLOY, 25): ("notify", "exact"),
    (DEPLOY, 24): ("retry", "high"),  # common.sh and net.sh both define it: net.sh is sourced last
    (DEPLOY, 28): ("later_helper", "exact"),  # defined below main: looked up when main runs
    (DEPLOY, 36): ("main", "exact"),
    (ROLLBACK, 7): ("retry", "exact"),  # only common.sh is sourced here
    (ROLLBACK, 8): ("fetch_url", "likely"),  # not sourced here, but the project's only one
    (ROLLBACK, 12): ("undo.stamp", "exact"),  # defined inside undo
    (ROLLBACK, 13): ("color", "exact"),  # "$PROJECT_ROOT/$LIB_DIR/fmt/colors.sh"
    (NET, 18): ("fetch_url", "exact"),
}
EXPECTED_ON_LINE = {(DEPLOY, 23): ("checksum", "exact")}
NEVER_BOUND: dict[tuple[str, int], set[str]] = {
    (NET, 13): {"log"},  # net.sh sources nothing; deploy.sh and common.sh both define log
    (DEPLOY, 27): {"terraform"},
}
TARGET_FILES = {
    (DEPLOY, 14, "log"): DEPLOY,  # the script's own log hides common.sh's
    (DEPLOY, 33, "log"): DEPLOY,
    (DEPLOY, 24, "retry"): NET,
    (ROLLBACK, 7, "retry"): COMMON,
    (DEPLOY, 23, "checksum"): COMMON,
}


@pytest.fixture
def service(tmp_path: Path) -> Codefathom:
    project: Codefathom = fixture_project(tmp_path, "bindings-bash")
    return project



def test_bash_calls_bind_to_the_function_they_mean(service: Codefathom) -> None:
    assert_bindings(service, (EXPECTED, EXPECTED_ON_LINE), NEVER_BOUND)


def test_a_name_two_files_define_binds_to_the_one_the_script_sees(service: Codefathom) -> None:
    service.index()
    rows = index_rows(
        service,
        "SELECT f.path, r.line, r.name, t.path FROM refs r JOIN files f ON f.id = r.file_id"
        " JOIN symbols s ON s.id = r.target_id JOIN files t ON t.id = s.file_id WHERE r.name IN ('log', 'retry',"
        " 'checksum')",
    )
    assert {(path, line, name): target for path, line, name, target in rows} == TARGET_FILES


def test_commands_the_project_does_not_define_are_builtin_or_external(service: Codefathom) -> None:
    service.index()
    labels = dict(index_rows(
        service,
        "SELECT r.name || '@' || f.path || ':' || r.line, r.label || ':' || r.candidates FROM refs r"
        " JOIN files f ON f.id = r.file_id WHERE r.target_id IS NULL",
    ))
    assert labels[f"terraform@{DEPLOY}:27"] == "external:0"  # a program on the PATH
    assert labels[f"curl@{NET}:14"] == "external:0"
    assert labels[f"echo@{DEPLOY}:10"] == "builtin:0"
    assert labels[f"dirname@{DEPLOY}:4"] == "builtin:0"  # in `$(dirname "$0")`
    assert labels[f"source@{DEPLOY}:4"] == "builtin:0"
    assert labels[f"log@{NET}:13"] == "unbound:2"  # net.sh sources neither definition
    assert not any(name.startswith(("$", '"')) for name in labels)  # `"$HOOK" done`: a name known when it runs


def test_sourced_files_resolve_from_the_script_and_the_root(service: Codefathom) -> None:
    service.index()
    rows = index_rows(
        service,
        "SELECT f.path, i.module, i.level, t.path, i.external FROM imports i JOIN files f ON f.id = i.file_id"
        " LEFT JOIN files t ON t.id = i.target_file_id ORDER BY f.path, i.line",
    )
    assert rows == [
        (DEPLOY, "../lib/common.sh", 1, COMMON, 0),  # "$(dirname "$0")/../lib/common.sh"
        (DEPLOY, "../lib/net.sh", 1, NET, 0),  # "${BASH_SOURCE%/*}/../lib/net.sh"
        (DEPLOY, "/etc/deploy.conf", 0, None, 1),
        (ROLLBACK, "lib/common.sh", 0, COMMON, 0),  # from the project root
        (ROLLBACK, "fmt/colors.sh", 1, "lib/fmt/colors.sh", 0),  # the one project path ending so
    ]
    deps = service.deps(DEPLOY, fresh=False)
    assert {child.path for child in deps.roots[0].children} == {COMMON, NET}  # not the configuration
    assert deps.external[DEPLOY] == ["/etc/deploy.conf"]
    dependents = service.deps(COMMON, reverse=True, fresh=False)
    assert {child.path for child in dependents.roots[0].children} == {DEPLOY, ROLLBACK}


def test_callers_of_a_library_function_across_scripts(service: Codefathom) -> None:
    service.index()
    callers = service.call_hierarchy("fetch_url", fresh=False)
    assert {(c.symbol.qualified_name if c.symbol else None) for c in callers.roots[0].children} == {
        "main", "undo", "notify"
    }


def test_dead_code_tells_scripts_from_libraries(service: Codefathom) -> None:
    service.index()
    dead = service.dead(include_tests=True, fresh=False)
    unused = {(d.symbol.path, d.symbol.qualified_name): d for d in dead.unused}
    public = {(d.symbol.path, d.symbol.qualified_name): d for d in dead.public_api}
    called = {"main", "later_helper", "build_artifact", "retry", "cleanup", "undo", "undo.stamp", "fetch_url"}
    assert not called & {name for _, name in unused.keys() | public.keys()}
    assert public[(COMMON, "unused_helper")].confidence == 0.4  # a library's: callers may be outside
    assert unused[(NET, "_net_private")].confidence == 0.7  # private by its name
    assert public[(COMMON, "log")].confidence == 0.2  # and the unbound `log` in net.sh may mean it
    assert (DEPLOY, "log") not in unused and (DEPLOY, "log") not in public


def test_dead_code_in_a_script_nothing_sources(service: Codefathom, tmp_path: Path) -> None:
    script = tmp_path / "bindings-bash" / "bin" / "rollback.sh"
    script.write_text(script.read_text() + "\nforgotten() {\n  :\n}\n")
    service.index()
    dead = service.dead(include_tests=True, fresh=False)
    found = {d.symbol.qualified_name: d for d in dead.unused}
    assert found["forgotten"].confidence == 0.7
    assert "built when the code runs" in found["forgotten"].reason


def test_a_script_without_an_extension_is_read_by_its_shebang(service: Codefathom, tmp_path: Path) -> None:
    # `bin/release`: what runs it is on its first line, not in its name.
    (tmp_path / "bindings-bash" / "bin" / "release").write_text(
        '#!/usr/bin/env bash\nsource "$(dirname "$0")/../lib/common.sh"\n\nship() {\n  checksum out.tar\n}\n\n'
        "forgotten_step() {\n  :\n}\n\nship\n"
    )
    service.index()
    calls = [r for r in service.refs("checksum", fresh=False).references if r.path == "bin/release"]
    assert [(r.line, r.label) for r in calls] == [(5, "exact")]
    dead = {d.symbol.qualified_name: d for d in service.dead(include_tests=True, fresh=False).unused
            if d.symbol.path == "bin/release"}
    assert set(dead) == {"forgotten_step"} and dead["forgotten_step"].confidence == 0.7


@pytest.mark.parametrize(
    ("written", "site"),
    [
        ("source lib/a.sh", ImportSite("lib/a.sh", None, "", 1, 0)),
        (". ./a.sh", ImportSite("./a.sh", None, "", 1, 0)),
        ("source 'a b.sh'", ImportSite("a b.sh", None, "", 1, 0)),
        ('source "$(dirname "$0")/a.sh"', ImportSite("a.sh", None, "", 1, 1)),
        ('. "${BASH_SOURCE%/*}"/../lib/a.sh', ImportSite("../lib/a.sh", None, "", 1, 1)),
        ("source $DIR/a.sh", ImportSite("a.sh", None, "", 1, 1)),
        ('source "$ROOT/$LIBDIR/x/a.sh"', ImportSite("x/a.sh", None, "", 1, 1)),
        ('source "$config"', ImportSite('"$config"', None, "", 1, 0)),  # known only when it runs: external
        ('source "$dir/$name.sh"', ImportSite('"$dir/$name.sh"', None, "", 1, 0)),
        ('source ""', None),
    ],
)
def test_source_paths_are_read_as_the_shell_joins_them(written: str, site: ImportSite | None) -> None:
    spec = language_for("a.sh")
    assert isinstance(spec, LanguageSpec)
    command = parser_for(spec).parse(written.encode()).root_node.named_children[0]
    assert parse_import(command) == ([site] if site is not None else [])
