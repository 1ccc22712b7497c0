"""Scala references bound to the definitions they mean: packages from `package` clauses (an sbt layout
with main and test roots) shared with a Java file in both directions, wildcard, selector and renamed
imports (`{Repo, Index => Idx}`, `{Customer => Client}`), companion objects and `object` singletons,
class parameters as receivers (a parameter shadowing one), a trait mixed in, `override` and `super.`,
`List[Order]`'s `head`, a Scala 3 extension method; three classes share the method name `save`."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from conftest import assert_bindings, fixture_project

from codefathom.service import Codefathom

MAIN = "src/main/scala/com/shop"
SERVICE = f"{MAIN}/app/Service.scala"
ORDER = f"{MAIN}/model/Order.scala"
CUSTOMER = f"{MAIN}/model/Customer.scala"
PRICED = f"{MAIN}/model/Priced.scala"
REPO = f"{MAIN}/store/Repo.scala"
LABELS = f"{MAIN}/util/Labels.scala"
AUDIT = "src/main/java/com/shop/store/Audit.java"
REPO_TEST = "src/test/scala/com/shop/store/RepoTest.scala"

# (path, line) of each reference -> (qualified name of the definition it means, label)
EXPECTED = {
    (SERVICE, 9): ("com.shop.app.Runner", "exact"),  # a trait of the same package, mixed in
    (SERVICE, 11): ("com.shop.model.Order.create", "exact"),  # the companion object's def
    (SERVICE, 12): ("com.shop.store.Repo.add", "high"),  # repo: a class parameter
    (SERVICE, 13): ("com.shop.model.Entity.touch", "high"),  # inherited from the superclass
    (SERVICE, 14): ("com.shop.model.Priced.price", "high"),  # a trait's concrete method
    (SERVICE, 16): ("com.shop.store.Repo", "exact"),  # `new Repo(...)`
    (SERVICE, 17): ("com.shop.store.Repo.first", "high"),  # val store = new Repo(...)
    (SERVICE, 19): ("com.shop.model.Order.save", "exact"),  # List[Order].head
    (SERVICE, 21): ("com.shop.model.Order.total", "high"),  # for (each <- all)
    (SERVICE, 22): ("com.shop.app.Service.helper", "exact"),  # a method by its bare name
    (SERVICE, 23): ("com.shop.app.Service.helper", "exact"),  # this.helper()
    (SERVICE, 24): ("com.shop.app.Registry.register", "exact"),  # an `object`'s def
    (SERVICE, 25): ("com.shop.util.label", "high"),  # an imported extension method of Order
    (SERVICE, 26): ("com.shop.util.Labels.normalize", "exact"),
    (SERVICE, 29): ("com.shop.app.Service.run", "exact"),
    (ORDER, 3): ("com.shop.model.Entity", "exact"),  # `extends Entity`
    (ORDER, 4): ("com.shop.model.Priced.price", "exact"),  # a trait's method, bare name
    (ORDER, 6): ("com.shop.model.Entity.touch", "exact"),
    (ORDER, 7): ("com.shop.model.Customer.greet", "high"),  # customer: a case class parameter
    (ORDER, 10): ("com.shop.model.Entity.describe", "exact"),  # super.describe()
    (ORDER, 14): ("com.shop.model.Order", "exact"),
    (PRICED, 5): ("com.shop.model.Priced.base", "exact"),
    (REPO, 8): ("com.shop.store.Index.put", "high"),  # index: a class parameter
    (REPO, 9): ("com.shop.model.Order.save", "high"),
    (REPO, 10): ("com.shop.store.Audit.log", "exact"),  # a Java class of the same package
    (REPO, 13): ("com.shop.model.Customer.save", "high"),  # the parameter `index` shadows the field
    (LABELS, 6): ("com.shop.util.Labels.hidden", "exact"),
    (LABELS, 14): ("com.shop.util.Labels.normalize", "exact"),
    (AUDIT, 5): ("com.shop.store.Repo", "exact"),  # Java instantiating a Scala class
    (REPO_TEST, 8): ("com.shop.store.Repo", "exact"),  # same package, another source root
    (REPO_TEST, 9): ("com.shop.store.Repo.add", "high"),
    (REPO_TEST, 10): ("com.shop.store.Index.save", "exact"),
}
# Second references on a line.
EXPECTED_ON_LINE = {
    (SERVICE, 15): ("com.shop.model.Customer.greet", "high"),  # order.customer.greet()
    (SERVICE, 16): ("com.shop.store.Index", "exact"),  # `new Idx()`, through `{Index => Idx}`
    (SERVICE, 17): ("com.shop.model.Order.total", "high"),  # first() is declared to return an Order
    (ORDER, 14): ("com.shop.model.Customer", "exact"),  # `Customer("anon")`: the companion's apply
    (AUDIT, 5): ("com.shop.store.Repo.first", "exact"),
    (REPO_TEST, 9): ("com.shop.model.Order.create", "exact"),
}
INHERITS = {(ORDER, 3): ("com.shop.model.Priced", "exact")}  # `with Priced`
# o.save(): a lambda's parameter of no known type, and three classes define save().
NEVER_BOUND = {(SERVICE, 20)}
DECOYS = {"com.shop.model.Order.save", "com.shop.model.Customer.save", "com.shop.store.Index.save"}


@pytest.fixture
def service(tmp_path: Path) -> Codefathom:
    project: Codefathom = fixture_project(tmp_path, "bindings-scala")
    return project


def test_scala_references_bind_to_the_definition_they_mean(service: Codefathom) -> None:
    assert_bindings(service, (EXPECTED, EXPECTED_ON_LINE, INHERITS), {site: DECOYS for site in NEVER_BOUND})


def test_three_classes_with_one_method_name_keep_their_callers_apart(service: Codefathom) -> None:
    service.index()

    def callers(name: str) -> set[tuple[str, int]]:
        return {(r.path, r.line) for r in service.refs(name, fresh=False).references}

    assert callers("com.shop.model.Order.save") == {(SERVICE, 19), (REPO, 9)}
    assert callers("com.shop.model.Customer.save") == {(REPO, 13)}
    assert callers("com.shop.store.Index.save") == {(REPO_TEST, 10)}
    assert service.refs("save", fresh=False).unbound_elsewhere == 1  # o.save(), reported, not guessed


def test_members_of_library_types_are_never_guessed(service: Codefathom) -> None:
    service.index()
    with sqlite3.connect(service.settings.db_path) as conn:
        rows = conn.execute(
            "SELECT r.line, r.name, r.label FROM refs r JOIN files f ON f.id = r.file_id"
            " WHERE f.path = ? AND r.kind = 'call' AND r.name IN ('head', 'foreach', 'List', 'println', 'first')",
            (SERVICE,),
        ).fetchall()
    assert {(line, name, label) for line, name, label in rows} == {
        (18, "List", "builtin"), (19, "head", "builtin"), (20, "foreach", "builtin"), (25, "println", "builtin"),
        (17, "first", "high"),  # the project's: the receiver is a Repo
    }


def test_types_and_annotations_are_references(service: Codefathom) -> None:
    service.index()

    def uses(name: str) -> set[tuple[str, int]]:
        return {(r.path, r.line) for r in service.refs(name, kinds=("type",), fresh=False).references}

    assert {(SERVICE, 18), (REPO, 6), (REPO, 7), (REPO, 15), (LABELS, 13)} <= uses("com.shop.model.Order")
    assert (REPO, 12) in uses("com.shop.model.Customer")  # `index: Client`, through `{Customer => Client}`
    assert (REPO, 5) in uses("com.shop.store.Index")  # a class of the same package
    audited = service.refs("com.shop.app.Audited", fresh=False).references
    assert [(r.path, r.line, r.kind) for r in audited] == [(SERVICE, 8, "decorator")]


def test_imports_resolve_by_package_clauses_across_scala_and_java(service: Codefathom) -> None:
    service.index()
    with sqlite3.connect(service.settings.db_path) as conn:
        rows = conn.execute(
            "SELECT f.path, i.module, i.name, i.alias, s.qualified_name, i.external FROM imports i"
            " JOIN files f ON f.id = i.file_id LEFT JOIN symbols s ON s.id = i.target_symbol_id"
            " WHERE f.path IN (?, ?, ?) ORDER BY f.path, i.line, i.name",
            (SERVICE, REPO, REPO_TEST),
        ).fetchall()
    assert [(p.rpartition("/")[2], m, n, a, q, e) for p, m, n, a, q, e in rows] == [
        ("Service.scala", "com.shop.model", "*", "*", None, 0),  # `import com.shop.model._`
        ("Service.scala", "com.shop.store", "Index", "Idx", "com.shop.store.Index", 0),
        ("Service.scala", "com.shop.store", "Repo", "Repo", "com.shop.store.Repo", 0),
        ("Service.scala", "com.shop.util", "Labels", "Labels", "com.shop.util.Labels", 0),
        ("Service.scala", "com.shop.util", "label", "label", "com.shop.util.label", 0),  # a top-level extension
        ("Repo.scala", "com.shop.model", "Customer", "Client", "com.shop.model.Customer", 0),
        ("Repo.scala", "com.shop.model", "Order", "Order", "com.shop.model.Order", 0),
        ("RepoTest.scala", "com.shop.model", "Order", "Order", "com.shop.model.Order", 0),
        ("RepoTest.scala", "org.junit", "Test", "Test", None, 1),  # a library: external
    ]


def test_graph_verbs_answer_for_scala(service: Codefathom) -> None:
    service.index()
    callers = service.call_hierarchy("com.shop.store.Repo.add", fresh=False)
    assert {(c.symbol.qualified_name if c.symbol else None) for c in callers.roots[0].children} == {
        "com.shop.app.Service.run", "com.shop.store.RepoTest.addsAnOrder",
    }
    deps = service.deps(SERVICE, fresh=False)
    reached = {child.path for child in deps.roots[0].children}
    assert {REPO, ORDER, LABELS, f"{MAIN}/store/Index.scala", f"{MAIN}/app/Audited.scala"} <= reached
    impact = service.deps(f"{MAIN}/model/Entity.scala", reverse=True, fresh=False)
    dependents = {child.path for child in impact.roots[0].children}
    assert {ORDER, SERVICE} <= dependents


def test_dead_code_knows_scala_entry_points(service: Codefathom) -> None:
    service.index()
    found = {d.symbol.qualified_name: d for d in (lambda r: r.unused + r.public_api)(
        service.dead(include_tests=True, fresh=False))}
    left_out = {
        "com.shop.app.Main.main",  # the program's entry point
        "com.shop.store.RepoTest.addsAnOrder",  # @Test
        "com.shop.model.Order.base",  # override
        "com.shop.model.Order.describe",
        "com.shop.app.Service.go",
        "com.shop.model.Customer.apply",  # the companion's apply: `Customer("anon")`
        "com.shop.model.Order.create",  # a companion object's def, called
        "com.shop.util.label",  # an extension method, called
    }
    assert not left_out & found.keys()
    assert found["com.shop.util.orphan"].confidence == 0.5  # public unless it says otherwise
    assert found["com.shop.util.unseen"].confidence == 0.9  # private
    assert found["com.shop.util.Labels.secret"].confidence == 0.6  # an object's method
    assert found["com.shop.model.Customer.unused"].confidence == 0.6
