"""References bound to the definitions they mean, on a fixture full of traps: the same method name
on several classes, inheritance and super(), aliased and package re-exported imports, typed
attributes and return types, shadowing by a nested function, and members of primitives."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import FIXTURES

from codefathom.service import Codefathom

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
}
NEVER_BOUND = {("app/repo.py", 23), ("app/service.py", 30)}  # text.find (a str), thing.find (unknown)


@pytest.fixture
def service(tmp_path: Path) -> Codefathom:
    shutil.copytree(FIXTURES / "repos" / "bindings", tmp_path / "bindings")
    return Codefathom(tmp_path / "bindings")


def bound_refs(service: Codefathom) -> dict[tuple[str, int], tuple[str, str]]:
    found = {}
    for qualified, _label in set(EXPECTED.values()) | {("app.helpers.helper", ""), ("app.models.Base.find", "")}:
        response = service.refs(qualified, fresh=False)
        for symbol in response.symbols:
            assert symbol.qualified_name == qualified
        for ref in response.references:
            if ref.kind in ("call", "inherit"):
                found[(ref.path, ref.line)] = (qualified, ref.label)
    return found


def test_references_bind_to_the_definition_they_mean(service: Codefathom) -> None:
    service.index()
    found = bound_refs(service)
    for site, expected in EXPECTED.items():
        assert found.get(site) == expected, f"{site}: {found.get(site)} != {expected}"
    assert not NEVER_BOUND & found.keys()


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


def test_deleting_a_definition_leaves_its_callers_unbound_not_dangling(service: Codefathom) -> None:
    service.index()
    (service.root / "app" / "helpers.py").unlink()
    (service.root / "app" / "repo.py").write_text("def load(order):\n    return order\n")
    service.index()
    assert [(r.path, r.line) for r in service.refs("app.repo.load", fresh=False).references] == [("app/service.py", 18)]
    assert service.refs("make_user", fresh=False).symbols == []
