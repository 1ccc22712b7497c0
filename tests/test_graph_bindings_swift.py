"""Swift references bound to the definitions they mean: a Swift package whose targets are modules (files
of one target see each other's top level, `import Shop` another target's), an extension adding
methods from another file, a protocol's default implementation, inheritance with `override` and
`super`, implicit `self`, a parameter shadowing a property, `if let`/`guard let`, `as?`, a static
`shared` instance; a class, a struct and another class share the method name `save`."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from conftest import assert_bindings, fixture_project

from codefathom.service import Codefathom

APP = "Sources/App/App.swift"
REGISTRY = "Sources/App/Registry.swift"
ORDER = "Sources/Shop/Order.swift"
PRICED = "Sources/Shop/Priced.swift"
REPO = "Sources/Shop/Repo.swift"
EXTRAS = "Sources/Shop/Repo+Extras.swift"
REPO_TESTS = "Tests/ShopTests/RepoTests.swift"

# (path, line) of each reference -> (qualified name of the definition it means, label)
EXPECTED = {
    (APP, 7): ("Repo", "exact"),  # `Repo()`: a call of a type is an instantiation, through `import Shop`
    (APP, 9): ("Repo.add", "high"),  # `let repo = Repo()`
    (APP, 10): ("Repo.addAll", "high"),  # a method an extension in another file adds
    (APP, 11): ("Priced.price", "high"),  # a protocol's default implementation
    (APP, 15): ("Registry.log", "high"),  # `let shared = Registry.shared`: a static stored property
    (APP, 17): ("helper", "exact"),  # a top-level function of the same target
    (APP, 21): ("Order.save", "high"),  # `if let found = maybe`
    (APP, 24): ("Entity.touch", "high"),  # `guard let other = repo.first()`: the declared result, inherited
    (REGISTRY, 4): ("Registry", "exact"),
    (ORDER, 8): ("Entity", "exact"),  # the superclass
    (ORDER, 17): ("Entity.touch", "exact"),  # implicit self, inherited
    (ORDER, 22): ("Entity.describe", "exact"),  # super.describe() from the override
    (PRICED, 6): ("Priced.base", "exact"),  # implicit self in a protocol extension
    (REPO, 6): ("Index", "exact"),
    (REPO, 11): ("Index.put", "high"),  # a stored property, by its bare name
    (REPO, 12): ("Index.put", "high"),  # self.index
    (REPO, 13): ("Order.save", "high"),
    (REPO, 17): ("Customer.save", "high"),  # the parameter `index` shadows the property `index`
    (EXTRAS, 4): ("Repo.add", "exact"),  # implicit self in an extension: the type's own method
    (REPO_TESTS, 6): ("Repo", "exact"),  # `@testable import Shop`
    (REPO_TESTS, 8): ("Repo.count", "high"),
}
# Second references on a line.
EXPECTED_ON_LINE = {
    (APP, 8): ("Customer", "exact"),
    (APP, 12): ("Customer.greet", "high"),  # order.customer.greet()
    (APP, 13): ("Order.describe", "high"),  # repo.first()?.describe(): the override, through Order?
    (APP, 16): ("Registry.log", "high"),  # Registry.shared.log(order)
    (APP, 26): ("Order.save", "exact"),  # (entity as? Order)?.save()
    (ORDER, 18): ("Customer.greet", "high"),  # a stored property of a struct type
}
INHERITS = {(ORDER, 8): ("Priced", "exact")}  # the protocol it conforms to
# $0.save(): a closure's implicit parameter of no known type, and three types define save().
NEVER_BOUND = {(APP, 27)}
DECOYS = {"Order.save", "Customer.save", "Index.save"}


@pytest.fixture
def service(tmp_path: Path) -> Codefathom:
    project: Codefathom = fixture_project(tmp_path, "bindings-swift")
    return project


def test_swift_references_bind_to_the_definition_they_mean(service: Codefathom) -> None:
    assert_bindings(service, (EXPECTED, EXPECTED_ON_LINE, INHERITS), {site: DECOYS for site in NEVER_BOUND})


def test_types_sharing_a_method_name_keep_their_callers_apart(service: Codefathom) -> None:
    service.index()

    def callers(name: str) -> set[tuple[str, int]]:
        return {(r.path, r.line) for r in service.refs(name, fresh=False).references}

    assert callers("Order.save") == {(APP, 21), (APP, 26), (REPO, 13)}
    assert callers("Customer.save") == {(REPO, 17)}
    assert callers("Index.save") == set()


def test_members_of_library_types_are_never_guessed(service: Codefathom) -> None:
    service.index()
    with sqlite3.connect(service.settings.db_path) as conn:
        rows = conn.execute(
            "SELECT f.path, r.line, r.name, r.label FROM refs r JOIN files f ON f.id = r.file_id"
            " WHERE r.name IN ('append', 'forEach', 'first', 'count', 'print', 'XCTAssertEqual')",
        ).fetchall()
    assert {(path, line, name, label) for path, line, name, label in rows} == {
        (REPO, 10, "append", "builtin"), (REPO, 21, "first", "builtin"), (EXTRAS, 8, "count", "builtin"),
        (APP, 27, "forEach", "builtin"), (APP, 18, "print", "builtin"),
        (REPO_TESTS, 8, "XCTAssertEqual", "external"),  # XCTest is imported, not indexed
        # the project's: receivers are Repos
        (APP, 13, "first", "high"), (APP, 19, "first", "high"), (APP, 23, "first", "high"),
        (REPO_TESTS, 8, "count", "high"),
    }


def test_imports_name_targets_of_the_package(service: Codefathom) -> None:
    service.index()
    with sqlite3.connect(service.settings.db_path) as conn:
        rows = conn.execute(
            "SELECT f.path, i.module, i.name, t.path, i.external FROM imports i JOIN files f ON f.id = i.file_id"
            " LEFT JOIN files t ON t.id = i.target_file_id WHERE f.path IN (?, ?) ORDER BY f.path, i.line",
            (APP, REPO_TESTS),
        ).fetchall()
    assert [(p, m, n, (t or "").rpartition("/")[0], e) for p, m, n, t, e in rows] == [
        (APP, "Foundation", "*", "", 1),  # the SDK: external
        (APP, "Shop", "*", "Sources/Shop", 0),
        (REPO_TESTS, "XCTest", "*", "", 1),
        (REPO_TESTS, "Shop", "*", "Sources/Shop", 0),
    ]


def test_graph_verbs_answer_for_swift(service: Codefathom) -> None:
    service.index()
    callers = service.call_hierarchy("Repo.add", fresh=False)
    assert {(c.symbol.qualified_name if c.symbol else None) for c in callers.roots[0].children} == {
        "App.main", "Repo.addAll", "RepoTests.testAdd",
    }
    deps = service.deps(APP, fresh=False)
    assert {REPO, ORDER, EXTRAS, REGISTRY} <= {child.path for child in deps.roots[0].children}
    impact = service.deps(EXTRAS, reverse=True, fresh=False)
    assert {APP, REPO_TESTS} <= {child.path for child in impact.roots[0].children}  # callers of its methods


def test_properties_read_through_receivers_are_references(service: Codefathom) -> None:
    service.index()

    def readers(name: str) -> set[tuple[str, int, str]]:
        return {(r.path, r.line, r.label) for r in service.refs(name, kinds=("read",), fresh=False).references}

    assert readers("Order.total") == {(APP, 32, "high")}  # a typed parameter's property
    assert {(ORDER, 13, "exact"), (ORDER, 18, "exact")} <= readers("Order.customer")  # self., implicit self
    assert readers("Registry.shared") == {(APP, 14, "exact"), (APP, 16, "exact")}


def test_dead_code_knows_swift_entry_points(service: Codefathom) -> None:
    service.index()
    found = {d.symbol.qualified_name for d in (lambda r: r.unused + r.public_api)(
        service.dead(include_tests=True, fresh=False))}
    left_out = {
        "App.main",  # @main's entry point
        "Order.init", "Repo.init",  # run by `Order(...)`, `Repo()`
        "Order.describe",  # override
        "RepoTests.testAdd",  # XCTest runs test* methods
        "Repo.add", "Order.save", "Customer.save",  # called
    }
    assert not left_out & found
    assert {"Index.save", "Repo.register"} <= found  # nothing calls them


def test_an_extension_is_part_of_its_type_not_a_definition_of_its_name(service: Codefathom) -> None:
    service.index()
    # `extension Repo` holds methods of Repo; the name Repo means the type declared in Repo.swift,
    # also in the file of the extension.
    repos = [s for s in service.symbol("Repo", kinds=["class"], fresh=False).symbols if s.qualified_name == "Repo"]
    assert [s.path for s in repos] == [REPO]
    made = [r for r in service.refs("Repo", fresh=False).references if r.path == EXTRAS and r.kind == "call"]
    assert made and {r.target_id for r in made} == {repos[0].id} and made[0].label == "exact"
