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


SHAPES = """package shapes

// MaxSides is the most sides a shape may have.
const MaxSides = 12

const (
	Unit = 1
	half = 0.5
)

var registry = map[string]Shape{}

// Shape is anything with an area.
type Shape interface {
	// Area returns the surface.
	Area() float64
	Perimeter() float64
}

// Named adds a name to a shape.
type Named interface {
	Shape
	Name() string
}

type square struct{ side float64 }

func (s square) Area() float64      { return s.side * s.side }
func (s square) Perimeter() float64 { return 4 * s.side }
func (s square) Name() string       { return "square" }

func Total(shapes []Shape) float64 {
	sum := 0.0
	for _, s := range shapes {
		sum += s.Area()
	}
	return sum * Unit
}

func Describe(n Named) string {
	if n.Perimeter() > MaxSides {
		return n.Name()
	}
	registry[n.Name()] = n
	return n.Name() + "!"
}
"""


def _refs(service: Codefathom, name: str) -> set[tuple[int, str, str]]:
    return {(r.line, r.label, r.kind) for r in service.refs(name, fresh=False).references}


def test_calls_through_an_interface_bind_to_its_declared_methods_and_package_constants_are_read(
    tmp_path: Path,
) -> None:
    (tmp_path / "go.mod").write_text("module example.com/shapes\n\ngo 1.19\n")
    (tmp_path / "shapes.go").write_text(SHAPES)
    with Codefathom(tmp_path) as service:
        service.index()
        declared = service.symbol("Shape.Area", fresh=False).symbols
        assert [(s.kind, s.qualified_name, s.start_line) for s in declared] == [("method", "shapes.Shape.Area", 16)]
        assert {s.qualified_name for s in service.symbol("Area", fresh=False).symbols} == {
            "shapes.Shape.Area", "shapes.square.Area",
        }
        assert _refs(service, "Shape.Area") == {(35, "high", "call")}  # s ranges over []Shape
        # Named embeds Shape: Perimeter is Shape's, Name its own.
        assert _refs(service, "Shape.Perimeter") == {(41, "high", "call")}
        assert {line for line, _, _ in _refs(service, "Named.Name")} == {42, 44, 45}
        assert _refs(service, "MaxSides") == {(41, "exact", "read")}
        assert _refs(service, "shapes.Unit") == {(37, "exact", "read")}
        assert _refs(service, "registry") == {(44, "exact", "read")}
        assert {s.kind for s in service.symbol("half", fresh=False).symbols} == {"constant"}
        dead = service.dead(fresh=False)
        listed = {item.symbol.qualified_name for item in dead.unused + dead.public_api}
        # The interface's methods are called through it, and square has all of them.
        assert not listed & {"shapes.Shape.Area", "shapes.Shape.Perimeter", "shapes.Named.Name", "shapes.square.Area"}
