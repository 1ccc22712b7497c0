"""Reference-binding accuracy (C): codefathom's call bindings checked against clang.

    pip install libclang==18.1.1     # into the environment codefathom runs in (the oracle, not a dependency)
    python bench/graph_accuracy_c.py                          # libuv 1.48.0, its Linux build
    python bench/graph_accuracy_c.py --limit 2000
    python bench/graph_accuracy_c.py --corpus ~/src/project --json /tmp/accuracy-c.json

The oracle is clang through PyPI's `libclang` (`clang.cindex`, pinned to LIBCLANG below; the wheel
carries libclang.so). To keep codefathom's own environment as it is, give the oracle a venv and
put codefathom's packages beside it:
    python3 -m venv /tmp/venv-clang && /tmp/venv-clang/bin/pip install libclang==18.1.1
    PYTHONPATH=src:.venv/lib/python3.11/site-packages /tmp/venv-clang/bin/python bench/graph_accuracy_c.py
The wheel has no compiler headers (stddef.h, stdarg.h): those of the system's compiler are put on
the include path (`clang -print-resource-dir`, else `cc -print-file-name=include`), and the C
library's are the system's (/usr/include). With gcc's stdatomic.h clang reports errors on the
atomic operations of a few units (the report counts them); the calls around them stay in its AST.
libuv is the quality lab's corpus (bench/lab/corpora.py: libuv 1.48.0 as vendored in uvloop
0.21.0's sdist, downloaded with pip on first use, under bench/.corpora/quality/src/). It is
indexed whole with the real service (`codefathom.service.Codefathom`) into a temporary index
directory, and its `refs`, `symbols` and `files` tables are read read-only from SQLite.

clang parses the translation units of the build it can compile here: libuv's Linux build as its
CMakeLists.txt lists it, the library (src/*.c, the unix sources and the Linux ones), the tests
(test/test-*.c with their runner) and the benchmarks, with `-std=gnu11 -D_GNU_SOURCE
-D_POSIX_C_SOURCE=200112 -Iinclude -Isrc -Itest`. src/win/ needs Windows' headers, and the other
platforms' sources (kqueue.c, darwin.c, aix.c, ...) are not in that build: their refs, and those
of headers no unit includes, are not scored (the report says how many). A unit with a fatal error
(a missing header) is left out too. A directory given with --corpus is parsed whole but for win/
directories, with -Iinclude -Isrc, as one program. Every call (CALL_EXPR) in a file of the corpus
is recorded at the place of its called name: 1-based line and 0-based byte column, as
codefathom's refs hold it (a call written in a macro's argument is at its place there; a call a
macro's body makes belongs to the macro, where its name is written). Places are deduplicated over
the units (a header's inline functions are seen by each unit including it); answers that differ
between units (`#if`, a .c file another includes: test-idna.c includes src/idna.c after a
`#define uv__malloc malloc`) are all kept, and either is right. What clang says a place names:
  a named function   its definition (`get_definition()`) when the unit has it (a static function,
                     a static inline one of a header, one of the same file), else the definitions
                     of that name with external linkage in the units of its program (a test also
                     sees the library's); none: the prototype (`prototype only`); a function
                     declared outside the corpus (libc) is a `system function`
  a macro            a macro invoked with `(` at that name (function-like, or object-like naming a
                     function or macro): its definition active in that unit, or a `system macro`
  a pointer          a call through a struct field (`handle->close_cb(h)`): the field; through a
                     global variable: the variable; through a parameter or a local: `local pointer`
A ref clang has nothing at is on lines it skipped in every unit including the file (`#if`'d out
on Linux), in a macro's body (`#define`: its calls are seen where it is invoked), or `none`.
  oracle in-project  the answer lies in a file of the corpus and is not a local pointer
  correct            our target is in the oracle's file and the oracle's line lies in our symbol's
                     [start_line, end_line] with the same name. codefathom makes no symbols for
                     prototypes (graph/cfamily.py): binding to a prototype where clang names the
                     definition is its own pattern (`the prototype`) and scored wrong; the looser
                     precision beside the strict one also takes a target of the oracle's name in
                     its file (a macro's other `#if` branch) or at the prototype the unit saw
  precision (label)  correct / bound refs of that label the oracle answered at all (an answer
                     outside the corpus, or a local pointer, counts against us)
  recall             correct / calls the oracle resolves in-project (exact+high, and any label);
                     "nameable" recall counts only answers codefathom has a symbol for (a
                     function a macro writes, `UV_LOOP_WATCHER_DEFINE(prepare, ...)`, has none)
Beside that: the calls clang sees to a project function where codefathom has no call ref.
The oracle's answers are cached per corpus, libclang version and cache format
(bench/.corpora/<corpus>.libclang-<version>.v<format>.json), so a re-run after a change to the
binder only re-indexes; `--no-cache` asks again and rewrites it. Mismatches and misses, grouped
by pattern (wrong or missed, label, shape of the call, what clang answered, and for a wrong one
how our target relates to it and whether clang compiled it; for an unbound one its number of
candidates and where the others sit) with examples, go to the JSON file (--json, default
bench/results/graph-accuracy-c.json).
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import shutil
import subprocess
import sys
import time
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any

from accuracy_report import print_lists, scratch_index, share, write_results  # the script directory is on sys.path
from graph_accuracy_ts import BOUND, LABELS, Symbols, pct, shape  # the script directory is on sys.path
from lab.corpora import CORPORA as LAB_CORPORA
from lab.corpora import ensure_src
from sdist import spread_sample

BENCH_DIR = Path(__file__).resolve().parent
CORPORA = BENCH_DIR / ".corpora"
RESULTS = BENCH_DIR / "results"

LIBCLANG = "18.1.1"  # the oracle: PyPI `libclang`, exact version
CACHE_FORMAT = 1
EXAMPLES_PER_PATTERN = 8
TOP_PATTERNS = 40


@dataclass(frozen=True)
class Program:
    """A program (or library) of the build: the globs of its sources, relative to the root, and
    the programs it links, whose definitions its calls also reach."""

    name: str
    sources: tuple[str, ...]
    links: tuple[str, ...] = ()


@dataclass(frozen=True)
class Build:
    lab: str  # the quality lab's corpus (bench/lab/corpora.py)
    args: tuple[str, ...]  # clang's arguments; -I directories relative to the root
    programs: tuple[Program, ...]
    note: str


_UV_LIB = (  # CMakeLists.txt: uv_sources, the unix sources, then the Linux ones
    "src/fs-poll.c", "src/idna.c", "src/inet.c", "src/random.c", "src/strscpy.c", "src/strtok.c",
    "src/thread-common.c", "src/threadpool.c", "src/timer.c", "src/uv-common.c", "src/uv-data-getter-setters.c",
    "src/version.c",
    "src/unix/async.c", "src/unix/core.c", "src/unix/dl.c", "src/unix/fs.c", "src/unix/getaddrinfo.c",
    "src/unix/getnameinfo.c", "src/unix/loop-watcher.c", "src/unix/loop.c", "src/unix/pipe.c", "src/unix/poll.c",
    "src/unix/process.c", "src/unix/random-devurandom.c", "src/unix/signal.c", "src/unix/stream.c",
    "src/unix/tcp.c", "src/unix/thread.c", "src/unix/tty.c", "src/unix/udp.c",
    "src/unix/proctitle.c", "src/unix/linux.c", "src/unix/procfs-exepath.c", "src/unix/random-getrandom.c",
    "src/unix/random-sysctl-linux.c",
)
_UV_RUNNER = ("test/runner-unix.c", "test/runner.c", "test/blackhole-server.c", "test/echo-server.c")
PINNED: dict[str, Build] = {
    "libuv": Build(
        "libuv",
        ("-std=gnu11", "-D_GNU_SOURCE", "-D_POSIX_C_SOURCE=200112", "-Iinclude", "-Isrc", "-Itest"),
        (
            Program("libuv", _UV_LIB),
            Program("uv_run_tests", (*_UV_RUNNER, "test/run-tests.c", "test/test-*.c"), links=("libuv",)),
            Program("uv_run_benchmarks", (*_UV_RUNNER, "test/run-benchmarks.c", "test/benchmark-*.c"),
                    links=("libuv",)),
        ),
        "Linux build (CMakeLists.txt): the library, uv_run_tests, uv_run_benchmarks",
    ),
}
DEFAULT_CORPORA = ("libuv",)
C_LANGUAGES = ("c",)
# categories of the oracle's answers that are no declaration of the corpus codefathom could name
NOT_PROJECT = frozenset({"system function", "system macro", "builtin", "local pointer", "expression"})


# ----------------------------------------------------------------------------- our side

Globals = dict[str, list[tuple[str, int, int]]]  # name -> (path, start line, end line) of each definition
GLOBAL_KINDS = ("function", "constant", "class")  # what a C file's top level defines (constant: a macro)


@dataclass(frozen=True, slots=True)
class Call:
    path: str
    line: int
    col: int  # 0-based byte column of the called name (tree-sitter)
    name: str
    receiver: str
    label: str
    candidates: int  # definitions an unbound name could mean
    target: tuple[str, int, int, str, str, str] | None  # path, start, end, name, qualified name, kind


def index_calls(
    root: Path,
) -> tuple[list[Call], dict[str, str], Symbols, Globals, dict[tuple[str, int, int], str], float]:
    """The call refs of the corpus's C files, every C file with its status, every symbol, the
    functions, macros and types by name, the position of every ref of any kind (-> its kind), and
    the seconds indexing took."""
    marks = ",".join("?" * len(C_LANGUAGES))
    with scratch_index(root, "codefathom-accuracy-c-") as (conn, seconds):
        rows = conn.execute(
            "SELECT f.path, r.line, r.col, r.name, r.receiver, r.label, r.candidates,"
            " tf.path, s.start_line, s.end_line, s.name, s.qualified_name, s.kind"
            " FROM refs r JOIN files f ON f.id = r.file_id"
            " LEFT JOIN symbols s ON s.id = r.target_id LEFT JOIN files tf ON tf.id = s.file_id"
            f" WHERE r.kind = 'call' AND f.language IN ({marks}) ORDER BY f.path, r.line, r.col",
            C_LANGUAGES,
        ).fetchall()
        statuses = dict(conn.execute(
            f"SELECT path, status FROM files WHERE language IN ({marks}) ORDER BY path", C_LANGUAGES).fetchall())
        positions = {  # (a call last: it is the one kept at its place)
            (path, line, col): kind for path, line, col, kind in conn.execute(
                "SELECT f.path, r.line, r.col, r.kind FROM refs r JOIN files f ON f.id = r.file_id"
                f" WHERE f.language IN ({marks}) ORDER BY r.kind = 'call'", C_LANGUAGES)
        }
        symbols: Symbols = defaultdict(list)
        globals_: Globals = defaultdict(list)
        for path, start, end, name, kind in conn.execute(
            "SELECT f.path, s.start_line, s.end_line, s.name, s.kind"
            " FROM symbols s JOIN files f ON f.id = s.file_id"
        ):
            symbols[path].append((start, end, name))
            if kind in GLOBAL_KINDS:
                globals_[name].append((path, start, end))
    calls = [
        Call(p, line, col, name, receiver, label, cands, (tp, s, e, n, q, k) if tp is not None else None)
        for p, line, col, name, receiver, label, cands, tp, s, e, n, q, k in rows
    ]
    return calls, statuses, symbols, globals_, positions, seconds


# ----------------------------------------------------------------------------- the oracle's side

# One answer of the oracle: (path relative to the root or None outside it, 1-based line of the
# declaration's name, name, category, file name when outside, prototype's path, prototype's line)
Answer = tuple[str | None, int, str, str, str, str | None, int]
_CLANG: Any = None  # clang.cindex, once a worker loaded it


def load_clang() -> Any:
    """clang.cindex, with the few libclang functions its Python binding leaves out declared;
    exits with a clear message when the package is missing or not the pinned version."""
    global _CLANG
    if _CLANG is not None:
        return _CLANG
    try:
        import ctypes
        from importlib.metadata import version

        import clang.cindex as cindex  # type: ignore[import-not-found]
    except ImportError:
        raise SystemExit(f"the oracle is clang through the libclang package: pip install libclang=={LIBCLANG}"
                         " into the environment codefathom runs in") from None
    installed = version("libclang")
    if installed != LIBCLANG:
        raise SystemExit(f"libclang {installed} is installed, the oracle is pinned to {LIBCLANG}:"
                         f" pip install libclang=={LIBCLANG}")
    lib = cindex.conf.lib
    unsigned = ctypes.POINTER(ctypes.c_uint)
    lib.clang_getFileLocation.argtypes = [cindex.SourceLocation, ctypes.POINTER(cindex.c_object_p), unsigned,
                                          unsigned, unsigned]
    lib.clang_getFileLocation.restype = None

    class RangeList(ctypes.Structure):
        _fields_ = [("count", ctypes.c_uint), ("ranges", ctypes.POINTER(cindex.SourceRange))]

    lib.clang_getAllSkippedRanges.argtypes = [cindex.TranslationUnit]
    lib.clang_getAllSkippedRanges.restype = ctypes.POINTER(RangeList)
    lib.clang_disposeSourceRangeList.argtypes = [ctypes.POINTER(RangeList)]
    lib.clang_disposeSourceRangeList.restype = None
    _CLANG = cindex
    return cindex


def builtin_headers() -> str:
    """The directory of the compiler's own headers (stddef.h, stdarg.h) the libclang wheel lacks."""
    for command in (["clang", "-print-resource-dir"], ["cc", "-print-file-name=include"]):
        if shutil.which(command[0]) is None:
            continue
        out = subprocess.run(command, capture_output=True, text=True).stdout.strip()
        directory = Path(out) / "include" if command[0] == "clang" else Path(out)
        if (directory / "stddef.h").is_file():
            return str(directory)
    raise SystemExit("no compiler headers (stddef.h) found: install clang or gcc, whose headers the oracle uses")


