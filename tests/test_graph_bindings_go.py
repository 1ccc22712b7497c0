"""Go references bound to the definitions they mean: packages resolved through go.mod (an aliased
import, a package spread over two files), methods reached through typed receivers, parameters,
constructors with a declared result, composite literals, `var x T`, `new(T)`, struct fields and
embedded structs, items of slices and maps; two types share the method name `Add` (and a package
function too)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from conftest import assert_bindings, fixture_project

from codefathom.service import Codefathom

# (path, line) of each reference -> (qualified name of the definition it means, label)
EXPECTED = {
    ("cmd/shop/main.go", 12): ("store.Store.Add", "high"),  # s *st.Store parameter
    ("cmd/shop/main.go", 16): ("store.NewStore", "exact"),  # st.NewStore() through the `st` alias
    ("cmd/shop/main.go", 17): ("store.Store.Add", "high"),  # s := st.NewStore() -> *Store
    ("cmd/shop/main.go", 18): ("main.fill", "exact"),
    ("cmd/shop/main.go", 20): ("store.Index.Add", "high"),  # var idx st.Index
    ("cmd/shop/main.go", 21): ("store.Store", "exact"),  # st.Store{}: an instantiation
    ("cmd/shop/main.go", 22): ("store.Store.Len", "high"),  # direct := st.Store{}
    ("cmd/shop/main.go", 23): ("store.Index", "exact"),  # &st.Index{}
    ("cmd/shop/main.go", 24): ("store.Index.Has", "high"),  # other := &st.Index{}
    ("cmd/shop/main.go", 26): ("main.unknown", "exact"),
    ("store/store.go", 21): ("store.Base", "exact"),  # embedded field: inherit
    ("store/store.go", 28): ("store.Store", "exact"),  # &Store{}
    ("store/store.go", 29): ("store.newIndex", "exact"),  # defined in another file of the package
    ("store/store.go", 36): ("store.Index.Add", "high"),  # s.index: a field of type *Index
    ("store/store.go", 37): ("store.Base.Describe", "high"),  # promoted from the embedded Base
    ("store/index.go", 9): ("store.Index", "exact"),
    ("store/index.go", 19): ("store.Index.Add", "high"),  # var other Index
    ("store/index.go", 25): ("store.Index.Add", "high"),  # n := new(Index)
    ("store/index.go", 26): ("store.Index.Has", "high"),
    # Containers: ranging over a []*Store field and a map of *Index, a ([]*Store, error) result.
    ("store/batch.go", 17): ("store.Store.Add", "high"),
    ("store/batch.go", 20): ("store.Index.Add", "high"),
    ("store/batch.go", 27): ("store.Store.Add", "high"),
    ("store/batch.go", 29): ("store.Store.Add", "exact"),  # loaded[0]
    ("store/batch.go", 30): ("store.Index.Add", "exact"),  # b.indexes["first"]
}
# Package-qualified calls, bound to the package's top-level function (util.Add, not a method Add).
EXPECTED_ON_LINE = {
    ("cmd/shop/main.go", 12): ("util.Trim", "exact"),
    ("cmd/shop/main.go", 25): ("util.Add", "exact"),
}
# unknown().Add: an interface value, and two methods named Add; never one of them.
NEVER_BOUND = {("cmd/shop/main.go", 26)}
DECOYS = {"store.Store.Add", "store.Index.Add", "util.Add"}


@pytest.fixture
def service(tmp_path: Path) -> Codefathom:
    project: Codefathom = fixture_project(tmp_path, "bindings-go")
    return project


def test_go_references_bind_to_the_definition_they_mean(service: Codefathom) -> None:
    assert_bindings(service, (EXPECTED, EXPECTED_ON_LINE), {site: DECOYS for site in NEVER_BOUND})


def test_two_types_with_one_method_name_keep_their_callers_apart(service: Codefathom) -> None:
    service.index()
    store_add = {(r.path, r.line) for r in service.refs("store.Store.Add", fresh=False).references}
    index_add = {(r.path, r.line) for r in service.refs("store.Index.Add", fresh=False).references}
    assert store_add == {
        ("cmd/shop/main.go", 12), ("cmd/shop/main.go", 17), ("store/batch.go", 17), ("store/batch.go", 27),
        ("store/batch.go", 29),
    }
    assert index_add == {
        ("cmd/shop/main.go", 20), ("store/store.go", 36), ("store/index.go", 19), ("store/index.go", 25),
        ("store/batch.go", 20), ("store/batch.go", 30),
    }


def test_imports_resolve_to_package_directories_and_outside_paths_are_external(service: Codefathom) -> None:
    service.index()
    with sqlite3.connect(service.settings.db_path) as conn:
        rows = conn.execute(
            "SELECT i.module, i.alias, t.path, i.external FROM imports i JOIN files f ON f.id = i.file_id"
            " LEFT JOIN files t ON t.id = i.target_file_id WHERE f.path = 'cmd/shop/main.go' ORDER BY i.line"
        ).fetchall()
    assert [(module, alias, (path or "").rpartition("/")[0], external) for module, alias, path, external in rows] == [
        ("fmt", "fmt", "", 1),
        ("example.com/shop/store", "st", "store", 0),
        ("example.com/shop/util", "util", "util", 0),
        ("example.com/shop/util", "_", "util", 0),
    ]
