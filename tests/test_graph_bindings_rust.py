"""Rust references bound to the definitions they mean: `mod` declarations to files (foo.rs and
foo/mod.rs), `crate::`, `super::` and `self::` paths, `pub use` re-exports, aliased imports
(`as norm`, `as Client`), the crate's own name from tests/, receivers typed by `let`, constructors,
struct literals, parameters, struct fields, `Option<&Order>.unwrap()`, `for x in v.iter()` and
`self`/`Self` in impl blocks (one of them for a type defined in another module), trait default
methods reached through `impl Trait for Type`, enum variants, a `macro_rules!` macro, an inline
`mod tests`; locals and parameters shadow functions; three types share the method name `save`."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from conftest import assert_bindings, fixture_project

from codefathom.service import Codefathom

LIB = "src/lib.rs"
ORDER = "src/model/order.rs"
STORE = "src/store.rs"
TESTS = "tests/store.rs"

# (path, line) of each reference -> (qualified name of the definition it means, label)
EXPECTED = {
    (LIB, 18): ("store.Repo.new", "exact"),  # Repo: `pub use store::Repo`
    (LIB, 19): ("model.order.Order.new", "exact"),  # model::Order, re-exported by model/mod.rs
    (LIB, 20): ("model.order.Order.total", "high"),  # not the function util::total
    (LIB, 21): ("model.Priced.price", "high"),  # a trait's default method: `impl Priced for Order`
    (LIB, 22): ("model.customer.Customer.greet", "high"),  # customer(), a method named like a field
    (LIB, 24): ("model.order.Order.save", "high"),  # repo.first().unwrap(): Option<&Order>
    (LIB, 25): ("lib.shout", "exact"),  # shout!: a macro_rules! of the crate
    (LIB, 26): ("util.total", "exact"),  # util::total through `mod util;`
    (LIB, 29): ("lib.apply", "exact"),
    (LIB, 32): ("model.order.order", "exact"),  # the function, not its module `mod order;`
    (LIB, 45): ("lib.run", "exact"),  # from inside `mod tests`
    (LIB, 50): ("lib.tests.helper", "exact"),  # a function of the inline module
    (LIB, 51): ("lib.run", "exact"),  # super::run() from `mod tests` is the file's run
    ("src/model/mod.rs", 12): ("model.Priced.base", "exact"),  # self.base() in a default method
    (ORDER, 11): ("model.order.Order", "exact"),  # a struct literal
    (ORDER, 18): ("model.Priced.price", "exact"),  # self.price(): the trait's default
    (ORDER, 26): ("model.customer.Customer.greet", "high"),  # self.customer: a field
    (ORDER, 27): ("model.order.Order.audit", "exact"),  # Self::audit()
    (ORDER, 33): ("model.Priced", "exact"),  # impl Priced for Order: inherit
    (STORE, 28): ("store.Repo", "exact"),
    (STORE, 30): ("store.Index", "exact"),
    (STORE, 37): ("model.order.Order.save", "high"),  # order: Order, a parameter
    (STORE, 38): ("store.Index.save", "high"),  # self.index
    (STORE, 41): ("model.order.Order.total", "high"),  # for each in self.orders.iter()
    (STORE, 43): ("store.Event.Added", "exact"),  # an enum variant
    (STORE, 51): ("model.customer.Customer.save", "high"),  # client: Client, `Customer as Client`
    (STORE, 56): ("store.Event.Removed", "exact"),  # a struct-like variant's literal
    (STORE, 63): ("model.order.Order.save", "exact"),  # self in `impl Order` written in store.rs
    (TESTS, 6): ("store.Repo.new", "exact"),  # `use shop::store::Repo`: the crate by its name
    (TESTS, 7): ("store.Repo.add", "high"),
}
EXPECTED_ON_LINE = {
    (LIB, 19): ("util.normalize", "exact"),  # norm: `use crate::util::normalize as norm`
    (LIB, 22): ("model.order.Order.customer", "high"),
    (LIB, 23): ("store.Repo.first", "high"),
    (LIB, 32): ("model.order.Order.save", "high"),  # order() is declared to return an Order
    (TESTS, 7): ("model.order.Order.new", "exact"),
}
# total(1.0): the closure `total` shadows the imported function; normalize("b"): the parameter
# shadows util::normalize; it.save(): a closure parameter of no known type, and three `save`s.
NEVER_BOUND = {
    (LIB, 28): {"util.total", "model.order.Order.total"},
    (LIB, 30): {"model.order.Order.save", "model.customer.Customer.save", "store.Index.save"},
    (LIB, 37): {"util.normalize"},
}


@pytest.fixture
def service(tmp_path: Path) -> Codefathom:
    project: Codefathom = fixture_project(tmp_path, "bindings-rust")
    return project


def test_rust_references_bind_to_the_definition_they_mean(service: Codefathom) -> None:
    assert_bindings(service, (EXPECTED, EXPECTED_ON_LINE), NEVER_BOUND)


def test_three_types_with_one_method_name_keep_their_callers_apart(service: Codefathom) -> None:
    service.index()

    def callers(name: str) -> set[tuple[str, int]]:
        return {(r.path, r.line) for r in service.refs(name, fresh=False).references}

    assert callers("model.order.Order.save") == {(LIB, 24), (LIB, 32), (STORE, 37), (STORE, 63)}
    assert callers("model.customer.Customer.save") == {(STORE, 51)}
    assert callers("store.Index.save") == {(STORE, 38)}
    assert service.refs("save", fresh=False).unbound_elsewhere == 1  # it.save(), reported, not guessed


def test_impl_blocks_add_to_their_type_and_are_no_symbols_of_their_own(service: Codefathom) -> None:
    service.index()
    orders = service.symbol("model.order.Order", fresh=False).symbols
    assert [(s.path, s.kind, s.start_line) for s in orders] == [(ORDER, "class", 4)]  # the struct only
    methods = {s.qualified_name for s in service.symbol("save", fresh=False).symbols}
    assert methods == {"model.order.Order.save", "model.customer.Customer.save", "store.Index.save"}


def test_modules_resolve_to_files_and_crates_outside_are_external(service: Codefathom) -> None:
    service.index()
    with sqlite3.connect(service.settings.db_path) as conn:
        rows = conn.execute(
            "SELECT f.path, i.module, i.name, i.alias, t.path, s.qualified_name, i.external FROM imports i"
            " JOIN files f ON f.id = i.file_id LEFT JOIN files t ON t.id = i.target_file_id"
            " LEFT JOIN symbols s ON s.id = i.target_symbol_id ORDER BY f.path, i.line"
        ).fetchall()
    assert rows == [
        (LIB, "self", "model", "model", "src/model/mod.rs", None, 0),
        (LIB, "self", "store", "store", STORE, None, 0),
        (LIB, "self", "util", "util", "src/util.rs", None, 0),
        (LIB, "store", "Repo", "Repo", STORE, "store.Repo", 0),
        (LIB, "crate::util", "normalize", "norm", "src/util.rs", "util.normalize", 0),
        (LIB, "crate::util", "total", "total", "src/util.rs", "util.total", 0),
        (LIB, "self", "*", "*", LIB, None, 0),  # `use super::*` in `mod tests`: the file itself
        ("src/model/mod.rs", "self", "order", "order", ORDER, None, 0),
        ("src/model/mod.rs", "self", "customer", "customer", "src/model/customer.rs", None, 0),
        ("src/model/mod.rs", "self::order", "Order", "Order", ORDER, "model.order.Order", 0),
        ("src/model/mod.rs", "self::order", "order", "order", ORDER, "model.order.order", 0),
        (ORDER, "super::customer", "Customer", "Customer", "src/model/customer.rs", "model.customer.Customer", 0),
        (ORDER, "super", "Priced", "Priced", "src/model/mod.rs", "model.Priced", 0),
        (STORE, "std::collections", "HashMap", "HashMap", None, None, 1),
        (STORE, "crate::model::customer", "Customer", "Client", "src/model/customer.rs", "model.customer.Customer", 0),
        (STORE, "crate::model", "Order", "Order", ORDER, "model.order.Order", 0),  # through `pub use`
        (TESTS, "shop::store", "Repo", "Repo", STORE, "store.Repo", 0),
        (TESTS, "shop::model", "Order", "Order", ORDER, "model.order.Order", 0),
    ]


def test_graph_verbs_answer_for_rust(service: Codefathom) -> None:
    service.index()
    callers = service.call_hierarchy("store.Repo.new", fresh=False)
    assert {(c.symbol.qualified_name if c.symbol else None) for c in callers.roots[0].children} == {
        "lib.run", "tests.store.adds_an_order",
    }
    deps = service.deps(LIB, fresh=False)
    assert {STORE, "src/util.rs", "src/model/mod.rs", ORDER} <= {child.path for child in deps.roots[0].children}
    assert service.deps(STORE, fresh=False).external[STORE] == ["std::collections"]