class _Unit:
    """What one translation unit tells: its calls by place, the macros invoked like functions, the
    definitions of functions with external linkage, the macros' bodies and the lines it skipped."""

    def __init__(self, root: str, rel: str, args: list[str]) -> None:
        self.root = root.rstrip("/") + "/"
        self.rel = rel
        self.args = args
        self.cindex = load_clang()
        self.lines: dict[str, list[bytes]] = {}

    def where(self, location: Any) -> tuple[str | None, int, int]:
        """(path, 1-based line, 0-based byte column) of a location, where it is in a file: a token
        of a macro's argument at its place there, one of a macro's body where the macro is invoked."""
        import ctypes

        lib = self.cindex.conf.lib
        handle, line, col, offset = self.cindex.c_object_p(), ctypes.c_uint(), ctypes.c_uint(), ctypes.c_uint()
        lib.clang_getFileLocation(location, ctypes.byref(handle), ctypes.byref(line), ctypes.byref(col),
                                  ctypes.byref(offset))
        name = lib.clang_getFileName(self.cindex.File(handle)) if handle else None
        return name, line.value, col.value - 1

    def relative(self, name: str | None) -> str | None:
        """A file's path relative to the root (`test/../src/idna.c` as src/idna.c), None outside it."""
        name = os.path.normpath(name) if name else None
        return name[len(self.root):] if name and name.startswith(self.root) else None

    def text_at(self, path: str, line: int, col: int, length: int) -> str:
        lines = self.lines.get(path)
        if lines is None:
            lines = self.lines[path] = (Path(self.root) / path).read_bytes().split(b"\n")
        return lines[line - 1][col:col + length].decode("utf-8", "replace") if line <= len(lines) else ""

    def declaration(self, cursor: Any) -> tuple[str | None, int, str]:
        """(path in the corpus or None, line, file name) of a declaration's name."""
        name, line, _ = self.where(cursor.location)
        return self.relative(name), line, os.path.basename(name) if name else "builtin"

    def run(self) -> dict[str, Any]:
        ci = self.cindex
        kinds = ci.CursorKind
        index = ci.Index.create()
        tu = index.parse(self.root + self.rel, args=self.args,
                         options=ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD)
        fatal = [str(d) for d in tu.diagnostics if d.severity >= ci.Diagnostic.Fatal]
        errors = [str(d) for d in tu.diagnostics if d.severity == ci.Diagnostic.Error][:5]
        if fatal:
            return {"unit": self.rel, "fatal": fatal[:3], "errors": errors}
        files = {self.rel} | {r for inc in tu.get_includes() if (r := self.relative(inc.include.name))}
        macros: dict[str, Answer] = {}
        bodies: dict[str, list[tuple[int, int]]] = defaultdict(list)  # lines of the macros defined
        calls: dict[str, list[Answer]] = defaultdict(list)
        expanded: dict[str, list[Answer]] = defaultdict(list)
        unresolved: list[tuple[str, str, str, int]] = []  # (position, name, prototype's path, line)
        definitions: list[tuple[str, str, int]] = []  # (name, path, line) of external functions
        for top in tu.cursor.get_children():
            if top.location.file is None or self.relative(top.location.file.name) is None:
                continue
            if top.kind == kinds.MACRO_DEFINITION:
                name, start, _ = self.where(top.extent.start)
                path = self.relative(name)
                if path is not None:
                    bodies[path].append((start, self.where(top.extent.end)[1]))
                continue
            if top.kind == kinds.MACRO_INSTANTIATION:
                name, line, col = self.where(top.location)
                path, target = self.relative(name), top.referenced
                if path is None or target is None or not self.written_as_call(path, line, col, top.spelling):
                    continue
                dpath, dline, where = self.declaration(target)
                category = ("system macro" if dpath is None else "macro" if self.function_like(target)
                            else "object-like macro")
                macros[f"{path}:{line}:{col}"] = (dpath, dline, top.spelling, category, where, None, 0)
                continue
            if top.kind == kinds.FUNCTION_DECL and top.is_definition() and top.linkage == ci.LinkageKind.EXTERNAL:
                dpath, dline, _ = self.declaration(top)
                if dpath is not None and dpath.endswith(".c"):
                    definitions.append((top.spelling, dpath, dline))
            for cursor in top.walk_preorder():
                if cursor.kind == kinds.CALL_EXPR:
                    self.call(cursor, calls, expanded, unresolved)
        for key in macros.keys() & calls.keys():  # the calls a macro invoked there makes are the macro's
            expanded[key].extend(calls.pop(key))
        unresolved = [entry for entry in unresolved if entry[0] not in macros]
        return {"unit": self.rel, "fatal": [], "errors": errors, "files": sorted(files), "calls": calls,
                "expanded": expanded, "macros": macros, "unresolved": unresolved, "definitions": definitions,
                "skipped": self.skipped(tu, files), "macro_bodies": bodies}

    def written_as_call(self, path: str, line: int, col: int, name: str) -> bool:
        """A macro's name at a place, followed by `(`: invoked like a function (a function-like
        macro, or an object-like one that names a function or another macro)."""
        text = self.text_at(path, line, col, 4096)
        return text.startswith(name) and text[len(name):].lstrip().startswith("(")

    def function_like(self, definition: Any) -> bool:
        """Whether a macro definition takes arguments: its name and `(` with no space between
        (read from its tokens: libclang's own test knows no macro `#undef`'d by the end)."""
        tokens = list(islice(definition.get_tokens(), 2))
        return (len(tokens) == 2 and tokens[1].spelling == "("
                and tokens[1].extent.start.offset == tokens[0].extent.end.offset)

    def call(self, cursor: Any, calls: dict[str, list[Answer]], expanded: dict[str, list[Answer]],
             unresolved: list[tuple[str, str, str, int]]) -> None:
        kinds = self.cindex.CursorKind
        callee = next(iter(cursor.get_children()), None)
        while callee is not None and callee.kind in (kinds.UNEXPOSED_EXPR, kinds.PAREN_EXPR):
            callee = next(iter(callee.get_children()), None)
        if callee is None:
            return
        name, line, col = self.where(callee.location)
        path = self.relative(name)
        if path is None:
            return  # a call a system macro's body makes
        target = callee.referenced
        spelling = target.spelling if target is not None else callee.spelling
        key = f"{path}:{line}:{col}"
        direct = bool(spelling) and self.text_at(path, line, col, len(spelling) + 1)[:len(spelling)] == spelling
        answers = calls[key] if direct else expanded[key]
        if callee.kind not in (kinds.DECL_REF_EXPR, kinds.MEMBER_REF_EXPR) or target is None:
            answers.append((None, 0, spelling or "", "expression", "", None, 0))
            return
        if target.kind == kinds.FIELD_DECL:
            dpath, dline, where = self.declaration(target)
            answers.append((dpath, dline, spelling, "field pointer" if dpath else "system field pointer", where,
                            None, 0))
            return
        if target.kind in (kinds.PARM_DECL, kinds.VAR_DECL):
            dpath, dline, where = self.declaration(target)
            local = target.kind == kinds.PARM_DECL or target.semantic_parent.kind != kinds.TRANSLATION_UNIT
            answers.append((dpath if not local else None, dline, spelling,
                            "local pointer" if local else "global pointer", where, None, 0))
            return
        if target.kind != kinds.FUNCTION_DECL:
            answers.append((None, 0, spelling, "expression", "", None, 0))
            return
        dpath, dline, where = self.declaration(target)
        if dpath is None:
            answers.append((None, 0, spelling, "builtin" if where == "builtin" else "system function", where,
                            None, 0))
            return
        definition = target.get_definition()
        if definition is not None:
            path_def, line_def, _ = self.declaration(definition)
            static = definition.linkage == self.cindex.LinkageKind.INTERNAL
            suffix = ".c" if (path_def or "").endswith(".c") else ".h"
            category = f"{'static ' if static else ''}function ({suffix})"
            proto = (dpath, dline) if (dpath, dline) != (path_def, line_def) else (None, 0)
            answers.append((path_def, line_def, spelling, category, "", *proto))
            return
        # only a prototype in this unit: the definition is another unit's, looked up when all are in
        if direct:
            unresolved.append((key, spelling, dpath, dline))
        else:
            answers.append((dpath, dline, spelling, "prototype", "", dpath, dline))

    def skipped(self, tu: Any, files: set[str]) -> dict[str, list[tuple[int, int]]]:
        """The line ranges of the corpus's files the preprocessor skipped in this unit (`#if 0`)."""
        lib = self.cindex.conf.lib
        found: dict[str, list[tuple[int, int]]] = defaultdict(list)
        ranges = lib.clang_getAllSkippedRanges(tu)
        try:
            for i in range(ranges.contents.count):
                extent = ranges.contents.ranges[i]
                start, end = extent.start, extent.end
                path = self.relative(start.file.name) if start.file else None
                if path in files:
                    found[path].append((start.line, end.line))
        finally:
            lib.clang_disposeSourceRangeList(ranges)
        return found


