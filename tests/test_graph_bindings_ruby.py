"""Ruby references bound to the definitions they mean: a gem layout (`lib/`, `app/`, `spec/`, `test/`)
with `require` through `lib/` and `require_relative`, a module reopened in every file and a class
reopened in a second file, a superclass and an included module, `super`, `attr_accessor` members,
`Foo.new` and `@repo = Repo.new` as receivers, class methods, a constant aliasing a class, a
top-level method, and a local variable shadowing a method of the same name; two classes share the
method name `save`."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import assert_bindings, fixture_project, index_rows

from codefathom.parse.grammars import parser_for
from codefathom.parse.hooks.ruby import rewrite
from codefathom.parse.languages import LanguageSpec, language_for
from codefathom.service import Codefathom

CHECKOUT = "app/checkout.rb"
ORDER = "lib/shop/order.rb"
ORDER_EXT = "lib/shop/order_ext.rb"
CUSTOMER = "lib/shop/customer.rb"
REPO = "lib/shop/repo.rb"
SPEC = "spec/order_spec.rb"
TEST = "test/test_repo.rb"

# (path, line) of each reference -> (qualified name of the definition it means, label)
EXPECTED = {
    (CHECKOUT, 8): ("Shop.Order", "exact"),  # Shop::Order.new(buyer): a call of the class
    (CHECKOUT, 9): ("Shop.Order.save", "high"),  # order = Shop::Order.new(...)
    (CHECKOUT, 10): ("Shop.Order.ship", "high"),  # defined where the class is reopened
    (CHECKOUT, 11): ("Shop.Order.total", "high"),  # attr_accessor :total
    (CHECKOUT, 12): ("Shop.Customer", "exact"),
    (CHECKOUT, 13): ("Shop.Customer.save", "high"),
    (CHECKOUT, 14): ("Shop.Customer.greet", "high"),
    (CHECKOUT, 17): ("Checkout.apply", "exact"),  # a bare name no local binds: self's method
    (CHECKOUT, 18): ("Shop.Util.Format.money", "high"),  # Fmt = Shop::Util::Format
    (CHECKOUT, 19): ("helper", "exact"),  # a top-level method of another file
    (CHECKOUT, 20): ("Shop.Order.build", "exact"),  # def self.build
    (CHECKOUT, 26): ("Checkout.discount", "exact"),  # no local here: the method
    (ORDER, 5): ("Shop.Entity", "exact"),  # class Order < Entity: Shop's, by lexical nesting
    (ORDER, 6): ("Shop.Auditable", "exact"),  # include Auditable: a mixin is a base
    (ORDER, 11): ("Shop.Repo", "exact"),  # Repo.new: Shop's, written in another file
    (ORDER, 19): ("Shop.Entity.touch", "exact"),  # inherited from the superclass
    (ORDER, 20): ("Shop.Auditable.log", "exact"),  # from the included module
    (ORDER, 21): ("Shop.Repo.add", "high"),  # @repo = Repo.new in initialize
    (ORDER, 22): ("Shop.Order.total", "exact"),  # self.total
    (ORDER, 26): ("Shop.Entity.describe", "exact"),  # super: the base's describe
    (ORDER_EXT, 4): ("Shop.Order.save", "exact"),  # the reopened class sees the other part's methods
    (ORDER_EXT, 5): ("Shop.Util.Format.money", "exact"),  # Util::Format through the nesting module Shop
    (CUSTOMER, 4): ("Shop.Customer.greet", "exact"),
    (REPO, 5): ("Shop.Repo.store", "exact"),
    (SPEC, 5): ("Shop.Order", "exact"),
    (SPEC, 6): ("Shop.Order.save", "high"),  # a variable of the spec's blocks
    (TEST, 6): ("Shop.Repo", "exact"),
    (TEST, 7): ("Shop.Repo.store", "high"),
}
EXPECTED_ON_LINE = {
    (ORDER_EXT, 5): ("Shop.Order.total", "exact"),  # money(total): the accessor, by its bare name
}
# order.save on a parameter: two classes define save, so it stays unbound; `discount` on line 16 is
# the local assigned on line 15, not the method.
NEVER_BOUND = {
    (REPO, 4): {"Shop.Order.save", "Shop.Customer.save"},
    (CHECKOUT, 16): {"Checkout.discount"},
}


@pytest.fixture
def service(tmp_path: Path) -> Codefathom:
    project: Codefathom = fixture_project(tmp_path, "bindings-ruby")
    return project



def test_ruby_references_bind_to_the_definition_they_mean(service: Codefathom) -> None:
    assert_bindings(service, (EXPECTED, EXPECTED_ON_LINE), NEVER_BOUND)


def test_two_classes_with_one_method_name_keep_their_callers_apart(service: Codefathom) -> None:
    service.index()

    def callers(name: str) -> set[tuple[str, int]]:
        return {(r.path, r.line) for r in service.refs(name, fresh=False).references}

    assert callers("Shop.Order.save") == {(CHECKOUT, 9), (ORDER_EXT, 4), (SPEC, 6)}
    assert callers("Shop.Customer.save") == {(CHECKOUT, 13)}
    assert service.refs("save", fresh=False).unbound_elsewhere == 1  # order.save in Repo#add, not guessed


def test_a_local_variable_read_is_no_reference(service: Codefathom) -> None:
    service.index()
    rows = index_rows(
        service,
        "SELECT r.line, r.name, r.kind FROM refs r JOIN files f ON f.id = r.file_id"
        " WHERE f.path = ? AND r.line IN (15, 16, 18)",
        CHECKOUT,
    )
    assert sorted(rows) == [(18, "Fmt", "type"), (18, "money", "call")]  # `discount` is the local, twice


def test_requires_resolve_relative_and_through_lib(service: Codefathom) -> None:
    service.index()
    rows = index_rows(
        service,
        "SELECT f.path, i.module, i.level, t.path, i.external FROM imports i JOIN files f ON f.id = i.file_id"
        " LEFT JOIN files t ON t.id = i.target_file_id ORDER BY f.path, i.line",
    )
    assert rows == [
        (CHECKOUT, "shop", 0, "lib/shop.rb", 0),
        (CHECKOUT, "json", 0, None, 1),  # the standard library
        ("lib/shop.rb", "shop/entity", 1, "lib/shop/entity.rb", 0),
        ("lib/shop.rb", "shop/order", 1, ORDER, 0),
        ("lib/shop.rb", "shop/customer", 0, CUSTOMER, 0),
        (ORDER, "shop/entity", 0, "lib/shop/entity.rb", 0),
        (ORDER, "auditable", 1, "lib/shop/auditable.rb", 0),
        (SPEC, "shop", 0, "lib/shop.rb", 0),
        (TEST, "minitest/autorun", 0, None, 1),  # a gem
        (TEST, "shop/repo", 0, REPO, 0),
    ]


def test_graph_verbs_answer_for_ruby(service: Codefathom) -> None:
    service.index()
    callers = service.call_hierarchy("Shop.Entity.touch", fresh=False)
    assert {(c.symbol.qualified_name if c.symbol else None) for c in callers.roots[0].children} == {"Shop.Order.save"}
    deps = service.deps(CHECKOUT, fresh=False)
    reached = {child.path for child in deps.roots[0].children}
    assert {"lib/shop.rb", ORDER, ORDER_EXT, CUSTOMER, "lib/shop/util/format.rb"} <= reached
    assert deps.external[CHECKOUT] == ["json"]
    dependents = service.deps(REPO, reverse=True, fresh=False)
    assert {child.path for child in dependents.roots[0].children} == {ORDER, TEST}


def test_dead_code_keeps_ruby_entry_points(service: Codefathom) -> None:
    service.index()
    dead = service.dead(include_tests=True, fresh=False)
    found = {d.symbol.qualified_name: d for d in dead.unused + dead.public_api}
    left_out = {
        "Shop.Order.initialize",  # runs on Shop::Order.new
        "Shop.Order.describe",  # overrides Entity#describe, which is called
        "TestRepo.test_add",  # Minitest runs test_* methods
        "Shop.Entity.describe",  # reached through super
    }
    assert not left_out & found.keys()
    assert found["Checkout.run"].confidence == 0.6  # a method nothing calls
    fixture = found["TestRepo.unused_fixture"]
    assert fixture.confidence == 0.3 and "`Test`, which is outside the project" in fixture.reason


@pytest.mark.parametrize(
    ("written", "read"),
    [
        ("Shop::Order.new(buyer).save", "Shop.Order(buyer).save"),
        ("Foo.new", "Foo()"),
        ("Foo.new 1, 2", "Foo()"),  # arguments without parentheses
        ("::Foo.new.go", "Foo().go"),
        ("@repo", "self.repo"),
        ("@@count.succ", "self.count.succ"),
        ("a&.b", "a.b"),
        ("nil", "None"),  # assigned nothing yet
        ("x.renew", "x.renew"),
    ],
)
def test_receivers_are_rewritten_for_the_binder(written: str, read: str) -> None:
    spec = language_for("a.rb")
    assert isinstance(spec, LanguageSpec)
    node = parser_for(spec).parse(written.encode()).root_node  # the text is what is rewritten
    assert rewrite(node, written, False) == read
