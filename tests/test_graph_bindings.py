"""References bound to the definitions they mean, on a fixture full of traps: the same method name
on several classes, inheritance and super(), aliased and package re-exported imports, typed
attributes and return types, shadowing by a nested function, and members of primitives; and in
app/shapes.py the traps a run against jedi on real projects showed (bench/graph_accuracy.py):
class bodies not seen from methods, parameters shadowing globals, re-exports of outside names,
overloads, imports inside functions, aliases, typed containers, `with`/`except` targets, `cast`,
return types, properties, classes inside functions, bases outside the project, `*` imports."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import FIXTURES, bound_refs, index_rows

from codefathom.service import Codefathom, indexer

# (path, line) of each reference -> (qualified name of the definition it means, label)
EXPECTED = {
    ("app/models.py", 9): ("app.models.Base", "exact"),  # class User(Base)
    ("app/models.py", 11): ("app.models.User.save", "exact"),  # self.save() inside User
    ("app/models.py", 14): ("app.models.Base.save", "exact"),  # super().save()
    ("app/repo.py", 7): ("app.models.User", "exact"),  # U() with `User as U`
    ("app/repo.py", 10): ("app.models.User.find", "high"),  # self.model.find, self.model = U()
    ("app/repo.py", 18): ("app.repo.make_user", "exact"),
    ("app/repo.py", 19): ("app.models.User.find", "high"),  # user = make_user() -> U
    ("app/repo.py", 20): ("app.models.Order", "exact"),  # models.Order() via `from . import models`
    ("app/repo.py", 21): ("app.models.Order.find", "high"),
    ("app/repo.py", 27): ("app.models.Order.find", "high"),  # order: "models.Order"
    ("app/service.py", 7): ("app.models.User", "exact"),  # `from app import User`, re-exported
    ("app/service.py", 9): ("app.models.User.save", "exact"),  # Admin -> User.save through the MRO
    ("app/service.py", 12): ("app.models.User.find", "exact"),
    ("app/service.py", 17): ("app.models.User.save", "high"),
    ("app/service.py", 18): ("app.repo.load", "exact"),  # r.load with `import app.repo as r`
    ("app/service.py", 26): ("app.service.outer.helper", "exact"),  # the nested helper, not helpers.helper
    # app/shapes.py: one trap per line, described there
    ("app/shapes.py", 18): ("app.shapes.render", "exact"),  # not Canvas.render: class bodies are not seen
    ("app/shapes.py", 46): ("app.shapes.pick", "exact"),
    ("app/shapes.py", 56): ("app.helpers.helper", "exact"),  # imported inside the function
    ("app/shapes.py", 64): ("app.shapes.Canvas.draw", "high"),  # self.canvas = canvas: "Canvas"
    ("app/shapes.py", 71): ("app.shapes.Easel.renderer", "exact"),
    ("app/shapes.py", 79): ("app.shapes.Canvas.draw", "high"),  # _C = Canvas
    ("app/shapes.py", 80): ("app.shapes.Canvas.draw", "high"),  # Shape = Canvas
    ("app/shapes.py", 85): ("app.models.User.save", "high"),  # for user in users: List[User]
    ("app/shapes.py", 101): ("app.shapes.Session.commit", "high"),  # with Session() as session
    ("app/shapes.py", 113): ("app.shapes.Oops.explain", "high"),  # except Oops as error
    ("app/shapes.py", 117): ("app.shapes.Canvas.draw", "high"),  # cast(Canvas, thing)
    ("app/shapes.py", 125): ("app.shapes.Canvas.draw", "high"),  # make_canvas() -> Canvas
    ("app/shapes.py", 139): ("app.shapes.Brush.stroke", "high"),  # Brush.create() -> "Brush"
    ("app/shapes.py", 149): ("app.shapes.clock", "exact"),  # assigned in an if block
    ("app/shapes.py", 154): ("app.shapes.Canvas.draw", "high"),  # reassigned later to a Brush
    ("app/shapes.py", 162): ("app.shapes.Canvas.draw", "exact"),  # super() in a class inside a function
    ("app/shapes.py", 169): ("app.shapes.Canvas.draw", "likely"),  # after UserDict in the MRO
    ("app/shapes.py", 173): ("app.models.User", "exact"),  # app.models.User() after `import app.models`
    ("app/shapes.py", 182): ("app.shapes.Canvas.draw", "high"),  # a property's return annotation
    ("app/shapes.py", 190): ("app.shapes.Canvas.draw", "high"),  # a dataclass field
    ("app/shapes.py", 195): ("app.shapes.Canvas.draw", "high"),  # t.List[Canvas]
    ("app/shapes.py", 207): ("app.shapes.fallback", "likely"),  # try: import / except: def
    ("app/star.py", 5): ("app.shapes.make_canvas", "exact"),  # from .shapes import *
}
NEVER_BOUND = {
    ("app/repo.py", 23),  # text.find: a str
    ("app/service.py", 30),  # thing.find: unknown
    ("app/shapes.py", 21),  # render(1): the parameter
    ("app/shapes.py", 24),  # urlparse: urllib's, re-exported by app.compat
    ("app/shapes.py", 33),  # "-".join: a str
    ("app/shapes.py", 34),  # thing.join: unknown, and a str method too
}
# Definitions the NEVER_BOUND references could wrongly be bound to.
DECOYS = {
    "app.helpers.helper", "app.models.Base.find", "app.shapes.Canvas.render", "app.shapes.Rope.join", "app.compat",
}


@pytest.fixture
def service(tmp_path: Path) -> Codefathom:
    shutil.copytree(FIXTURES / "repos" / "bindings", tmp_path / "bindings")
    return Codefathom(tmp_path / "bindings")


def test_references_bind_to_the_definition_they_mean(service: Codefathom) -> None:
    service.index()
    found = bound_refs(service, {q for q, _ in EXPECTED.values()} | DECOYS)
    for site, expected in EXPECTED.items():
        assert expected in found.get(site, set()), f"{site}: {found.get(site)} has no {expected}"
    assert not NEVER_BOUND & found.keys(), {site: found[site] for site in NEVER_BOUND & found.keys()}


def test_a_call_binds_to_the_implementation_not_an_overload_stub(service: Codefathom) -> None:
    service.index()
    response = service.refs("app.shapes.pick", fresh=False)
    implementation = max(response.symbols, key=lambda s: s.start_line)
    assert len(response.symbols) == 3
    assert [(r.line, r.target_id) for r in response.references if r.kind == "call"] == [(46, implementation.id)]


def test_ambiguous_members_stay_unbound_and_are_counted(service: Codefathom) -> None:
    service.index()
    response = service.refs("Order.find", fresh=False)
    assert {(r.path, r.line) for r in response.references} == {("app/repo.py", 21), ("app/repo.py", 27)}
    assert response.unbound_elsewhere == 1  # thing.find; text.find is a str method, not ours


def test_editing_a_file_rebinds_the_references_that_pointed_into_it(service: Codefathom) -> None:
    service.index()
    models = service.root / "app" / "models.py"
    old = "    def find(self, key):\n        return self.save()"
    models.write_text(models.read_text().replace(old, old.replace("find", "lookup")))
    service.index()
    assert not service.refs("User.find", fresh=False).symbols
    inherited = {(r.path, r.line) for r in service.refs("Base.find", fresh=False).references}
    assert {("app/repo.py", 10), ("app/repo.py", 19), ("app/service.py", 12)} <= inherited


def test_editing_a_file_keeps_the_ranks_of_its_definitions(service: Codefathom) -> None:
    # A small edit does not recompute PageRank (see indexer.RERANK_MIN_FILES); the edited file's
    # definitions, written anew, keep the ranks they had instead of falling to nothing.
    service.index()
    ranks = "SELECT s.qualified_name, s.rank FROM symbols s JOIN files f ON f.id = s.file_id" \
        " WHERE f.path = 'app/models.py' ORDER BY s.qualified_name"
    before = index_rows(service, ranks)
    assert dict(before)["app.models.User.save"] > 0
    models = service.root / "app" / "models.py"
    models.write_text(models.read_text() + "\n\ndef added():\n    return 1\n")
    assert service.index().updated == 1
    after = dict(index_rows(service, ranks))
    assert after.pop("app.models.added") == 0.0  # new: no rank until ranks are recomputed
    assert sorted(after.items()) == before


def test_deleting_a_definition_leaves_its_callers_unbound_not_dangling(service: Codefathom) -> None:
    service.index()
    (service.root / "app" / "helpers.py").unlink()
    (service.root / "app" / "repo.py").write_text("def load(order):\n    return order\n")
    service.index()
    assert [(r.path, r.line) for r in service.refs("app.repo.load", fresh=False).references] == [("app/service.py", 18)]
    assert service.refs("make_user", fresh=False).symbols == []


def test_a_file_removed_after_a_first_index_takes_its_graph_rows_with_it(service: Codefathom) -> None:
    # The first sync fills an empty index without foreign-key checks; the next, in the same
    # process and connection, must have them back, or the removal would leave orphans behind.
    service.index()
    assert index_rows(service, "SELECT count(*) FROM symbols s JOIN files f ON f.id = s.file_id"
                      " WHERE f.path = 'app/helpers.py'") != [(0,)]
    (service.root / "app" / "helpers.py").unlink()
    service.index()
    assert index_rows(service, "PRAGMA foreign_key_check") == []
    for table in ("units", "symbols", "refs", "imports", "hints"):
        orphans = f"SELECT count(*) FROM {table} WHERE file_id NOT IN (SELECT id FROM files)"
        assert index_rows(service, orphans) == [(0,)], table


def test_a_sync_stopped_before_binding_is_bound_by_the_next(
    service: Codefathom, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Files are written in batches that commit one by one; binding comes last. A sync stopped in
    # between leaves written files whose references nobody bound: the next sync, which sees no
    # change on disk, must bind them all.
    def stopped(*args: object, **kwargs: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(indexer, "rebind", stopped)
    with pytest.raises(KeyboardInterrupt):
        service.index()
    assert index_rows(service, "SELECT count(*) FROM files") != [(0,)]
    assert index_rows(service, "SELECT count(*) FROM refs WHERE target_id IS NOT NULL") == [(0,)]
    monkeypatch.undo()
    service.index()
    found = bound_refs(service, {q for q, _ in EXPECTED.values()})
    for site, expected in EXPECTED.items():
        assert expected in found.get(site, set()), f"{site}: {found.get(site)} has no {expected}"
    assert service.index().refs_bound == 0  # once bound, a sync without changes binds nothing again