def _parse_unit(job: tuple[str, str, list[str]]) -> dict[str, Any]:
    return _Unit(*job).run()


def units_of(root: Path, build: Build | None) -> tuple[dict[str, set[str]], dict[str, tuple[str, ...]], list[str]]:
    """The units clang parses (-> the programs each is in), the programs' links, and the C files of
    the corpus left out. Without a build: every .c file outside win/ directories, one program."""
    sources = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.c") if ".git" not in p.parts)
    programs: dict[str, set[str]] = defaultdict(set)
    links: dict[str, tuple[str, ...]] = {}
    if build is None:
        for rel in sources:
            if not {"win", "windows", "win32"} & set(rel.split("/")):
                programs[rel].add("all")
        links["all"] = ()
    else:
        for program in build.programs:
            links[program.name] = program.links
            for rel in sources:
                if any(fnmatch.fnmatchcase(rel, glob) for glob in program.sources):
                    programs[rel].add(program.name)
    return dict(programs), links, [rel for rel in sources if rel not in programs]


def clang_args(root: Path, build: Build | None) -> list[str]:
    if build is not None:
        written = list(build.args)
    else:
        written = ["-std=gnu11", "-D_GNU_SOURCE"] + [f"-I{d}" for d in ("include", "src") if (root / d).is_dir()]
    args = [f"-I{root / a[2:]}" if a.startswith("-I") else a for a in written]
    return [*args, "-isystem", builtin_headers()]


