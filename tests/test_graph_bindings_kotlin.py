"""Kotlin references bound to the definitions they mean: packages from `package` declarations (a Gradle
layout with main and test roots) shared with Java files in both directions, single-name, `*` and
aliased imports, imported top-level and extension functions, two classes named Event in two packages,
primary-constructor and `lateinit` properties as receivers (a parameter shadowing a property),
inherited methods (a superclass's, an interface's default), `super.`, companion objects and `object`
singletons, `listOf<Order>().first()`, an extension function's implicit receiver; three classes
(one of them Java) share the method name `save`."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from conftest import assert_bindings, fixture_project

from codefathom.service import Codefathom

MAIN = "src/main/kotlin/com/shop"
APP = f"{MAIN}/app/App.kt"
ORDER = f"{MAIN}/model/Order.kt"
PRICED = f"{MAIN}/model/Priced.kt"
REPO = f"{MAIN}/store/Repo.kt"
STRINGS = f"{MAIN}/util/Strings.kt"
INDEX = "src/main/java/com/shop/store/Index.java"
LEGACY = "src/main/java/com/shop/app/Legacy.java"
REPO_TEST = "src/test/kotlin/com/shop/store/RepoTest.kt"

# (path, line) of each reference -> (qualified name of the definition it means, label)
EXPECTED = {
    (APP, 12): ("com.shop.model.Order.create", "exact"),  # a companion object's function
    (APP, 13): ("com.shop.store.Repo.add", "high"),  # repo: a primary-constructor property
    (APP, 14): ("com.shop.model.Entity.touch", "high"),  # inherited from the superclass
    (APP, 15): ("com.shop.model.Priced.price", "high"),  # an interface's default method
    (APP, 16): ("com.shop.model.Customer.greet", "high"),  # order.customer: a constructor property
    (APP, 17): ("com.shop.audit.Event", "exact"),  # a single-name import beats model.* 's Event
    (APP, 18): ("com.shop.audit.Event.emit", "high"),
    (APP, 19): ("com.shop.store.Repo", "exact"),  # Store(...): a call of a class is an instantiation
    (APP, 20): ("com.shop.model.Order.total", "high"),  # first() is declared to return an Order
    (APP, 21): ("com.shop.model.Order.save", "exact"),  # List<Order>.first()
    (APP, 23): ("com.shop.model.Order.total", "high"),  # for (each in pending)
    (APP, 26): ("com.shop.model.Order.total", "exact"),  # listOf<Order>().first()
    (APP, 27): ("com.shop.util.label", "high"),  # an imported extension function of Order
    (APP, 28): ("com.shop.app.App.helper", "exact"),  # a method of the class, by its bare name
    (APP, 29): ("com.shop.app.App.helper", "exact"),
    (APP, 30): ("com.shop.app.Registry.register", "exact"),  # an `object`'s function
    (APP, 40): ("com.shop.app.Legacy", "exact"),  # a Java class of the same package
    (APP, 52): ("com.shop.model.Customer.greet", "high"),  # a top-level property's type
    (ORDER, 3): ("com.shop.model.Entity", "exact"),  # `: Entity()`
    (ORDER, 6): ("com.shop.model.Priced.price", "exact"),  # price(): inherited default, bare name
    (ORDER, 9): ("com.shop.model.Entity.touch", "exact"),
    (ORDER, 10): ("com.shop.model.Customer.greet", "high"),
    (ORDER, 11): ("com.shop.model.Event.log", "exact"),  # its own package's Event, not audit's
    (ORDER, 14): ("com.shop.model.Entity.describe", "exact"),  # super.describe()
    (ORDER, 17): ("com.shop.model.Customer", "exact"),
    (PRICED, 6): ("com.shop.model.Priced.base", "exact"),
    (REPO, 14): ("com.shop.store.Index.put", "high"),  # index: a Java class of the same package
    (REPO, 15): ("com.shop.store.Index.put", "high"),  # this.index
    (REPO, 16): ("com.shop.model.Order.save", "high"),
    (REPO, 22): ("com.shop.model.Customer.save", "high"),  # the parameter `index` shadows the property
    (REPO, 26): ("com.shop.model.Customer.save", "high"),  # a `lateinit var`
    (STRINGS, 9): ("com.shop.model.Order.total", "exact"),  # an extension function's implicit `this`
    (INDEX, 7): ("com.shop.model.Entity.touch", "high"),  # Java calling Kotlin
    (LEGACY, 8): ("com.shop.store.Repo.add", "high"),
    (LEGACY, 9): ("com.shop.model.Order.total", "high"),
    (REPO_TEST, 9): ("com.shop.store.Repo", "exact"),  # same package, another source root
    (REPO_TEST, 10): ("com.shop.store.Repo.add", "high"),
    (REPO_TEST, 11): ("com.shop.store.Index.save", "exact"),
}
# Second references on a line.
EXPECTED_ON_LINE = {
    (APP, 12): ("com.shop.util.normalize", "exact"),  # an imported top-level function
    (APP, 19): ("com.shop.store.Index", "exact"),  # a Java class, imported
    (APP, 20): ("com.shop.store.Repo.first", "high"),
    (APP, 31): ("com.shop.model.Order.describe", "high"),  # repo?.first()?.describe()
    (APP, 40): ("com.shop.app.Legacy.price", "exact"),
    (APP, 51): ("com.shop.app.App.run", "exact"),
    (REPO_TEST, 10): ("com.shop.model.Order.create", "exact"),
}
INHERITS = {(ORDER, 3): ("com.shop.model.Priced", "exact")}  # the interface
# it.save(): a lambda's implicit parameter of no known type, and three classes define save().
NEVER_BOUND = {(APP, 25)}
DECOYS = {"com.shop.model.Order.save", "com.shop.model.Customer.save", "com.shop.store.Index.save"}


@pytest.fixture
def service(tmp_path: Path) -> Codefathom:
    project: Codefathom = fixture_project(tmp_path, "bindings-kotlin")
    return project


def test_kotlin_references_bind_to_the_definition_they_mean(service: Codefathom) -> None:
    assert_bindings(service, (EXPECTED, EXPECTED_ON_LINE, INHERITS), {site: DECOYS for site in NEVER_BOUND})


def test_three_classes_with_one_method_name_keep_their_callers_apart(service: Codefathom) -> None:
    service.index()

    def callers(name: str) -> set[tuple[str, int]]:
        return {(r.path, r.line) for r in service.refs(name, fresh=False).references}

    assert callers("com.shop.model.Order.save") == {(APP, 21), (REPO, 16)}
    assert callers("com.shop.model.Customer.save") == {(REPO, 22), (REPO, 26)}
    assert callers("com.shop.store.Index.save") == {(REPO_TEST, 11)}
    assert service.refs("save", fresh=False).unbound_elsewhere == 1  # it.save(), reported, not guessed


def test_members_of_library_types_are_never_guessed(service: Codefathom) -> None:
    service.index()
    with sqlite3.connect(service.settings.db_path) as conn:
        rows = conn.execute(
            "SELECT r.line, r.name, r.label FROM refs r JOIN files f ON f.id = r.file_id"
            " WHERE f.path = ? AND r.kind = 'call' AND r.name IN ('first', 'forEach', 'add', 'trim', 'listOf')",
            (APP,),
        ).fetchall()
    assert {(line, name, label) for line, name, label in rows} == {
        (21, "first", "builtin"), (25, "forEach", "builtin"), (26, "listOf", "builtin"), (26, "first", "builtin"),
        (13, "add", "high"), (20, "first", "high"), (31, "first", "high"),  # the project's: receivers are Repos
    }


def test_types_written_in_signatures_are_references(service: Codefathom) -> None:
    service.index()
    uses = {(r.path, r.line) for r in service.refs("com.shop.model.Order", kinds=("type",), fresh=False).references}
    assert {(APP, 11), (APP, 26), (REPO, 8), (REPO, 12), (REPO, 19), (STRINGS, 9)} <= uses  # List<Order>, receiver
    aliased = {(r.path, r.line) for r in service.refs("com.shop.store.Repo", kinds=("type",), fresh=False).references}
    assert (APP, 10) in aliased  # `repo: Store`, through `import com.shop.store.Repo as Store`
    audit = service.refs("com.shop.audit.Audited", fresh=False).references
    assert [(r.path, r.line, r.kind) for r in audit] == [(REPO, 11, "decorator")]


def test_imports_resolve_by_package_declarations_across_java_and_kotlin(service: Codefathom) -> None:
    service.index()
    with sqlite3.connect(service.settings.db_path) as conn:
        rows = conn.execute(
            "SELECT f.path, i.module, i.name, i.alias, t.path, s.qualified_name, i.external FROM imports i"
            " JOIN files f ON f.id = i.file_id LEFT JOIN files t ON t.id = i.target_file_id"
            " LEFT JOIN symbols s ON s.id = i.target_symbol_id WHERE f.path IN (?, ?, ?) ORDER BY f.path, i.line",
            (APP, LEGACY, REPO_TEST),
        ).fetchall()
    assert [(p.rpartition("/")[2], m, n, a, (t or "").rpartition("/")[0], q, e) for p, m, n, a, t, q, e in rows] == [
        ("Legacy.java", "com.shop.model", "Order", "Order", f"{MAIN}/model", "com.shop.model.Order", 0),
        ("Legacy.java", "com.shop.store", "Repo", "Repo", f"{MAIN}/store", "com.shop.store.Repo", 0),
        ("App.kt", "com.shop.audit", "Event", "Event", f"{MAIN}/audit", "com.shop.audit.Event", 0),
        ("App.kt", "com.shop.model", "*", "*", f"{MAIN}/model", None, 0),
        ("App.kt", "com.shop.store", "Index", "Index", "src/main/java/com/shop/store", "com.shop.store.Index", 0),
        ("App.kt", "com.shop.store", "Repo", "Store", f"{MAIN}/store", "com.shop.store.Repo", 0),
        ("App.kt", "com.shop.util", "label", "label", f"{MAIN}/util", "com.shop.util.label", 0),
        ("App.kt", "com.shop.util", "normalize", "normalize", f"{MAIN}/util", "com.shop.util.normalize", 0),
        ("RepoTest.kt", "com.shop.model", "Order", "Order", f"{MAIN}/model", "com.shop.model.Order", 0),
        ("RepoTest.kt", "kotlin.test", "Test", "Test", "", None, 1),  # a library: external
    ]


def test_top_level_properties_are_qualified_by_the_package(service: Codefathom) -> None:
    service.index()
    names = {s.qualified_name for s in service.symbol("PREFIX", fresh=False).symbols}
    assert names == {"com.shop.util.PREFIX"}


def test_graph_verbs_answer_for_kotlin(service: Codefathom) -> None:
    service.index()
    callers = service.call_hierarchy("com.shop.store.Repo.add", fresh=False)
    assert {(c.symbol.qualified_name if c.symbol else None) for c in callers.roots[0].children} == {
        "com.shop.app.App.run", "com.shop.app.Legacy.price", "com.shop.store.RepoTest.addsAnOrder",
    }
    deps = service.deps(APP, fresh=False)
    reached = {child.path for child in deps.roots[0].children}
    assert {REPO, ORDER, STRINGS, LEGACY, INDEX, f"{MAIN}/audit/Event.kt"} <= reached
    impact = service.deps(f"{MAIN}/model/Entity.kt", reverse=True, fresh=False)
    dependents = {child.path for child in impact.roots[0].children}
    assert {ORDER, APP, INDEX} <= dependents  # Kotlin and Java files that use it


def test_dead_code_knows_kotlin_entry_points(service: Codefathom) -> None:
    service.index()
    found = {d.symbol.qualified_name: d for d in (lambda r: r.unused + r.public_api)(
        service.dead(include_tests=True, fresh=False))}
    left_out = {
        "com.shop.app.main",  # the program's entry point
        "com.shop.store.RepoTest.addsAnOrder",  # @Test
        "com.shop.store.RepoTest",  # a class of tests
        "com.shop.model.Order.base",  # override
        "com.shop.model.Order.describe",
        "com.shop.app.Registry.onEvent",  # registered with a framework by its annotation
        "com.shop.model.Order.create",  # a companion object's function, called
    }
    assert not left_out & found.keys()
    assert found["com.shop.util.orphan"].confidence == 0.5  # public unless it says otherwise
    assert found["com.shop.util.hidden"].confidence == 0.9  # private
    assert found["com.shop.model.Customer.unused"].confidence == 0.6
