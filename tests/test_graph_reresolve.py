"""A changed config file re-resolves the imports it governs on the next sync, without a full
re-index: a tsconfig's base config edited or the tsconfig deleted, a go.mod's module line changed
or the go.mod deleted and written back, a workspace package's package.json added (through the
CLI's `index` and a query's own sync too)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from conftest import fixture_project

from codefathom.service import Codefathom

pytestmark = pytest.mark.usefixtures("store")  # every test on SQLite and on PostgreSQL


def write(path: Path, text: str) -> None:
    """Write a file so that the next sync sees it changed, however coarse the clock."""
    before = path.stat().st_mtime_ns if path.exists() else 0
    path.write_text(text)
    if path.stat().st_mtime_ns <= before:
        os.utime(path, ns=(before + 1_000_000_000, before + 1_000_000_000))


def call_targets(service: Codefathom, qualified: str, fresh: bool = False) -> dict[tuple[str, int], str]:
    """(path, line) of each call bound to a definition named `qualified` -> that definition's path."""
    response = service.refs(qualified, fresh=fresh)
    where = {s.id: s.path for s in response.symbols}
    return {(r.path, r.line): where[r.target_id] for r in response.references if r.kind == "call"}


def children(service: Codefathom, path: str) -> set[str]:
    return {child.path for child in service.deps(path, fresh=False).roots[0].children}


def test_editing_an_extended_tsconfig_moves_the_bindings_of_its_paths(tmp_path: Path) -> None:
    service = fixture_project(tmp_path, "bindings-tspaths")
    service.index()
    assert call_targets(service, "load")[("src/main.ts", 11)] == "src/settings/index.ts"
    base = service.root / "tsconfig.base.json"
    write(base, base.read_text().replace('"config": ["settings/index.ts"]', '"config": ["decoy.ts"]'))
    report = service.index()
    assert (report.updated, report.added, report.removed) == (1, 0, 0)  # the base config alone: no full re-index
    assert call_targets(service, "load")[("src/main.ts", 11)] == "src/decoy.ts"
    assert "src/decoy.ts" in children(service, "src/main.ts")


def test_deleting_the_tsconfig_leaves_its_bare_imports_external(tmp_path: Path) -> None:
    service = fixture_project(tmp_path, "bindings-tspaths")
    service.index()
    assert children(service, "src/main.ts")
    (service.root / "tsconfig.json").unlink()
    assert service.index().removed == 1
    assert not children(service, "src/main.ts")
    assert ("src/main.ts", 11) not in call_targets(service, "load")
    assert service.deps("src/main.ts", fresh=False).external["src/main.ts"] == [
        "@app/extra", "@app/models", "config", "react", "utils/format",
    ]


def test_a_changed_module_line_or_a_deleted_go_mod_re_resolves_go_imports(tmp_path: Path, run_cli: Any) -> None:
    service = fixture_project(tmp_path, "bindings-go")
    main = "cmd/shop/main.go"
    service.index()
    assert call_targets(service, "store.NewStore")[(main, 16)] == "store/store.go"
    packages = children(service, main)
    assert {"store/store.go", "util/util.go"} <= packages
    go_mod = service.root / "go.mod"
    original = go_mod.read_text()

    write(go_mod, original.replace("module example.com/shop", "module example.com/renamed"))
    assert run_cli("index", str(service.root)).exit_code == 0
    assert (main, 16) not in call_targets(service, "store.NewStore")
    assert service.deps(main, fresh=False).external[main] == ["example.com/shop/store", "example.com/shop/util", "fmt"]

    go_mod.unlink()
    assert run_cli("index", str(service.root)).exit_code == 0
    assert not children(service, main)

    go_mod.write_text(original)  # a query's own sync sees it come back
    assert call_targets(service, "store.NewStore", fresh=True)[(main, 16)] == "store/store.go"
    assert children(service, main) == packages


def test_adding_a_workspace_package_binds_the_import_that_was_external(tmp_path: Path) -> None:
    service = fixture_project(tmp_path, "bindings-workspaces")
    manifest = service.root / "packages/pay/package.json"
    text = manifest.read_text()
    manifest.unlink()  # its sources are there, but it is no package yet
    service.index()
    main = "packages/app/src/main.ts"
    assert "@shop/pay" in service.deps(main, fresh=False).external[main]
    assert (main, 14) not in call_targets(service, "charge")
    manifest.write_text(text)
    report = service.index()
    assert (report.added, report.updated, report.removed) == (1, 0, 0)
    assert call_targets(service, "charge")[(main, 14)] == "packages/pay/src/index.ts"
    assert "@shop/pay" not in service.deps(main, fresh=False).external[main]


def test_renaming_a_workspace_package_leaves_imports_of_the_old_name_external(tmp_path: Path) -> None:
    service = fixture_project(tmp_path, "bindings-workspaces")
    service.index()
    main = "packages/app/src/main.ts"
    assert call_targets(service, "makeCart")[(main, 10)] == "packages/core/src/index.ts"
    manifest = service.root / "packages/core/package.json"
    write(manifest, manifest.read_text().replace('"@shop/core"', '"@shop/kernel"'))
    service.index()
    assert (main, 10) not in call_targets(service, "makeCart")
    external = service.deps(main, fresh=False).external[main]
    assert {"@shop/core", "@shop/core/util", "@shop/core/discount"} <= set(external)
