"""TypeScript bare imports through tsconfig: `paths` (a wildcard with two targets, an exact key)
and `baseUrl`, set in a base config reached through an `extends` chain that cycles back, in files
with comments and trailing commas; a malformed tsconfig leaves its imports external."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import FIXTURES

from codefathom.service import Codefathom

MAIN = "src/main.ts"
# (path, line) of each call -> (path and qualified name of the definition it means, label)
EXPECTED = {
    (MAIN, 8): (("src/app/models.ts", "Account"), "exact"),  # "@app/models": the first target
    (MAIN, 9): (("src/app/models.ts", "Account.find"), "high"),
    (MAIN, 10): (("src/fallback/extra.ts", "extra"), "exact"),  # "@app/extra": the second target
    (MAIN, 11): (("src/settings/index.ts", "load"), "exact"),  # "config": an exact key
    (MAIN, 13): (("src/utils/format.ts", "format"), "exact"),  # "utils/format": under baseUrl
}
DECOYS = {("src/decoy.ts", name) for name in ("Other.find", "extra", "load", "format")}


@pytest.fixture
def service(tmp_path: Path) -> Codefathom:
    shutil.copytree(FIXTURES / "repos" / "bindings-tspaths", tmp_path / "bindings-tspaths")
    return Codefathom(tmp_path / "bindings-tspaths")


def test_bare_imports_resolve_through_tsconfig_paths_and_base_url(service: Codefathom) -> None:
    service.index()
    deps = service.deps(MAIN, fresh=False)
    assert {child.path for child in deps.roots[0].children} == {
        "src/app/models.ts", "src/fallback/extra.ts", "src/settings/index.ts", "src/utils/format.ts",
    }
    assert deps.external[MAIN] == ["react"]  # matches no pattern and nothing under baseUrl


def test_calls_through_tsconfig_imports_bind_to_the_definition_they_mean(service: Codefathom) -> None:
    service.index()
    found: dict[tuple[str, int], set[tuple[tuple[str, str], str]]] = {}
    for path, qualified in {target for target, _ in EXPECTED.values()} | DECOYS:
        response = service.refs(qualified, fresh=False)
        ids = {s.id for s in response.symbols if s.path == path and s.qualified_name == qualified}
        assert ids, (path, qualified)
        for ref in response.references:
            if ref.target_id in ids and ref.kind == "call":
                found.setdefault((ref.path, ref.line), set()).add(((path, qualified), ref.label))
    for site, expected in EXPECTED.items():
        assert found.get(site) == {expected}, f"{site}: {found.get(site)}, not {expected}"


def test_a_malformed_tsconfig_leaves_bare_imports_external(service: Codefathom) -> None:
    service.index()
    deps = service.deps("broken/main.ts", fresh=False)
    assert not deps.roots[0].children
    assert deps.external["broken/main.ts"] == ["@lib/helper", "lib/helper"]
