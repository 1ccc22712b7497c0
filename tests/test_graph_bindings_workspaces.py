"""Bare imports of an npm/yarn/pnpm monorepo's packages bound to the packages' sources: `exports`
with conditions and a `./*` pattern pointing at a `dist/` the repository lacks, `types` and `main`
mapped back from build output, a package importing itself by name (also one the workspace globs
leave out), tsconfig `paths` winning over a workspace package, pnpm-workspace.yaml instead of
`workspaces`, and malformed package files leaving imports external."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import fixture_project

from codefathom.graph.npm import split_specifier, yaml_packages
from codefathom.service import Codefathom

MAIN = "packages/app/src/main.ts"
CORE, UTIL = "packages/core/src/index.ts", "packages/core/src/util.ts"
DISCOUNT = "packages/core/src/features/discount.ts"
PAY, PREVIEW, UI = "packages/pay/src/index.ts", "packages/ui/src/preview.ts", "packages/ui/src/ui.ts"
LEGACY, HELPERS = "packages/legacy/src/index.ts", "packages/legacy/src/helpers.ts"
# (path, line) of each call -> (path and qualified name of the definition it means, label); checked by hand
EXPECTED = {
    (MAIN, 10): ((CORE, "makeCart"), "exact"),  # "@shop/core": exports "." -> dist/index.d.ts -> src/index.ts
    (MAIN, 11): ((CORE, "Cart.add"), "high"),
    (MAIN, 12): ((CORE, "Cart.total"), "exact"),
    (MAIN, 13): ((PREVIEW, "render"), "exact"),  # tsconfig paths map "@shop/ui" before its package does
    (MAIN, 14): ((PAY, "charge"), "exact"),  # "types": "build/types/index.d.ts" -> src/index.ts
    (MAIN, 17): ((UTIL, "formatPrice"), "exact"),  # "@shop/core/util": the "./util" key
    (DISCOUNT, 5): ((UTIL, "formatPrice"), "exact"),  # the package importing itself by name
    (CORE, 9): ((UTIL, "formatPrice"), "exact"),  # relative, as before
    (LEGACY, 6): ((HELPERS, "oldHelper"), "exact"),  # self-import of a package outside the workspaces
}
EXPECTED_TOO = {(MAIN, 17): ((DISCOUNT, "applyDiscount"), "exact")}  # "@shop/core/discount": "./*"
# Definitions of the same names that the imports must not reach.
DECOYS = {(UI, "render"), (LEGACY, "charge"), (LEGACY, "formatPrice"), (LEGACY, "makeCart"), (LEGACY, "oldCheckout")}
Found = dict[tuple[str, int], set[tuple[tuple[str, str], str]]]


@pytest.fixture
def service(tmp_path: Path) -> Codefathom:
    project: Codefathom = fixture_project(tmp_path, "bindings-workspaces")
    return project


def calls(service: Codefathom, targets: set[tuple[str, str]]) -> Found:
    """(path, line) of each call bound to one of `targets` -> {(target, label)}."""
    found: Found = {}
    for path, qualified in targets:
        response = service.refs(qualified, fresh=False)
        ids = {s.id for s in response.symbols if s.path == path and s.qualified_name == qualified}
        assert ids, (path, qualified)
        for ref in response.references:
            if ref.target_id in ids and ref.kind == "call":
                found.setdefault((ref.path, ref.line), set()).add(((path, qualified), ref.label))
    return found


def dependencies(service: Codefathom, path: str) -> tuple[set[str], list[str]]:
    deps = service.deps(path, fresh=False)
    return {child.path for child in deps.roots[0].children}, deps.external[path]


def write(path: Path, text: str) -> None:
    """Write a file so that the next sync sees it changed, however coarse the clock."""
    existed = path.exists()
    before = path.stat().st_mtime_ns if existed else 0
    path.write_text(text)
    if existed and path.stat().st_mtime_ns <= before:
        stamp = before + 1_000_000_000
        os.utime(path, ns=(stamp, stamp))


def test_workspace_imports_resolve_to_the_sources_of_the_packages(service: Codefathom) -> None:
    service.index()
    assert dependencies(service, MAIN) == ({CORE, UTIL, DISCOUNT, PREVIEW, PAY}, ["@shop/legacy", "react"])
    assert dependencies(service, DISCOUNT) == ({UTIL}, [])
    assert dependencies(service, LEGACY) == ({HELPERS}, [])


def test_calls_through_workspace_packages_bind_to_the_definitions_they_mean(service: Codefathom) -> None:
    service.index()
    found = calls(service, {target for target, _ in EXPECTED.values()} | {t for t, _ in EXPECTED_TOO.values()} | DECOYS)
    for site, expected in EXPECTED.items():
        assert expected in found.get(site, set()), f"{site}: {found.get(site)}, not {expected}"
    for site, expected in EXPECTED_TOO.items():
        assert expected in found.get(site, set()), f"{site}: {found.get(site)}, not {expected}"
    for site, targets in found.items():
        assert not {target for target, _ in targets} & DECOYS, (site, targets)


def test_pnpm_workspace_yaml_declares_the_workspaces_once_it_is_written(service: Codefathom) -> None:
    root = service.root
    write(root / "package.json", json.dumps({"name": "shop-monorepo", "private": True}))
    service.index()
    assert dependencies(service, MAIN) == ({PREVIEW}, ["@shop/core", "@shop/core/discount", "@shop/core/util",
                                                       "@shop/legacy", "@shop/pay", "react"])
    (root / "pnpm-workspace.yaml").write_text(
        "# pnpm's workspaces\npackages:\n  - 'packages/*'   # every package\n  - \"!packages/legacy\"\n"
        "catalog:\n  react: ^18.0.0\n"
    )
    service.index()
    assert dependencies(service, MAIN) == ({CORE, UTIL, DISCOUNT, PREVIEW, PAY}, ["@shop/legacy", "react"])
    found = calls(service, {(CORE, "makeCart"), (PAY, "charge"), (LEGACY, "charge")})
    assert found[(MAIN, 10)] == {((CORE, "makeCart"), "exact")}
    assert found[(MAIN, 14)] == {((PAY, "charge"), "exact")}


def test_a_malformed_package_json_leaves_its_imports_external(service: Codefathom) -> None:
    service.index()
    write(service.root / "packages/core/package.json", '{"name": "@shop/core", "exports": {".": ')
    write(service.root / "pnpm-workspace.yaml", "packages: not-a-list\n")
    report = service.index()
    assert report.changed == 2
    children, external = dependencies(service, MAIN)
    assert children == {PREVIEW, PAY}
    assert external == ["@shop/core", "@shop/core/discount", "@shop/core/util", "@shop/legacy", "react"]
    assert (MAIN, 10) not in calls(service, {(CORE, "makeCart")})


@pytest.mark.parametrize(
    ("text", "globs"),
    [
        ("packages:\n  - packages/*\n  - 'apps/**'\n  - \"!**/test/**\"\n", ["packages/*", "apps/**", "!**/test/**"]),
        ("# a comment\npackages:\n- 'a/*' # inline\n\n- b\nonlyBuiltDependencies:\n  - esbuild\n", ["a/*", "b"]),
        ("packages: ['a/*', \"b/*\"]\n", ["a/*", "b/*"]),
        ("packages: [\n  'a/*',\n  'b'\n]\n", ["a/*", "b"]),
        ("catalog:\n  packages: x\n", []),  # no top-level `packages`
        ("packages: a/*\n", None),  # a scalar where the list belongs
        ("packages:\n  a: b\n", None),  # a mapping
        ("packages: ['a/*'\n", None),  # an unclosed flow list
        ("packages:\n  - 'a/*\n", None),  # an unclosed quote
    ],
)
def test_pnpm_workspace_yaml_packages_are_read_by_hand(text: str, globs: list[str] | None) -> None:
    assert yaml_packages(text) == globs


def test_bare_specifiers_split_into_package_and_subpath() -> None:
    assert split_specifier("@shop/core") == ("@shop/core", ".")
    assert split_specifier("@shop/core/a/b") == ("@shop/core", "./a/b")
    assert split_specifier("lodash/fp") == ("lodash", "./fp")
    assert split_specifier("@shop") is None
    assert split_specifier("node:fs") is None


def test_entry_points_in_every_form_the_manifests_write_them(tmp_path: Path) -> None:
    """Yarn's `{packages: [...]}` with a `**` glob; `exports` as a string, an array, nested
    conditions, a folder mapping and a closed (`null`) pattern that keeps its subpath external;
    `module` over `main`; no entry at all (src/index.ts); a subpath without `exports`; an entry
    that exists as written; `#name` through the package's own `imports`."""
    root = tmp_path / "forms"
    files = {
        "package.json": {"private": True, "workspaces": {"packages": ["libs/**"], "nohoist": ["**/x"]}},
        "libs/plain/package.json": {"name": "plain", "exports": "./dist/main.js"},
        "libs/plain/src/main.ts": "export function plainMain(): number { return 1; }\n",
        "libs/listed/package.json": {"name": "listed", "exports": [{"worker": "./gone.js"}, "./dist/entry.js"]},
        "libs/listed/src/entry.ts": "export function listedEntry(): number { return 1; }\n",
        "libs/group/nested/package.json": {
            "name": "@g/nested",
            "exports": {
                ".": {"node": {"import": "./dist/esm/node.mjs"}, "default": "./dist/cjs/other.js"},
                "./features/": "./dist/features/",
                "./private/*": None,
                "./*": "./dist/*.js",
            },
        },
        "libs/group/nested/src/node.mts": "export function nodeEntry(): number { return 1; }\n",
        "libs/group/nested/src/features/a.ts": "export function featureA(): number { return 1; }\n",
        "libs/group/nested/src/private/secret.ts": "export function secret(): number { return 1; }\n",
        "libs/mod/package.json": {"name": "mod", "module": "./esm/index.js", "main": "./cjs/main.js"},
        "libs/mod/src/index.ts": "export function modEntry(): number { return 1; }\n",
        "libs/mod/src/main.ts": "export function modMain(): number { return 1; }\n",
        "libs/bare/package.json": {"name": "bare", "imports": {"#deep/*": "./src/deep/*.ts", "#gone": "./x.js"}},
        "libs/bare/src/uses.ts": 'import { deepThing } from "#deep/thing";\nimport { x } from "#gone";\n',
        "libs/bare/src/index.ts": "export function bareEntry(): number { return 1; }\n",
        "libs/bare/src/deep/thing.ts": "export function deepThing(): number { return 1; }\n",
        "libs/built/package.json": {"name": "built", "main": "lib/index.js"},
        "libs/built/lib/index.js": "export function builtEntry() { return 1; }\n",
        "libs/built/src/index.ts": "export function builtSource(): number { return 1; }\n",
        "app.ts": (
            'import { plainMain } from "plain";\nimport { listedEntry } from "listed";\n'
            'import { nodeEntry } from "@g/nested";\nimport { featureA } from "@g/nested/features/a";\n'
            'import { secret } from "@g/nested/private/secret";\nimport { modEntry } from "mod";\n'
            'import { bareEntry } from "bare";\nimport { deepThing } from "bare/deep/thing";\n'
            'import { builtEntry } from "built";\n'
        ),
    }
    for path, content in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(content if isinstance(content, str) else json.dumps(content))
    service = Codefathom(root)
    service.index()
    children, external = dependencies(service, "app.ts")
    assert children == {
        "libs/plain/src/main.ts", "libs/listed/src/entry.ts", "libs/group/nested/src/node.mts",
        "libs/group/nested/src/features/a.ts", "libs/mod/src/index.ts", "libs/bare/src/index.ts",
        "libs/bare/src/deep/thing.ts", "libs/built/lib/index.js",
    }
    assert external == ["@g/nested/private/secret"]  # closed by `null`
    assert dependencies(service, "libs/bare/src/uses.ts") == ({"libs/bare/src/deep/thing.ts"}, ["#gone"])
