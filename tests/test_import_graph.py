"""The storage seam, as imports: which packages may reach the store, and which a database driver.

Read from the source with ast, so an import added inside a function counts as much as one at the top.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "codefathom"

# Stages that never touch the index: they get what they need handed in (graph/ a GraphLookup).
WITHOUT_STORE = ("graph", "parse", "discover", "embed", "summarize")
# Modules every stage imports (records, protocols, settings): they must stay free of the store too.
SHARED = ("model.py", "graphsource.py", "config.py", "errors.py", "globs.py", "tokens.py", "gitcmd.py", "orphans.py")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    return _imports_in(path.read_text("utf-8"), _module_name(path), path.name == "__init__.py")


def _imports_in(source: str, module_name: str, is_package: bool) -> set[str]:
    """Every module the source imports, absolute (relative imports resolved against its package)."""
    package = module_name.split(".")
    if not is_package:
        package.pop()
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def _sources(where: str) -> list[Path]:
    target = PACKAGE / where
    return [target] if target.is_file() else sorted(target.rglob("*.py"))


def _reaching(paths: list[Path], prefix: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for path in paths:
        hits = sorted(m for m in _imports(path) if m == prefix or m.startswith(prefix + "."))
        if hits:
            out[str(path.relative_to(PACKAGE))] = hits
    return out


def test_the_package_is_where_this_test_looks() -> None:
    assert (PACKAGE / "store" / "__init__.py").is_file()
    assert all((PACKAGE / name).exists() for name in (*WITHOUT_STORE, *SHARED))


@pytest.mark.parametrize("where", [*WITHOUT_STORE, *SHARED])
def test_stages_import_nothing_of_the_store(where: str) -> None:
    assert _reaching(_sources(where), "codefathom.store") == {}


def test_no_module_outside_the_store_imports_a_database_driver() -> None:
    outside = [p for p in PACKAGE.rglob("*.py") if "store" not in p.relative_to(PACKAGE).parts[:1]]
    assert len(outside) > 50
    assert _reaching(outside, "sqlite3") == {}


def test_only_the_postgres_backend_imports_its_driver() -> None:
    # psycopg is an extra: the rest of codefathom, SQLite's store among it, must run without it.
    outside = [p for p in PACKAGE.rglob("*.py") if p.relative_to(PACKAGE).parts[:2] != ("store", "postgres")]
    assert _reaching(outside, "psycopg") == {}
    assert _reaching(outside, "codefathom.store.postgres") == {"store/__init__.py": ["codefathom.store.postgres",
                                                                                   "codefathom.store.postgres.PostgresStore"]}


def test_only_the_store_names_its_backend() -> None:
    # The rest of codefathom reaches the index through the package's interface (store/__init__.py:
    # Store, its records, open_store), never through the SQLite modules.
    outside = [p for p in PACKAGE.rglob("*.py") if "store" not in p.relative_to(PACKAGE).parts[:1]]
    assert _reaching(outside, "codefathom.store.sqlite") == {}


def test_relative_and_nested_imports_are_seen() -> None:
    source = "from ..store import Store\n\ndef f():\n    from . import sqlite\n    import sqlite3\n"
    assert {"codefathom.store", "codefathom.store.Store", "codefathom.graph", "codefathom.graph.sqlite",
            "sqlite3"} == _imports_in(source, "codefathom.graph.rank", False)
    assert "codefathom.graph.sqlite" in _imports_in("from . import sqlite", "codefathom.graph", True)
