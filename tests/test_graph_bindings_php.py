"""PHP references bound to the definitions they mean: namespaces from `namespace` declarations, `use`
of a class, an aliased `use ... as` that picks one of two classes named Event, a group `use A\\{B, C as
D}`, `use function`, a namespace imported and written as a qualifier (`Model\\Order`), fully qualified
names, composer.json's psr-4 map finding a class its file does not namespace, `extends`, `implements`
and a trait's `use`, `parent::`, `self::`, typed parameters, properties and promoted constructor
parameters as receivers (a parameter shadowing a property of the same name), declared return types;
three classes share the method name `save`."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from conftest import assert_bindings, fixture_project

from codefathom.parse.grammars import parser_for
from codefathom.parse.hooks.php import rewrite
from codefathom.parse.languages import LanguageSpec, language_for
from codefathom.service import Codefathom

APP = "src/App.php"
ORDER = "src/Model/Order.php"
CUSTOMER = "src/Model/Customer.php"
REPO = "src/Store/Repo.php"
TEST = "tests/Store/RepoTest.php"

# (path, line) of each reference -> (qualified name of the definition it means, label)
EXPECTED = {
    (APP, 12): ("Shop.Store.Repo", "exact"),  # new Repo(): use Shop\Store\Repo
    (APP, 13): ("Shop.Model.Order.build", "exact"),  # Model\Order::build(): use Shop\Model
    (APP, 14): ("Shop.Store.Repo.add", "high"),  # $repo = new Repo()
    (APP, 15): ("Shop.Model.Order.buyer", "high"),  # build() is declared to return self
    (APP, 16): ("Shop.Model.Customer", "exact"),  # new \Shop\Model\Customer()
    (APP, 17): ("Shop.Model.Customer.save", "high"),
    (APP, 18): ("Shop.Util.money", "exact"),  # Util\money(): relative to the namespace Shop
    (APP, 19): ("Shop.App.helper", "exact"),  # $this->helper()
    (APP, 20): ("Shop.App.make", "exact"),  # self::make()
    (ORDER, 7): ("Shop.Model.Entity", "exact"),  # extends Entity: the same namespace, another file
    (ORDER, 9): ("Shop.Audit.Loggable", "exact"),  # use Loggable; a trait
    (ORDER, 22): ("Shop.Model.Entity.touch", "exact"),  # inherited from the base class
    (ORDER, 23): ("Shop.Audit.Loggable.log", "exact"),  # from the trait
    (ORDER, 24): ("Shop.Model.Customer.greet", "high"),  # a promoted constructor parameter
    (ORDER, 25): ("Shop.Model.Event", "exact"),  # its own namespace's Event, not Audit's
    (ORDER, 35): ("Shop.Model.Entity.describe", "exact"),  # parent::describe()
    (CUSTOMER, 9): ("Shop.Model.Customer.greet", "exact"),
    (REPO, 17): ("Shop.Store.Index", "exact"),
    (REPO, 22): ("Shop.Store.Index.put", "high"),  # a typed property
    (REPO, 23): ("Shop.Model.Order.save", "high"),  # a typed parameter
    (REPO, 24): ("Shop.Audit.Event", "exact"),  # use Shop\Audit\Event as AuditEvent
    (REPO, 25): ("Shop.Audit.Event.emit", "high"),
    (REPO, 26): ("Shop.Model.Event", "exact"),  # use Shop\Model\{Customer, Event as ModelEvent}
    (REPO, 27): ("Shop.Util.money", "exact"),  # use function Shop\Util\money
    (REPO, 33): ("Shop.Model.Customer.save", "high"),  # the parameter $index, not the property
    (REPO, 34): ("Shop.Store.Index.save", "high"),  # $this->index
    (TEST, 15): ("Shop.Store.Repo", "exact"),
    (TEST, 16): ("Shop.Store.Repo.saveAll", "high"),
    (TEST, 17): ("Shop.Store.Index.save", "exact"),  # (new Index())->save()
    (TEST, 18): ("Report", "exact"),  # psr-4: Shop\Legacy\Report is src/Legacy/Report.php
}
EXPECTED_ON_LINE = {
    (APP, 13): ("Shop.Model.Customer", "exact"),
    (APP, 15): ("Shop.Model.Customer.greet", "high"),
    (APP, 20): ("Shop.App.run", "high"),  # make() is declared to return static
    (ORDER, 25): ("Shop.Model.Event.log", "exact"),
    (REPO, 26): ("Shop.Model.Event.log", "exact"),
    (REPO, 27): ("Shop.Model.Order.price", "high"),
    (TEST, 17): ("Shop.Store.Index", "exact"),
    (TEST, 18): ("Report.render", "exact"),
}
INHERITS = {(ORDER, 7): ("Shop.Model.Priced", "exact")}  # implements Priced
# $item->save() on an untyped foreach variable: three classes define save().
NEVER_BOUND = {(REPO, 40): {"Shop.Model.Order.save", "Shop.Model.Customer.save", "Shop.Store.Index.save"}}


@pytest.fixture
def service(tmp_path: Path) -> Codefathom:
    project: Codefathom = fixture_project(tmp_path, "bindings-php")
    return project


def test_php_references_bind_to_the_definition_they_mean(service: Codefathom) -> None:
    assert_bindings(service, (EXPECTED, EXPECTED_ON_LINE, INHERITS), NEVER_BOUND)


def test_three_classes_with_one_method_name_keep_their_callers_apart(service: Codefathom) -> None:
    service.index()

    def callers(name: str) -> set[tuple[str, int]]:
        return {(r.path, r.line) for r in service.refs(name, fresh=False).references}

    assert callers("Shop.Model.Order.save") == {(REPO, 23)}
    assert callers("Shop.Model.Customer.save") == {(APP, 17), (REPO, 33)}
    assert callers("Shop.Store.Index.save") == {(REPO, 34), (TEST, 17)}
    assert service.refs("save", fresh=False).unbound_elsewhere == 1  # $item->save(), reported, not guessed


def test_uses_resolve_by_namespace_and_psr4_and_vendors_are_external(service: Codefathom) -> None:
    service.index()
    with sqlite3.connect(service.settings.db_path) as conn:
        rows = conn.execute(
            "SELECT f.path, i.module, i.name, i.alias, t.path, s.qualified_name, i.external FROM imports i"
            " JOIN files f ON f.id = i.file_id LEFT JOIN files t ON t.id = i.target_file_id"
            " LEFT JOIN symbols s ON s.id = i.target_symbol_id WHERE f.path IN (?, ?) ORDER BY f.path, i.line, i.id",
            (REPO, TEST),
        ).fetchall()
    assert rows == [
        (REPO, "Shop.Model", "Order", "Order", ORDER, "Shop.Model.Order", 0),
        (REPO, "Shop.Model", "Customer", "Customer", CUSTOMER, "Shop.Model.Customer", 0),
        (REPO, "Shop.Model", "Event", "ModelEvent", "src/Model/Event.php", "Shop.Model.Event", 0),
        (REPO, "Shop.Audit", "Event", "AuditEvent", "src/Audit/Event.php", "Shop.Audit.Event", 0),
        (REPO, "Shop.Util", "money", "money", "src/Util/functions.php", "Shop.Util.money", 0),
        (REPO, "Psr.Log", "LoggerInterface", "LoggerInterface", None, None, 1),  # a vendor package
        (TEST, "PHPUnit.Framework", "TestCase", "TestCase", None, None, 1),
        (TEST, "Shop.Store", "Repo", "Repo", REPO, "Shop.Store.Repo", 0),
        (TEST, "Shop.Store", "Index", "Index", "src/Store/Index.php", "Shop.Store.Index", 0),
        (TEST, "Shop.Legacy", "Report", "Report", "src/Legacy/Report.php", "Report", 0),  # psr-4
        (TEST, "Shop.Legacy", "Missing", "Missing", None, None, 0),  # the project's namespace: not a vendor's
    ]


def test_graph_verbs_answer_for_php(service: Codefathom) -> None:
    service.index()
    callers = service.call_hierarchy("Shop.Store.Repo.add", fresh=False)
    assert {(c.symbol.qualified_name if c.symbol else None) for c in callers.roots[0].children} == {"Shop.App.run"}
    deps = service.deps(APP, fresh=False)
    reached = {child.path for child in deps.roots[0].children}
    assert {REPO, ORDER, CUSTOMER, "src/Util/functions.php"} <= reached
    assert service.deps(REPO, fresh=False).external[REPO] == ["Psr.Log"]


def test_dead_code_keeps_php_entry_points(service: Codefathom) -> None:
    service.index()
    dead = service.dead(include_tests=True, fresh=False)
    found = {d.symbol.qualified_name: d for d in dead.unused + dead.public_api}
    left_out = {
        "Shop.Model.Order.__construct",  # magic methods: `new Order(...)` runs it
        "Shop.Store.Repo.__construct",
        "Shop.Model.Order.describe",  # overrides Entity::describe, which is called
        "Shop.Tests.Store.RepoTest.testAdd",  # PHPUnit runs test* methods
        "Shop.Model.Customer.save",
    }
    assert not left_out & found.keys()
    assert found["Shop.Store.Repo.reindex"].confidence == 0.6  # #[\Deprecated] says nothing of use
    assert found["Shop.Store.Repo.find"].confidence == 0.6
    assert found["Shop.Tests.Store.RepoTest.unusedHelper"].confidence == 0.6  # private: overrides nothing
    assert found["Shop.App"].confidence == 0.5 and found["Shop.App"] in dead.public_api  # a class is public


@pytest.mark.parametrize(
    ("written", "is_type", "read"),
    [
        ("$this->repo?->find($id)", False, "this.repo.find(id)"),
        ("new Foo($x)", False, "Foo(x)"),
        ("new \\App\\Foo", False, "App.Foo()"),
        ("(new Foo($a))->bar()", False, "Foo(a).bar()"),
        ("Model\\Order::build(new Model\\Customer())", False, "Model.Order.build(Model.Customer())"),
        ("self::make()", False, "self.make()"),
        ("?\\App\\Order", True, "App.Order"),
        ("Order|null", True, "Order|null"),
    ],
)
def test_receivers_and_types_are_rewritten_for_the_binder(written: str, is_type: bool, read: str) -> None:
    spec = language_for("a.php")
    assert isinstance(spec, LanguageSpec)
    node = parser_for(spec).parse(written.encode()).root_node  # the text is what is rewritten
    assert rewrite(node, written, is_type) == read