def ask_oracle(root: Path, build: Build | None, cache_file: Path | None, refresh: bool = False) -> dict[str, Any]:
    """clang's answers for every call position of the units it parsed (from the cache when it has
    them, unless `refresh`), with the files it saw, the lines it skipped everywhere and what it
    left out."""
    if cache_file is not None and cache_file.exists() and not refresh:
        cached: dict[str, Any] = json.loads(cache_file.read_text())
        return cached
    cindex = load_clang()
    programs, links, left_out = units_of(root, build)
    args = clang_args(root, build)
    jobs = [(str(root), rel, args) for rel in programs]
    print(f"parsing {len(jobs)} translation units with libclang {LIBCLANG} ...", file=sys.stderr)
    del cindex
    started = time.perf_counter()
    results = []
    with ProcessPoolExecutor(os.cpu_count() or 1) as pool:
        for done, result in enumerate(pool.map(_parse_unit, jobs, chunksize=4), 1):
            results.append(result)
            if done % 50 == 0 or done == len(jobs):
                print(f"  {done}/{len(jobs)} units, {time.perf_counter() - started:.0f}s", file=sys.stderr)
    # external definitions per program, for the calls a unit saw only a prototype of
    defined: dict[str, dict[str, set[tuple[str, int]]]] = defaultdict(lambda: defaultdict(set))
    for result in results:
        for name, path, line in result.get("definitions", ()):
            for program in programs[result["unit"]]:
                defined[program][name].add((path, line))
    positions: dict[str, list[Answer]] = defaultdict(list)
    expanded: dict[str, list[Answer]] = defaultdict(list)
    seen_by: dict[str, int] = Counter()
    skipped: dict[str, Counter[int]] = defaultdict(Counter)
    bodies: dict[str, set[int]] = defaultdict(set)
    for result in results:
        if result["fatal"]:
            continue
        for path in result["files"]:
            seen_by[path] += 1
        for path, ranges in result["skipped"].items():
            skipped[path].update({line for start, end in ranges for line in range(start, end + 1)})
        for path, ranges in result["macro_bodies"].items():
            bodies[path].update(line for start, end in ranges for line in range(start, end + 1))
        for table, into in ((result["calls"], positions), (result["expanded"], expanded)):
            for key, answers in table.items():
                into[key].extend(tuple(a) for a in answers)
        for key, answer in result["macros"].items():
            positions[key].insert(0, tuple(answer))
        for key, name, proto_path, proto_line in result["unresolved"]:
            found: set[tuple[str, int]] = set()
            for program in programs[result["unit"]]:
                found |= defined[program].get(name, set())
                if not found:
                    for linked in links[program]:
                        found |= defined[linked].get(name, set())
            if not found:
                positions[key].append((proto_path, proto_line, name, "prototype only", "", proto_path, proto_line))
            for path, line in sorted(found):
                positions[key].append((path, line, name, "function (.c)", "", proto_path, proto_line))
    oracle = {
        "libclang": LIBCLANG, "args": args[:-2], "units": len(jobs),
        "fatal": {r["unit"]: r["fatal"] for r in results if r["fatal"]},
        "unit_errors": {r["unit"]: r["errors"] for r in results if r["errors"]},  # error diagnostics, by unit
        "left_out": left_out, "files": dict(sorted(seen_by.items())),
        "positions": {key: _unique(answers) for key, answers in sorted(positions.items())},
        "expanded": {key: _unique(answers) for key, answers in sorted(expanded.items())},
        "inactive": {path: _ranges(line for line, count in lines.items() if count >= seen_by[path])
                     for path, lines in sorted(skipped.items())},
        "macro_bodies": {path: _ranges(lines) for path, lines in sorted(bodies.items())},
        "parse_seconds": round(time.perf_counter() - started, 1),
    }
    if cache_file is not None:
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        cache_file.write_text(json.dumps(oracle))
    return oracle


