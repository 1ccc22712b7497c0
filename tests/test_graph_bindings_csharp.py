"""C# references bound to the definitions they mean: namespaces from block and file-scoped `namespace`
declarations (a source and a test project), `using`, `using static` and an aliased `using` that picks
one of two classes named Event, a type of an enclosing namespace seen by bare name, fields, properties
and parameters as receivers (a parameter shadowing a field), a partial class whose base and fields are
declared in the other part, inherited methods (a base class's, an interface's default through the
interface), an extension method, `base.`, nested classes, `List<Order>[0]`, LINQ's `First()`, `await`,
`is` and `as`;
three classes share the method name `Save`."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from conftest import assert_bindings, fixture_project

from codefathom.parse.grammars import parser_for
from codefathom.parse.hooks.csharp import rewrite
from codefathom.parse.languages import LanguageSpec, language_for
from codefathom.service import Codefathom

APP = "src/Shop/App/App.cs"
ORDER = "src/Shop/Model/Order.cs"
PRICED = "src/Shop/Model/IPriced.cs"
REPO = "src/Shop/Store/Repo.cs"
QUERY = "src/Shop/Store/Repo.Query.cs"
TESTS = "tests/Shop.Tests/RepoTests.cs"

# (path, line) of each reference -> (qualified name of the definition it means, label)
EXPECTED = {
    (APP, 23): ("Shop.Model.Order", "exact"),  # new Order(): through `using Shop.Model;`
    (APP, 24): ("Shop.Store.Repo.Add", "high"),  # repo: a field, reached without `this.`
    (APP, 25): ("Shop.Model.Entity.Touch", "high"),  # inherited from the base class
    (APP, 27): ("Shop.Model.IPriced.Price", "high"),  # an interface's default method, through the interface
    (APP, 28): ("Shop.Model.Customer.Greet", "high"),  # order.Buyer: a property of type Customer
    (APP, 29): ("Shop.Audit.Event", "exact"),  # using AuditEvent = Shop.Audit.Event
    (APP, 30): ("Shop.Audit.Event.Emit", "high"),
    (APP, 31): ("Shop.Model.Event", "exact"),  # the bare name: Shop.Model's, not the aliased one
    (APP, 32): ("Shop.Store.Repo", "exact"),  # var other = new Repo()
    (APP, 33): ("Shop.Model.Order.Total", "high"),  # First() is declared to return an Order
    (APP, 34): ("Shop.Model.Order.Save", "exact"),  # List<Order>[0]
    (APP, 37): ("Shop.Model.Order.Total", "high"),  # foreach (var each in pending)
    (APP, 40): ("Shop.Util.Strings.Pad", "exact"),  # using static Shop.Util.Strings
    (APP, 41): ("Shop.App.App.Helper", "exact"),  # a method of the class, by its bare name
    (APP, 42): ("Shop.App.App.Helper", "exact"),
    (APP, 43): ("Shop.Store.Repo.Stats.Count", "exact"),  # new Repo.Stats(): a nested class
    (APP, 47): ("Shop.Model.Order.Describe", "high"),  # `is Order found`
    (APP, 50): ("Shop.Model.Order.Total", "high"),  # var loaded = await repo.LoadAsync(): Task<Order>
    (APP, 51): ("Shop.Model.Order.Save", "exact"),  # pending.First(): LINQ gives an element
    (APP, 52): ("Shop.Money.Zero", "exact"),  # Money: declared in the enclosing namespace Shop
    (APP, 53): ("Shop.Money.Plus", "high"),
    (APP, 55): ("Shop.Model.Order.Total", "exact"),  # (thing as Order)?.Total()
    (APP, 56): ("Shop.Model.OrderExtensions.Ship", "high"),  # an extension method of Order
    (APP, 65): ("Shop.App.App.Run", "exact"),  # new App(...): the class, not the namespace Shop.App
    (ORDER, 21): ("Shop.Model.IPriced.Price", "exact"),  # ((IPriced)this).Price()
    (ORDER, 26): ("Shop.Model.Entity.Touch", "exact"),
    (ORDER, 27): ("Shop.Model.Event.Log", "exact"),  # its own namespace's Event, not Audit's
    (ORDER, 28): ("Shop.Model.Customer.Greet", "high"),  # Buyer: a property, by its bare name
    (ORDER, 33): ("Shop.Model.Entity.Describe", "exact"),  # base.Describe()
    (ORDER, 36): ("Shop.Model.Event", "exact"),  # `Event Event { get; } = new Event()`: the class, not the property
    (ORDER, 40): ("Shop.Model.Event.Log", "high"),  # the property Event, of type Event
    (ORDER, 41): ("Shop.Model.Event", "exact"),
    (ORDER, 42): ("Shop.Model.Event.Log", "high"),
    (PRICED, 10): ("Shop.Model.IPriced.Base", "exact"),
    (REPO, 18): ("Shop.Store.Index.Put", "high"),  # index: a field of a class of the same namespace
    (REPO, 19): ("Shop.Store.Index.Put", "high"),  # this.index
    (REPO, 20): ("Shop.Model.Order.Save", "high"),
    (REPO, 31): ("Shop.Store.Repo.First", "exact"),
    (QUERY, 11): ("Shop.Model.Customer.Save", "high"),
    (QUERY, 12): ("Shop.Store.RepoBase.Check", "exact"),  # the base the other part of the partial class names
    (QUERY, 13): ("Shop.Store.Index.Put", "high"),  # a field the other part declares
    (QUERY, 19): ("Shop.Model.Customer.Save", "high"),  # the parameter `index` shadows the field
    (QUERY, 24): ("Shop.Store.Repo.Stats", "exact"),  # a nested class, by its bare name
    (TESTS, 13): ("Shop.Store.Repo", "exact"),  # same namespace, another project
    (TESTS, 14): ("Shop.Store.Repo.Add", "high"),
    (TESTS, 15): ("Shop.Store.Index.Save", "exact"),
}
# Second references on a line.
EXPECTED_ON_LINE = {
    (APP, 23): ("Shop.Util.Strings.Normalize", "exact"),
    (APP, 31): ("Shop.Model.Event.Log", "exact"),
    (APP, 33): ("Shop.Store.Repo.First", "high"),
    (APP, 43): ("Shop.Store.Repo.Stats", "exact"),
    (APP, 49): ("Shop.Store.Repo.LoadAsync", "high"),
    (APP, 56): ("Shop.Model.Order.Save", "high"),  # what the extension method returns
    (APP, 65): ("Shop.App.App", "exact"),
    (ORDER, 3): ("Shop.Model.Entity", "exact"),  # the base class
    (ORDER, 27): ("Shop.Model.Event", "exact"),
}
INHERITS = {
    (ORDER, 3): ("Shop.Model.IPriced", "exact"),  # an interface implemented
    (REPO, 9): ("Shop.Store.RepoBase", "exact"),
}
# it.Save(): a lambda parameter of no known type, and three classes define Save().
NEVER_BOUND = {(APP, 39)}
DECOYS = {"Shop.Model.Order.Save", "Shop.Model.Customer.Save", "Shop.Store.Index.Save"}


@pytest.fixture
def service(tmp_path: Path) -> Codefathom:
    project: Codefathom = fixture_project(tmp_path, "bindings-csharp")
    return project


def test_csharp_references_bind_to_the_definition_they_mean(service: Codefathom) -> None:
    assert_bindings(service, (EXPECTED, EXPECTED_ON_LINE, INHERITS), {site: DECOYS for site in NEVER_BOUND})


def test_three_classes_with_one_method_name_keep_their_callers_apart(service: Codefathom) -> None:
    service.index()

    def callers(name: str) -> set[tuple[str, int]]:
        return {(r.path, r.line) for r in service.refs(name, fresh=False).references}

    assert callers("Shop.Model.Order.Save") == {(APP, 34), (APP, 51), (APP, 56), (REPO, 20)}
    assert callers("Shop.Model.Customer.Save") == {(QUERY, 11), (QUERY, 19)}
    assert callers("Shop.Store.Index.Save") == {(TESTS, 15)}
    assert service.refs("Save", fresh=False).unbound_elsewhere == 1  # it.Save(), reported, not guessed


def test_types_attributes_and_framework_names(service: Codefathom) -> None:
    service.index()
    events = {(r.path, r.line) for r in service.refs("Shop.Model.Event", kinds=("type",), fresh=False).references}
    assert {(ORDER, 36), (ORDER, 41)} <= events  # a type named like a property of the class is the type
    uses = {(r.path, r.line) for r in service.refs("Shop.Model.Order", kinds=("type",), fresh=False).references}
    assert {(APP, 21), (APP, 45), (APP, 55), (REPO, 11), (REPO, 28), (QUERY, 8)} <= uses  # List<Order>, is, as, Task<>
    audited = service.refs("Shop.Audit.AuditedAttribute", fresh=False).references
    assert [(r.path, r.line, r.kind) for r in audited] == [(REPO, 14, "decorator")]  # [Audited]
    with sqlite3.connect(service.settings.db_path) as conn:
        labels = dict(conn.execute(
            "SELECT r.name, r.label FROM refs r JOIN files f ON f.id = r.file_id WHERE f.path = ? AND r.line = 54",
            (APP,),
        ).fetchall())
    assert labels == {"WriteLine": "builtin", "SerializeObject": "external"}  # System's, a NuGet package's


def test_usings_resolve_by_namespace_declarations_and_the_framework_is_external(service: Codefathom) -> None:
    service.index()
    with sqlite3.connect(service.settings.db_path) as conn:
        rows = conn.execute(
            "SELECT i.module, i.name, i.alias, t.path, s.qualified_name, i.external FROM imports i"
            " JOIN files f ON f.id = i.file_id LEFT JOIN files t ON t.id = i.target_file_id"
            " LEFT JOIN symbols s ON s.id = i.target_symbol_id WHERE f.path = ? ORDER BY i.line",
            (APP,),
        ).fetchall()
    assert [(m, n, a, (p or "").rpartition("/")[0], q, e) for m, n, a, p, q, e in rows] == [
        ("System", "*", "*", "", None, 1),
        ("System.Collections.Generic", "*", "*", "", None, 1),
        ("System.Linq", "*", "*", "", None, 1),
        ("Newtonsoft.Json", "*", "*", "", None, 1),
        ("Shop.Model", "*", "*", "src/Shop/Model", None, 0),
        ("Shop.Store", "*", "*", "src/Shop/Store", None, 0),
        ("Shop.Audit", "Event", "AuditEvent", "src/Shop/Audit", "Shop.Audit.Event", 0),
        ("Shop.Util.Strings", "*", "*", "src/Shop/Util", "Shop.Util.Strings", 0),
    ]


def test_graph_verbs_answer_for_csharp(service: Codefathom) -> None:
    service.index()
    callers = service.call_hierarchy("Shop.Store.Repo.Add", fresh=False)
    assert {(c.symbol.qualified_name if c.symbol else None) for c in callers.roots[0].children} == {
        "Shop.App.App.Run", "Shop.Store.RepoTests.AddsAnOrder",
    }
    deps = service.deps(APP, fresh=False)
    reached = {child.path for child in deps.roots[0].children}
    assert {REPO, ORDER, "src/Shop/Audit/Event.cs", "src/Shop/Util/Strings.cs", "src/Shop/Money.cs"} <= reached
    assert deps.external[APP] == ["Newtonsoft.Json", "System", "System.Collections.Generic", "System.Linq"]


@pytest.mark.parametrize(
    ("written", "is_type", "read"),
    [
        ("new Foo<int>(x).Bar", False, "Foo(x).Bar"),
        ("new Foo { P = 1 }.Go", False, "Foo().Go"),  # an object initializer
        ("a?.b!.C", False, "a.b.C"),
        ("((Foo)o).Bar", False, "Foo(o).Bar"),  # a cast: an instance of the type
        ("(o as Foo).Bar", False, "Foo(o).Bar"),
        ("(await repo.LoadAsync()).Total", False, "repo.LoadAsync().GetAwaiter().GetResult().Total"),
        ("global::Shop.Money.Zero", False, "Shop.Money.Zero"),
        ("Dictionary<string, List<Foo>>", True, "Dictionary[string, List[Foo]]"),
        ("List<Foo[]>", True, "List[Array[Foo]]"),
        ("Foo?", True, "Foo"),
        ("ref readonly Foo", True, "Foo"),
    ],
)
def test_receivers_and_types_are_rewritten_for_the_binder(written: str, is_type: bool, read: str) -> None:
    spec = language_for("A.cs")
    assert isinstance(spec, LanguageSpec)
    node = parser_for(spec).parse(written.encode()).root_node  # the text is what is rewritten
    assert rewrite(node, written, is_type) == read
