"""C references bound to the definitions they mean: `#include` resolved next to the includer and in
include directories (a CMake `target_include_directories`, `src/`), system headers external; a call
through a header's prototype binds to the definition in another file; two `static` functions named
`helper` each bound from their own file only; a struct's function-pointer field called through a
typed receiver; typedefs standing for their struct; macros; libc is builtin."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from conftest import assert_bindings, fixture_project, index_rows

from codefathom.service import Codefathom

MAIN = "src/main.c"
ORDER = "src/order.c"
STORE = "src/store.c"
ORDER_H = "include/shop/order.h"
STORE_H = "include/shop/store.h"
UTIL_H = "src/util.h"

# (path, line) of each reference -> (qualified name of the definition it means, label)
EXPECTED = {
    (MAIN, 4): ("store_new", "exact"),  # declared in store.h, defined in store.c
    (MAIN, 5): ("order_new", "exact"),  # declared in order.h, which store.h includes
    (MAIN, 6): ("store_add", "exact"),
    (MAIN, 7): ("order_total", "exact"),
    (ORDER, 6): ("twice", "exact"),  # a static inline function of an included header
    (ORDER, 17): ("clamp", "exact"),  # declared in src/util.h, defined in src/util.c
    (ORDER, 21): ("log_line", "likely"),  # declared nowhere, defined once in the project
    (STORE, 20): ("order_ops.save", "high"),  # s->ops->save(): a function-pointer field
    (STORE, 21): ("order_total", "exact"),
}
EXPECTED_ON_LINE = {(ORDER, 17): ("ORDER_TOTAL", "exact")}  # a function-like macro
# Types and names read, not called: (path, line, name) -> (qualified name, label).
USES = {
    (STORE, 9, "order_save"): ("order_save", "exact"),  # a function read as a pointer in an initializer
    (STORE, 9, "order_ops"): ("order_ops", "exact"),
    (STORE_H, 9, "order_t"): ("order_t", "exact"),  # a typedef, through `#include "order.h"`
    (STORE_H, 11, "order_ops"): ("order_ops", "exact"),
    (MAIN, 4, "store_t"): ("store_t", "exact"),
    (ORDER, 17, "MAX_QTY"): ("MAX_QTY", "exact"),  # a macro constant passed as an argument
}
# `s->ops->save(o)` is the field, never the function a default table happens to hold.
NEVER_BOUND = {(STORE, 21): {"order_save"}, (STORE, 20): {"order_save"}}


@pytest.fixture
def service(tmp_path: Path) -> Codefathom:
    project: Codefathom = fixture_project(tmp_path, "bindings-c")
    return project



def test_c_references_bind_to_the_definition_they_mean(service: Codefathom) -> None:
    assert_bindings(service, (EXPECTED, EXPECTED_ON_LINE), NEVER_BOUND)


def test_types_typedefs_and_function_pointers_read_are_references(service: Codefathom) -> None:
    service.index()
    rows = index_rows(
        service,
        "SELECT f.path, r.line, r.name, s.qualified_name, r.label FROM refs r JOIN files f ON f.id = r.file_id"
        " LEFT JOIN symbols s ON s.id = r.target_id WHERE r.kind IN ('type', 'read')",
    )
    found = {(path, line, name): (target, label) for path, line, name, target, label in rows}
    assert {site: found.get(site) for site in USES} == USES


def test_a_static_function_binds_only_in_its_own_file(service: Codefathom) -> None:
    service.index()
    calls = index_rows(
        service,
        "SELECT f.path, r.line, t.path, r.label FROM refs r JOIN files f ON f.id = r.file_id"
        " JOIN symbols s ON s.id = r.target_id JOIN files t ON t.id = s.file_id WHERE r.name = 'helper'"
        " ORDER BY f.path",
    )
    assert calls == [(ORDER, 12, ORDER, "exact"), (STORE, 19, STORE, "exact")]


def test_libc_is_builtin_and_system_headers_are_external(service: Codefathom) -> None:
    service.index()
    labels = dict(index_rows(
        service, "SELECT r.name, r.label FROM refs r JOIN files f ON f.id = r.file_id WHERE r.name IN (?, ?, ?)",
        "printf", "malloc", "calloc",
    ))
    assert labels == {"printf": "builtin", "malloc": "builtin", "calloc": "builtin"}
    includes = index_rows(
        service,
        "SELECT f.path, i.module, t.path, i.external FROM imports i JOIN files f ON f.id = i.file_id"
        " LEFT JOIN files t ON t.id = i.target_file_id ORDER BY f.path, i.line",
    )
    assert includes == [
        (STORE_H, "order.h", ORDER_H, 0),  # next to the includer
        (MAIN, "shop/store.h", STORE_H, 0),  # the include directory CMakeLists.txt names
        (ORDER, "<stdlib.h>", None, 1),
        (ORDER, "shop/order.h", ORDER_H, 0),
        (ORDER, "util.h", UTIL_H, 0),
        (STORE, "<stdio.h>", None, 1),
        (STORE, "<stdlib.h>", None, 1),
        (STORE, "<shop/store.h>", STORE_H, 0),  # an angle include the project has
        ("src/util.c", "util.h", UTIL_H, 0),
    ]


def test_deps_and_impact_follow_includes(service: Codefathom) -> None:
    service.index()
    deps = service.deps(MAIN, fresh=False)
    assert {child.path for child in deps.roots[0].children} == {STORE_H, "src/store.c", ORDER, "include/shop/order.h"}
    dependents = service.deps(ORDER_H, reverse=True, depth=1, fresh=False)
    assert {STORE_H, ORDER, STORE, MAIN} <= {child.path for child in dependents.roots[0].children}
    callers = service.call_hierarchy("order_total", fresh=False)
    assert {c.symbol.qualified_name for c in callers.roots[0].children if c.symbol} == {"main", "store_add"}


def test_dead_code_knows_main_static_and_the_public_headers(service: Codefathom) -> None:
    service.index()
    dead = service.dead(fresh=False)
    unused = {d.symbol.qualified_name: d.confidence for d in dead.unused}
    public = {d.symbol.qualified_name for d in dead.public_api}
    assert unused == {"order_unused": 0.9, "util_unused": 0.7}  # static; not static, so maybe linked
    # Declared or defined under include/: the library's API (the struct is used through its typedef only).
    assert public == {"order_count", "order"}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a call binds to the platform the index is built on")
def test_a_function_defined_once_per_platform_binds_to_this_platform_s(service: Codefathom) -> None:
    files = {
        "src/loop.c": "#include <stdio.h>\n#include <unistd.h>\nint loop_run(char *b, int fd) {\n"
                      "    io_poll();\n    io_wake();\n    io_close();\n"
                      "    snprintf(b, 4, \"%d\", fd);\n    return read(fd, b, 4);\n}\n",
        "src/unix/linux.c": "void io_poll(void) {}\nvoid io_close(void) {}\n",
        "src/unix/core.c": "#include <stdio.h>\n#ifdef _WIN32\nvoid io_init(void) {}\n#elif defined(__linux__)\n"
                           "void io_init(void) {}\n#else\nvoid io_init(void) {}\n#endif\n"
                           "#if defined(__sun)\n# define fdopen(fd, m) solaris_fdopen(fd, m)\n#endif\n"
                           "void core_run(void) { io_init(); fdopen(1, \"r\"); }\n",
        "src/unix/kqueue.c": "void io_poll(void) {}\n",
        "src/unix/posix-io.c": "void io_wake(void) {}\nvoid io_close(void) {}\n",
        "src/win/core.c": "void io_poll(void) {}\nvoid io_wake(void) {}\n",
        "src/win/snprintf.c": "int snprintf(char *b, unsigned n, const char *f, ...) { return 0; }\n",
        "test/runner.c": "#include <io.h>\n# define read _read\nint run(void) { return 0; }\n",
    }
    for path, text in files.items():
        (service.root / path).parent.mkdir(parents=True, exist_ok=True)
        (service.root / path).write_text(text)
    service.index()
    rows = index_rows(
        service,
        "SELECT r.name, t.path, r.label FROM refs r JOIN files f ON f.id = r.file_id"
        " LEFT JOIN symbols s ON s.id = r.target_id LEFT JOIN files t ON t.id = s.file_id"
        " WHERE f.path = 'src/loop.c' AND r.kind = 'call'",
    )
    assert {name: (path, label) for name, path, label in rows} == {
        "io_poll": ("src/unix/linux.c", "high"),  # kqueue.c and win/ are other platforms' files
        "io_wake": ("src/unix/posix-io.c", "high"),  # the one left once win/ is set aside
        "io_close": ("src/unix/linux.c", "likely"),  # linux.c over a file for no platform in particular
        "snprintf": (None, "builtin"),  # libc's, not the Windows shim
        "read": (None, "builtin"),  # a macro of another source file is that file's alone
    }
    # `#if` branches this platform's compiler drops define nothing here.
    rows = index_rows(
        service,
        "SELECT r.name, s.start_line, r.label FROM refs r JOIN files f ON f.id = r.file_id"
        " LEFT JOIN symbols s ON s.id = r.target_id WHERE f.path = 'src/unix/core.c' AND r.kind = 'call'",
    )
    assert {name: (line, label) for name, line, label in rows} == {
        "io_init": (5, "exact"),  # the `#elif defined(__linux__)` one, not `#ifdef _WIN32`'s or `#else`'s
        "fdopen": (None, "builtin"),  # libc's: the macro is Solaris's
    }
    # The other platforms' copies of a used function are used where they are built: not dead.
    dead = {(d.symbol.path, d.symbol.name) for d in service.dead(fresh=False).unused}
    elsewhere = {("src/win/core.c", "io_poll"), ("src/unix/kqueue.c", "io_poll"), ("src/win/snprintf.c", "snprintf")}
    assert not elsewhere & dead
    undead = {(d.symbol.path, d.symbol.name, d.symbol.start_line) for d in service.dead(fresh=False).unused}
    assert not {("src/unix/core.c", "io_init", 3), ("src/unix/core.c", "fdopen", 10)} & undead  # not built here
    assert ("src/loop.c", "loop_run") in dead  # (the rule is about namesakes, not every function)
