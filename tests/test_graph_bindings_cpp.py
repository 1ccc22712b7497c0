"""C++ references bound to the definitions they mean: namespaces (`ns::f`, `a::b::f`, `using
namespace`, `using ns::f`), methods defined out of line (`void Store::add() {}` in another file
than the class) seeing their class's members without `this->`, `this->`, `new`, `auto`, a base's
method reached through a subclass, `Base::m()`, two classes with a method `save`, a local shadowing
a member, a `using` alias of `std::vector<Order>` whose `push_back` and `size` are never the
project's namesakes."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import assert_bindings, fixture_project

from codefathom.service import Codefathom

MAIN = "src/main.cpp"
ORDER = "src/order.cpp"
STORE = "src/store.cpp"
ORDER_H = "include/shop/order.hpp"
STORE_H = "include/shop/store.hpp"

EXPECTED = {
    (MAIN, 9): ("shop.Order", "exact"),  # new Order(1), through `using namespace shop`
    (MAIN, 10): ("shop.Store.add", "high"),  # Store store; store.add()
    (MAIN, 12): ("shop.Order", "exact"),  # auto copy = Order(2)
    (MAIN, 13): ("shop.Order.describe", "high"),  # auto: copy is an Order
    (MAIN, 17): ("shop.util.pad", "exact"),  # shop::util::pad(3)
    (MAIN, 18): ("shop.util.pad", "exact"),  # using shop::util::pad
    (MAIN, 20): ("shop.Entity.touch", "high"),  # Entity* entity
    (MAIN, 21): ("shop.Store.size", "high"),
    (ORDER, 8): ("shop.Entity.touch", "exact"),  # a base's method, without this->
    (ORDER, 9): ("shop.Customer.save", "high"),  # the member `customer`, declared in the header
    (ORDER, 13): ("shop.Entity.describe", "exact"),  # Entity::describe()
    (ORDER, 16): ("shop.util.pad", "exact"),  # util::pad inside namespace shop
    (STORE, 7): ("shop.Order.save", "high"),  # the member last_, out of line
    (STORE, 8): ("shop.Order.total", "high"),  # this->last_
    (STORE, 10): ("shop.Order.save", "exact"),  # orders_[0]: an element of std::vector<Order>
    (STORE, 11): ("shop.Order.total", "high"),  # for (auto& each : orders_)
    (STORE, 16): ("shop.Customer.save", "high"),  # the local `Customer last_` hides the member
    (STORE, 17): ("shop.Store.add", "exact"),  # a method of the class, by its bare name
    (ORDER_H, 13): ("shop.Entity", "exact"),  # class Order : public Entity
}
EXPECTED_ON_LINE = {(MAIN, 11): ("shop.Store.first", "high")}
SECOND = {(MAIN, 11): ("shop.Order.save", "high")}  # store.first()->save(): first() returns an Order*
# std::vector's push_back and size, and Order's save on a local Customer, are never the project's.
NEVER_BOUND = {
    (MAIN, 15): {"shop.Store.push_back"},
    (MAIN, 16): {"shop.Store.size", "shop.Customer.size"},
    (STORE, 6): {"shop.Store.push_back"},
    (STORE, 9): {"shop.Store.size", "shop.Customer.size"},
    (STORE, 16): {"shop.Order.save"},
}


@pytest.fixture
def service(tmp_path: Path) -> Codefathom:
    project: Codefathom = fixture_project(tmp_path, "bindings-cpp")
    return project


def test_cpp_references_bind_to_the_definition_they_mean(service: Codefathom) -> None:
    assert_bindings(service, (EXPECTED, EXPECTED_ON_LINE, SECOND), NEVER_BOUND)


def test_two_classes_with_one_method_name_keep_their_callers_apart(service: Codefathom) -> None:
    service.index()

    def callers(name: str) -> set[tuple[str, int]]:
        return {(r.path, r.line) for r in service.refs(name, kinds=("call",), fresh=False).references}

    assert callers("shop.Order.save") == {(MAIN, 11), (STORE, 7), (STORE, 10)}
    assert callers("shop.Customer.save") == {(ORDER, 9), (STORE, 16)}


def test_out_of_line_methods_are_members_of_their_class(service: Codefathom) -> None:
    service.index()
    symbols = service.symbol("shop.Store.add", fresh=False).symbols
    assert [(s.path, s.kind, s.parent) for s in symbols] == [(STORE, "method", "shop.Store")]
    types = {(r.path, r.line) for r in service.refs("shop.Order", kinds=("type",), fresh=False).references}
    assert {(STORE_H, 8), (STORE_H, 14), (MAIN, 9)} <= types  # a parameter, std::vector<Order>, a pointer


def test_deps_and_dead_code_for_cpp(service: Codefathom) -> None:
    service.index()
    deps = service.deps(MAIN, fresh=False)
    assert {STORE_H, STORE, ORDER} <= {child.path for child in deps.roots[0].children}
    assert deps.external[MAIN] == ["<iostream>"]
    dead = service.dead(fresh=False)
    unused = {d.symbol.qualified_name for d in dead.unused}
    assert {"shop.Customer.size", "shop.Store.push_back"} <= unused  # no project code calls them
    # main runs; describe overrides Entity's; constructors and destructors run by themselves.
    assert not unused & {"main", "shop.Order.describe", "shop.Order.Order", "shop.Entity.~Entity"}


def test_a_header_is_parsed_as_cpp_when_its_text_is_cpp() -> None:
    from codefathom.parse import parse

    assert parse("a.h", "namespace shop {\nclass Order {};\n}\n").language == "cpp"
    assert parse("b.h", "#include <vector>\nstd::vector<int> f();\n").language == "cpp"
    assert parse("c.h", '#ifdef __cplusplus\nextern "C" {\n#endif\nint f(void);\n').language == "c"