def _unique(answers: list[Answer]) -> list[Answer]:
    return list(dict.fromkeys(answers))


def _ranges(lines: Any) -> list[tuple[int, int]]:
    ranges: list[list[int]] = []
    for line in sorted(lines):
        if ranges and ranges[-1][1] == line - 1:
            ranges[-1][1] = line
        else:
            ranges.append([line, line])
    return [(start, end) for start, end in ranges]


# ----------------------------------------------------------------------------- scoring


def answer_kind(answer: Answer) -> str:
    """project (a declaration of the corpus) | local (a pointer parameter or local) | outside."""
    if answer[3] == "local pointer":
        return "local"
    return "outside" if answer[0] is None or answer[3] in NOT_PROJECT else "project"


def unanswered(oracle: dict[str, Any], call: Call) -> str:
    """Why clang has no call at a ref's place: `inactive` (#if'd out on this platform), `#define`
    (in a macro's body: clang sees the calls it makes where it is invoked), else `none`."""
    for why, table in (("inactive", oracle["inactive"]), ("#define", oracle["macro_bodies"])):
        if any(start <= call.line <= end for start, end in table.get(call.path, ())):
            return why
    return "none"


def nameable(answer: Answer, symbols: Symbols) -> bool:
    """codefathom has a symbol for the oracle's declaration: one of that name in its file whose
    lines hold the oracle's line (so a call to it is the binder's to get right)."""
    return any(start <= answer[1] <= end and n == answer[2] for start, end, n in symbols.get(answer[0] or "", ()))


