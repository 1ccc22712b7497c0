"""Java references bound to the definitions they mean: packages from `package` declarations (a Maven
layout with main and test roots), single-type, wildcard and static imports, two classes named Event
in two packages, fields and parameters as receivers (a parameter shadowing a field), inherited
methods (a superclass's, an interface's default), `super.`, nested classes, `List<Order>.get()`,
`instanceof` patterns; three classes share the method name `save`."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from conftest import assert_bindings, fixture_project, index_rows

from codefathom.service import Codefathom

APP = "src/main/java/com/shop/app/App.java"
ORDER = "src/main/java/com/shop/model/Order.java"
PRICED = "src/main/java/com/shop/model/Priced.java"
REPO = "src/main/java/com/shop/store/Repo.java"
REPO_TEST = "src/test/java/com/shop/store/RepoTest.java"

# (path, line) of each reference -> (qualified name of the definition it means, label)
EXPECTED = {
    (APP, 19): ("com.shop.model.Order", "exact"),  # new Order(): through `import com.shop.model.*`
    (APP, 20): ("com.shop.store.Repo.add", "high"),  # repo: a field, reached without `this.`
    (APP, 21): ("com.shop.model.Entity.touch", "high"),  # inherited from the superclass
    (APP, 22): ("com.shop.model.Priced.price", "high"),  # an interface's default method
    (APP, 23): ("com.shop.model.Customer.greet", "high"),  # customer(), not the field `customer`
    (APP, 24): ("com.shop.audit.Event", "exact"),  # a single-type import beats model.* 's Event
    (APP, 25): ("com.shop.audit.Event.emit", "high"),
    (APP, 26): ("com.shop.store.Repo", "exact"),  # var other = new Repo()
    (APP, 27): ("com.shop.model.Order.total", "high"),  # first() is declared to return an Order
    (APP, 28): ("com.shop.model.Order.save", "exact"),  # List<Order>.get(0)
    (APP, 30): ("com.shop.model.Order.total", "high"),  # for (Order each : pending)
    (APP, 33): ("com.shop.util.Strings.pad", "exact"),  # import static ...Strings.*
    (APP, 34): ("com.shop.app.App.helper", "exact"),  # a method of the class, by its bare name
    (APP, 35): ("com.shop.app.App.helper", "exact"),
    (APP, 36): ("com.shop.store.Repo.Stats.count", "exact"),  # new Repo.Stats(): a nested class
    (APP, 39): ("com.shop.model.Order.describe", "high"),  # instanceof Order found
    (ORDER, 17): ("com.shop.model.Priced.price", "exact"),  # price(): inherited default, bare name
    (ORDER, 25): ("com.shop.model.Entity.touch", "exact"),
    (ORDER, 26): ("com.shop.model.Event.log", "exact"),  # its own package's Event, not audit's
    (ORDER, 27): ("com.shop.model.Customer.greet", "high"),  # the field, though a method shares its name
    (ORDER, 32): ("com.shop.model.Entity.describe", "exact"),  # super.describe()
    (PRICED, 8): ("com.shop.model.Priced.base", "exact"),
    (REPO, 15): ("com.shop.store.Index.put", "high"),  # index: a field of a class of the same package
    (REPO, 16): ("com.shop.store.Index.put", "high"),  # this.index
    (REPO, 17): ("com.shop.model.Order.save", "high"),
    (REPO, 26): ("com.shop.model.Customer.save", "high"),
    (REPO, 31): ("com.shop.model.Customer.save", "high"),  # the parameter `index` shadows the field
    (REPO, 35): ("com.shop.store.Repo.Stats", "exact"),  # a nested class, by its bare name
    (REPO_TEST, 7): ("com.shop.store.Repo", "exact"),  # same package, another source root
    (REPO_TEST, 8): ("com.shop.store.Repo.add", "high"),
    (REPO_TEST, 9): ("com.shop.store.Index.save", "exact"),
}
# Second references on a line.
EXPECTED_ON_LINE = {
    (APP, 19): ("com.shop.util.Strings.normalize", "exact"),  # import static ...Strings.normalize
    (APP, 23): ("com.shop.model.Order.customer", "high"),
    (APP, 27): ("com.shop.store.Repo.first", "high"),
    (APP, 36): ("com.shop.store.Repo.Stats", "exact"),
    (ORDER, 3): ("com.shop.model.Entity", "exact"),  # extends
    (ORDER, 26): ("com.shop.model.Event", "exact"),
}
INHERITS = {(ORDER, 3): ("com.shop.model.Priced", "exact")}  # implements
# it.save(): a lambda parameter of no known type, and three classes define save().
NEVER_BOUND = {(APP, 32)}
DECOYS = {"com.shop.model.Order.save", "com.shop.model.Customer.save", "com.shop.store.Index.save"}


@pytest.fixture
def service(tmp_path: Path) -> Codefathom:
    project: Codefathom = fixture_project(tmp_path, "bindings-java")
    return project


def test_java_references_bind_to_the_definition_they_mean(service: Codefathom) -> None:
    assert_bindings(service, (EXPECTED, EXPECTED_ON_LINE, INHERITS), {site: DECOYS for site in NEVER_BOUND})


def test_three_classes_with_one_method_name_keep_their_callers_apart(service: Codefathom) -> None:
    service.index()

    def callers(name: str) -> set[tuple[str, int]]:
        return {(r.path, r.line) for r in service.refs(name, fresh=False).references}

    assert callers("com.shop.model.Order.save") == {(APP, 28), (REPO, 17)}
    assert callers("com.shop.model.Customer.save") == {(REPO, 26), (REPO, 31)}
    assert callers("com.shop.store.Index.save") == {(REPO_TEST, 9)}
    assert service.refs("save", fresh=False).unbound_elsewhere == 1  # it.save(), reported, not guessed


def test_types_written_in_signatures_and_patterns_are_references(service: Codefathom) -> None:
    service.index()
    uses = {(r.path, r.line) for r in service.refs("com.shop.model.Order", kinds=("type",), fresh=False).references}
    assert {(APP, 18), (APP, 19), (APP, 29), (APP, 38), (REPO, 9), (REPO, 13)} <= uses  # List<Order>, instanceof
    audit = service.refs("com.shop.audit.Audited", fresh=False).references
    assert [(r.path, r.line, r.kind) for r in audit] == [(REPO, 12, "decorator")]


def test_imports_resolve_by_package_declarations_and_the_jdk_is_external(service: Codefathom) -> None:
    service.index()
    with sqlite3.connect(service.settings.db_path) as conn:
        rows = conn.execute(
            "SELECT i.module, i.name, t.path, s.qualified_name, i.external FROM imports i"
            " JOIN files f ON f.id = i.file_id LEFT JOIN files t ON t.id = i.target_file_id"
            " LEFT JOIN symbols s ON s.id = i.target_symbol_id WHERE f.path = ? ORDER BY i.line",
            (APP,),
        ).fetchall()
    assert [(m, n, (p or "").rpartition("/")[0], q, e) for m, n, p, q, e in rows] == [
        ("com.shop.audit", "Event", "src/main/java/com/shop/audit", "com.shop.audit.Event", 0),
        ("com.shop.model", "*", "src/main/java/com/shop/model", None, 0),
        ("com.shop.store", "Repo", "src/main/java/com/shop/store", "com.shop.store.Repo", 0),
        ("java.util", "List", "", None, 1),
        ("com.shop.util.Strings", "normalize", "src/main/java/com/shop/util", "com.shop.util.Strings.normalize", 0),
        ("com.shop.util.Strings", "*", "src/main/java/com/shop/util", "com.shop.util.Strings", 0),
    ]


def test_graph_verbs_answer_for_java(service: Codefathom) -> None:
    service.index()
    callers = service.call_hierarchy("com.shop.store.Repo.add", fresh=False)
    assert {(c.symbol.qualified_name if c.symbol else None) for c in callers.roots[0].children} == {
        "com.shop.app.App.run", "com.shop.store.RepoTest.addsAnOrder",
    }
    deps = service.deps(APP, fresh=False)
    reached = {child.path for child in deps.roots[0].children}
    audit, util = "src/main/java/com/shop/audit/Event.java", "src/main/java/com/shop/util/Strings.java"
    assert {REPO, ORDER, audit, util} <= reached
    assert deps.external[APP] == ["java.util"]  # the package outside the project


def test_a_call_binds_to_the_overload_taking_as_many_arguments(service: Codefathom) -> None:
    util = service.root / "src/main/java/com/shop/util"
    (util / "Buffer.java").write_text(
        "package com.shop.util;\n\npublic class Buffer {\n    public int position() { return 0; }\n}\n"
    )
    (util / "Bytes.java").write_text(
        "package com.shop.util;\n\npublic class Bytes extends Buffer {\n"
        "    public Bytes position(int p) { return this; }\n"
        "    public void fill(byte[] a, byte v) {}\n"
        "    public void fill(byte[] a, int from, int to, byte v) {}\n"
        "    public void log(String format, Object... args) {}\n"
        "    public void log() {}\n"
        "}\n"
    )
    (util / "Use.java").write_text(
        "package com.shop.util;\n\npublic class Use {\n    void run(Bytes b) {\n"
        "        b.position();\n        b.position(3);\n"
        "        b.fill(null, 0, 1, (byte) 0);\n        b.fill(null, (byte) 0);\n"
        "        b.log(\"%d %d\", 1, 2);\n"
        "    }\n}\n"
    )
    found = {line: (Path(path).name, start) for line, path, start, _ in calls_in(service, "Use.java")}
    assert found == {
        5: ("Buffer.java", 4),  # position(): the base class's, not Bytes.position(int)
        6: ("Bytes.java", 4),
        7: ("Bytes.java", 6),  # four arguments
        8: ("Bytes.java", 5),  # two
        9: ("Bytes.java", 7),  # varargs
    }


def test_casts_and_types_written_with_their_package_are_followed(service: Codefathom) -> None:
    (service.root / "src/main/java/com/shop/app/Cast.java").write_text(
        "package com.shop.app;\n\npublic class Cast {\n    void run(Object o, com.shop.model.Order order) {\n"
        "        ((com.shop.store.Repo) o).add(order);\n"
        "        order.total();\n"
        "        com.shop.util.Strings.pad(\"x\");\n"
        "    }\n}\n"
    )
    rows = {(line, qualified) for line, _, _, qualified in calls_in(service, "Cast.java")}
    assert rows >= {
        (5, "com.shop.store.Repo.add"),  # a cast to a class named with its package, then a call on it
        (6, "com.shop.model.Order.total"),  # a parameter whose type is written with its package
        (7, "com.shop.util.Strings.pad"),  # a static method of a class named with its package
    }


def calls_in(service: Codefathom, name: str) -> list[tuple[int, str, int, str]]:
    """(line, target's path, target's first line, target's qualified name) of each bound call in
    the file called `name`, after indexing the project."""
    service.index()
    return index_rows(
        service,
        "SELECT r.line, t.path, s.start_line, s.qualified_name FROM refs r JOIN files f ON f.id = r.file_id"
        " JOIN symbols s ON s.id = r.target_id JOIN files t ON t.id = s.file_id"
        " WHERE f.path LIKE ? AND r.kind = 'call'",
        f"%/{name}",
    )


def test_overloads_taking_as_many_arguments_are_told_apart_by_their_types(service: Codefathom) -> None:
    util = service.root / "src/main/java/com/shop/util"
    (util / "Fill.java").write_text(
        "package com.shop.util;\n\npublic class Fill {\n"
        "    public static void fill(Object[] a, Object v) {}\n"
        "    public static void fill(byte[] a, byte v) {}\n"
        "    public static void fill(long[] a, long v) {}\n"
        "    public static int count(String s) { return 0; }\n"
        "    public static int count(int n) { return n; }\n"
        "    public static String label() { return \"\"; }\n"
        "}\n"
    )
    (util / "UseFill.java").write_text(
        "package com.shop.util;\n\npublic class UseFill {\n    void run(byte[] bytes, long[] longs, String name) {\n"
        "        Fill.fill(bytes, (byte) 0);\n"
        "        Fill.fill(longs, 7L);\n"
        "        Fill.fill(new String[2], name);\n"
        "        Fill.count(name);\n"
        "        Fill.count(bytes.length);\n"
        "        Fill.fill(unknown(), whatever());\n"
        "        Fill.count(Fill.label());\n"
        "    }\n}\n"
    )
    found = {
        (line, name): start for line, _, start, name in calls_in(service, "UseFill.java")
        if line != 10 and name != "com.shop.util.Fill.label"
    }
    assert {line: start for (line, _), start in found.items()} == {5: 5, 6: 6, 7: 4, 8: 7, 9: 8, 11: 7}