def matches(call: Call, answers: list[Answer]) -> bool:
    """Our target is the oracle's: the same file, the oracle's line inside our symbol, the same name."""
    if call.target is None:
        return False
    path, start, end, name, _, _ = call.target
    return any(a[0] == path and start <= a[1] <= end and a[2] == name for a in answers if answer_kind(a) == "project")


def loosely(call: Call, answers: list[Answer]) -> bool:
    """Our target has the oracle's name and is in its file (another definition of it there, a
    macro's other `#if` branch) or is the prototype the unit saw."""
    if call.target is None:
        return False
    path, start, end, name, _, _ = call.target
    return any(a[2] == name and (a[0] == path or (a[5] == path and start <= a[6] <= end))
               for a in answers if answer_kind(a) == "project")


def placement(oracle: dict[str, Any], path: str, line: int) -> str:
    """Where a definition of ours sits for the oracle: in a file no unit saw (`not built`), on
    lines every unit skipped (`#if'd out`), else `active`."""
    if path not in oracle["files"]:
        return "not built"
    if any(first <= line <= last for first, last in oracle["inactive"].get(path, ())):
        return "#if'd out"
    return "active"


def rivals(call: Call, answers: list[Answer], oracle: dict[str, Any], by_name: Globals) -> str:
    """For a name left unbound among several definitions: where the definitions of that name other
    than the oracle's sit (`others not built` when each is in a file no unit saw, ...)."""
    others = [(path, start) for path, start, end in by_name.get(call.name, ())
              if not any(a[0] == path and start <= a[1] <= end for a in answers)]
    places = {placement(oracle, path, start) for path, start in others}
    for place in ("active", "#if'd out", "not built"):
        if place in places:
            return f", others {place}"
    return ""


def relation(call: Call, answers: list[Answer], oracle: dict[str, Any]) -> str:
    """How a wrong target relates to the oracle's answer (the pattern's last words): its kind; the
    prototype the unit saw, the same file as the oracle's (another definition of the name there),
    another file, another name, or a symbol of ours where clang names something outside the corpus;
    and whether the target is in a file clang never saw (`not built`), on lines it skipped (`#if'd
    out`) or `active`."""
    assert call.target is not None
    path, start, end, name, _, kind = call.target
    where = placement(oracle, path, start)
    if name not in {a[2] for a in answers}:
        how = "other name"
    elif all(answer_kind(a) != "project" for a in answers):
        how = "oracle outside"
    elif any(a[5] == path and start <= a[6] <= end for a in answers):
        how = "the prototype"
    elif loosely(call, answers):
        how = "same file"
    else:
        how = "other file"
    return f"ours={kind}, {how}, {where}"


def score(calls: list[Call], oracle: dict[str, Any], symbols: Symbols, by_name: Globals, partial: set[str],
          positions: dict[tuple[str, int, int], str]) -> dict[str, Any]:
    """Counts per label, precision, recall, recall by the oracle's category of declaration, the
    mismatches grouped by pattern, and the calls clang sees that we have no call ref for."""
    per_label: dict[str, Counter[str]] = {label: Counter() for label in LABELS}
    patterns: dict[str, list[dict[str, Any]]] = defaultdict(list)
    by_category: dict[str, Counter[str]] = defaultdict(Counter)
    resolvable = 0
    recall: Counter[str] = Counter()
    answered = oracle["positions"]
    for call in calls:
        key = f"{call.path}:{call.line}:{call.col}"
        answers = [tuple(a) for a in answered.get(key, ())]
        kinds = {answer_kind(a) for a in answers}
        counts = per_label.setdefault(call.label, Counter())
        counts["refs"] += 1
        ok = matches(call, answers)
        in_project = "project" in kinds
        resolvable += in_project
        if in_project:
            counts["oracle_in_project"] += 1
        elif answers:
            counts["oracle_elsewhere"] += 1
        else:
            counts[f"oracle_{unanswered(oracle, call)}"] += 1
        if call.label in BOUND and answers:
            counts["checked"] += 1
            counts["correct"] += ok
            counts["loose"] += ok or loosely(call, answers)
        if ok:
            counts["recalled"] += 1
        first = next((a for a in answers if answer_kind(a) == "project"), answers[0]) if answers else None
        category = first[3] if first is not None else unanswered(oracle, call)
        if in_project:
            assert first is not None
            has_symbol = any(nameable(a, symbols) for a in answers if answer_kind(a) == "project")
            trusted = ok and call.label in ("exact", "high")
            for key_, counted in (("in_project", True), ("recalled_exact_high", trusted), ("recalled_any", ok)):
                by_category[category][key_] += counted
                if has_symbol:
                    recall[f"nameable_{key_}"] += counted
        wrong = call.label in BOUND and bool(answers) and not ok
        missed = in_project and not ok and not wrong
        if missed and first is not None and first[0] in partial:
            recall["missed_in_partial_file"] += 1
        if wrong or missed:
            if wrong:
                detail = relation(call, answers, oracle)
            elif call.label == "unbound":
                detail = f"candidates={min(call.candidates, 2)}{'+' if call.candidates > 2 else ''}"
                detail += rivals(call, answers, oracle, by_name) if call.candidates else ""
            else:
                detail = ""
            pattern = f"{'wrong' if wrong else 'missed'} {call.label} {shape(call.receiver)} oracle={category}"
            patterns[f"{pattern} {detail}".rstrip()].append(example(call, answers, oracle))
    missing = missing_refs(calls, oracle, positions)
    table = {}
    for label in LABELS:
        c = per_label[label]
        table[label] = {
            "refs": c["refs"], "oracle_in_project": c["oracle_in_project"], "oracle_elsewhere": c["oracle_elsewhere"],
            "oracle_inactive": c["oracle_inactive"], "oracle_in_define": c["oracle_#define"],
            "oracle_none": c["oracle_none"], "checked": c["checked"],
            "correct": c["correct"], "precision": share(c["correct"], c["checked"]),
            "loose_correct": c["loose"], "recalled": c["recalled"],
        }

    def ratio(labels: tuple[str, ...], top: str, bottom: str) -> float | None:
        num = sum(per_label[label][top] for label in labels)
        den = sum(per_label[label][bottom] for label in labels)
        return share(num, den)

    recalled_trusted = sum(per_label[label]["recalled"] for label in ("exact", "high"))
    recalled_any = sum(per_label[label]["recalled"] for label in BOUND)
    ordered = sorted(patterns.items(), key=lambda item: -len(item[1]))
    return {
        "calls": len(calls),
        "oracle_in_project": resolvable,
        "labels": table,
        "precision_exact_high": ratio(("exact", "high"), "correct", "checked"),
        "precision_bound": ratio(BOUND, "correct", "checked"),
        # a target of the oracle's name in its file, or its prototype, accepted
        "precision_exact_high_loose": ratio(("exact", "high"), "loose", "checked"),
        "precision_bound_loose": ratio(BOUND, "loose", "checked"),
        "recall_exact_high": share(recalled_trusted, resolvable),
        "recall_any_label": share(recalled_any, resolvable),
        # the same, over the calls whose oracle answer is a declaration codefathom has a symbol for
        "oracle_nameable": recall["nameable_in_project"],
        "recall_exact_high_nameable": share(recall["nameable_recalled_exact_high"], recall["nameable_in_project"]),
        "recall_any_label_nameable": share(recall["nameable_recalled_any"], recall["nameable_in_project"]),
        # misses whose oracle answer lies in a file tree-sitter could parse only in part
        "missed_oracle_in_partial_file": recall["missed_in_partial_file"],
        "in_project_by_category": dict(sorted(by_category.items(), key=lambda item: -item[1]["in_project"])),
        "missing_call_refs": missing,
        "patterns": [
            {"pattern": key, "count": len(items), "examples": items[:EXAMPLES_PER_PATTERN]}
            for key, items in ordered[:TOP_PATTERNS]
        ],
    }


def describe(answer: Answer) -> str:
    path, line, name, category, where, proto, proto_line = answer
    site = f"{path}:{line}" if path else where
    return f"{category} {name} {site}" + (f" (prototype {proto}:{proto_line})" if proto and proto != path else "")


def example(call: Call, answers: list[Answer], oracle: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = {
        "site": f"{call.path}:{call.line}",
        "call": f"{call.receiver}.{call.name}" if call.receiver else call.name,
        "ours": f"{call.target[4]} ({call.target[5]}, {call.target[0]}:{call.target[1]})" if call.target else None,
        "oracle": [describe(a) for a in answers[:3]],
    }
    if call.label == "unbound":
        found["candidates"] = call.candidates
    if any(a[3] in ("macro", "object-like macro") for a in answers):
        calls = oracle["expanded"].get(f"{call.path}:{call.line}:{call.col}", [])
        if calls:
            found["macro_calls"] = [describe(tuple(a)) for a in calls[:3]]
    return found


def missing_refs(calls: list[Call], oracle: dict[str, Any], positions: dict[tuple[str, int, int], str]
                 ) -> dict[str, Any]:
    """The calls clang sees in the scored files, to a function of the corpus, where codefathom has
    no call ref (by what it has there instead), with examples; all of them, even under --limit."""
    scored = {call.path for call in calls}
    counts: Counter[str] = Counter()
    examples: dict[str, list[str]] = defaultdict(list)
    total = 0
    for key, answers in oracle["positions"].items():
        path, line, col = key.rsplit(":", 2)
        if path not in scored or not any(answer_kind(tuple(a)) == "project" and "function" in a[3] for a in answers):
            continue
        total += 1
        kind = positions.get((path, int(line), int(col)))
        if kind == "call":
            continue
        what = f"a {kind} ref" if kind else "no ref"
        counts[what] += 1
        if len(examples[what]) < EXAMPLES_PER_PATTERN:
            examples[what].append(f"{path}:{line}:{col} {answers[0][2]}")
    return {"oracle_calls": total, "without_call_ref": sum(counts.values()), "by_what_we_have": dict(counts),
            "examples": dict(examples)}


def print_report(name: str, info: dict[str, Any], result: dict[str, Any]) -> None:
    print(f"\n{name}: {info['c_files']} C files indexed ({len(info['partial_files'])} parsed in part);"
          f" clang parsed {info['units']} units ({len(info['fatal'])} left out with fatal errors,"
          f" {len(info['unit_errors'])} with errors) seeing"
          f" {info['scored_files']} of them; {info['calls_not_scored']} call refs in files it did not see"
          f" are not scored")
    print(f"{result['calls']} call refs scored, {result['oracle_in_project']} resolved in-project by the oracle")
    print(f"{'label':10} {'refs':>7} {'clang in':>8} {'out':>6} {'#if-out':>7} {'#define':>7} {'none':>5}"
          f" {'checked':>8} {'correct':>8} {'precision':>9}")
    for label, row in result["labels"].items():
        print(f"{label:10} {row['refs']:>7} {row['oracle_in_project']:>8} {row['oracle_elsewhere']:>6}"
              f" {row['oracle_inactive']:>7} {row['oracle_in_define']:>7} {row['oracle_none']:>5} {row['checked']:>8}"
              f" {row['correct']:>8} {pct(row['precision']):>9}")
    print(f"precision exact+high {pct(result['precision_exact_high'])}, any label {pct(result['precision_bound'])};"
          f" recall exact+high {pct(result['recall_exact_high'])}, any label {pct(result['recall_any_label'])}")
    print(f"precision with the oracle's name in its file or its prototype accepted: exact+high"
          f" {pct(result['precision_exact_high_loose'])}, any label {pct(result['precision_bound_loose'])}")
    print(f"over the {result['oracle_nameable']} in-project answers codefathom has a symbol for: recall exact+high"
          f" {pct(result['recall_exact_high_nameable'])}, any label {pct(result['recall_any_label_nameable'])}")
    print(f"misses where the oracle's declaration is in a file parsed in part:"
          f" {result['missed_oracle_in_partial_file']}")
    missing = result["missing_call_refs"]
    print(f"clang's calls to a project function in the scored files: {missing['oracle_calls']},"
          f" {missing['without_call_ref']} without a call ref of ours {missing['by_what_we_have']}")
    print_lists(result, "the oracle's category", 12, 24, 15)
    print(f"timings: index {info['index_seconds']}s, clang {info['oracle_seconds']}s"
          f" ({'cached' if info['oracle_cached'] else 'parsed'}), scoring {info['score_seconds']}s")


def corpus_root(name: str) -> tuple[Path, str, Build | None, Path | None]:
    """(root, label, build, cache file's name) of a pinned corpus or a directory."""
    if name in PINNED:
        build = PINNED[name]
        lab = next(c for c in LAB_CORPORA if c.name == build.lab)
        root = ensure_src(lab)
        return root, f"{lab.name} {lab.version} ({build.note})", build, Path(f"{lab.id}.libclang-{LIBCLANG}"
                                                                            f".v{CACHE_FORMAT}.json")
    root = Path(name).expanduser().resolve()
    return root, root.name, None, None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", action="append",
                        help=f"{', '.join(PINNED)} or a directory (repeatable; default {', '.join(DEFAULT_CORPORA)})")
    parser.add_argument("--limit", type=int, default=0, help="check only N call refs, spread over the corpus")
    parser.add_argument("--json", type=Path, default=RESULTS / "graph-accuracy-c.json", help="where results go")
    parser.add_argument("--no-cache", action="store_true", help="ask the oracle again (and rewrite its cache)")
    args = parser.parse_args(argv)

    output: dict[str, Any] = {"libclang": LIBCLANG, "python": sys.version.split()[0], "corpora": {}}
    for name in args.corpus or list(DEFAULT_CORPORA):
        root, label, build, cache_name = corpus_root(name)
        root = root.resolve()
        cache = None if cache_name is None else CORPORA / cache_name
        calls, statuses, symbols, by_name, positions, index_seconds = index_calls(root)
        started = time.perf_counter()
        cached = cache is not None and cache.exists() and not args.no_cache
        oracle = ask_oracle(root, build, cache, refresh=args.no_cache)
        oracle_seconds = time.perf_counter() - started
        started = time.perf_counter()
        seen = set(oracle["files"])
        scored = [call for call in calls if call.path in seen]
        partial = sorted(path for path, status in statuses.items() if status != "ok")
        result = score(spread_sample(scored, args.limit), oracle, symbols, by_name, set(partial), positions)
        info = {
            "c_files": len(statuses), "partial_files": partial, "units": oracle["units"], "fatal": oracle["fatal"],
            "unit_errors": oracle["unit_errors"], "clang_args": oracle["args"], "scored_files": len(seen),
            "not_seen_files": sorted(set(statuses) - seen), "calls_not_scored": len(calls) - len(scored),
            "index_seconds": round(index_seconds, 2), "oracle_seconds": round(oracle_seconds, 1),
            "oracle_cached": cached, "oracle_parse_seconds": oracle["parse_seconds"],
            "score_seconds": round(time.perf_counter() - started, 2),
        }
        print_report(label, info, result)
        output["corpora"][label] = {**info, **result}
    write_results(args.json, output)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
