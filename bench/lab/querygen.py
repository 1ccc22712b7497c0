"""Query sets, generated mechanically from a corpus and written as JSONL with their targets.

Sets (one file each, bench/queries/<corpus id>.<set>.jsonl):
  intent      the CodeSearchNet method: the first sentence of a function's doc comment is the
              query, the function the target; the indexed copy has that doc comment blanked out
  identifier  exact names defined once; `Owner.name` for a name defined several times;
              the words of a compound name ("proxy manager" for ProxyManager)
  concept     a module's or package's own description (Python module docstring, Go package
              comment, Rust `//!` docs, a JS/TS file overview, Java package-info, the doc of the
              type a file is named after) as the query; the files it describes as targets;
              the description is blanked out of the indexed copy too
  commit      a commit's subject → the definitions it changed, from the corpora with their git
              history (bench/lab/history.py); nothing is blanked out of those

The lines blanked out are written to bench/queries/<corpus id>.strip.json. Every removal is
checked by parsing the stripped file again (the target keeps its lines and has no doc left),
and a query whose words still occur anywhere in the stripped corpus is dropped.
Everything is seeded: the same corpus and seed give the same files, byte for byte.
"""

from __future__ import annotations

import ast
import json
import random
import re
import sqlite3
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from lab.corpora import HOME, Corpus, apply_strip, ensure_src

SEED = 20240601
BUDGET = {"intent": 45, "identifier": 30, "concept": 15}
SETS = ("intent", "identifier", "concept", "commit", "question")  # commit, question: bench/lab/history.py
CODE_KINDS = ("function", "method")
DEF_KINDS = ("function", "method", "class")
MAX_WORDS = 40
QUERIES_DIR = Path(__file__).resolve().parent.parent / "queries"


@dataclass
class Def:
    path: str
    kind: str
    name: str
    qualified_name: str
    parent: str | None
    doc: str
    language: str
    start: int
    end: int


# ----------------------------------------------------------------------------- doc text


_XML_SEE = re.compile(r"<see\s+(?:c?ref|langword)=\"(?:[A-Z]:)?([^\"]+)\"\s*/>")
_XML_TAG = re.compile(r"</?[A-Za-z][^>]*>")
_LINK = re.compile(r"\{@(?:link|linkplain)\s+([^}\s]+)(?:\s+([^}]*))?\}")
_CODE = re.compile(r"\{@(?:code|literal)\s+([^}]*)\}")
_INLINE_TAG = re.compile(r"\{@\w+[^}]*\}")
_MD_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_MD_REF = re.compile(r"\[`?([^\]`]+)`?\](?:\[[^\]]*\])?")
_RST_ROLE = re.compile(r":[a-z:]+:`[~.]*([^`]+)`")
_BACKTICKS = re.compile(r"`+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"'`])")
_BAD_START = re.compile(
    r"^(see |same as|alias|deprecated|internal|todo|fixme|xxx|copyright|licensed|license|note:|\(?non-javadoc"
    r"|inherit|override|overrides|implements? |this is a private|created by|author|generated|auto-generated"
    r"|private|helper|utility function|warning|important|nb:|@)",
    re.I,
)
_LICENSE = re.compile(r"copyright|licen[cs]e|spdx|all rights reserved|permission is hereby", re.I)


def clean_doc(doc: str) -> str:
    """A doc comment's prose: markup, tags and links reduced to their words."""
    kept: list[str] = []
    lines = doc.split("\n")
    if len(lines) > 2 and not any(lines[1::2]):
        lines = lines[::2]  # `///` comments come out of the index double-spaced
    for line in lines:
        s = line.strip()
        s = re.sub(r"^[\\@](brief|short|summary|fileoverview|file|overview|description)\b\s*", "", s)
        if not kept:
            s = re.sub(r"^[\\@]returns?\b\s*(\{[^}]*\}\s*)?", "Returns ", s)
        if re.match(r"^([\\@]\w+|\.\. \w+::)", s):  # @param, \ingroup, .. versionadded::: the prose is over
            if kept:
                break
            continue
        kept.append(s)
    text = "\n".join(kept)
    text = _XML_SEE.sub(lambda m: m.group(1).split(".")[-1], text)
    text = _XML_TAG.sub(" ", text)
    text = _LINK.sub(lambda m: (m.group(2) or m.group(1).replace("#", ".").lstrip(".")), text)
    text = _CODE.sub(lambda m: m.group(1), text)
    text = _INLINE_TAG.sub(" ", text)
    text = _MD_LINK.sub(lambda m: m.group(1), text)
    text = _MD_REF.sub(lambda m: m.group(1), text)
    text = _RST_ROLE.sub(lambda m: m.group(1), text)
    text = _BACKTICKS.sub("", text)
    text = text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&").replace("&quot;", '"')
    return text.strip()


def first_paragraph(doc: str) -> str:
    text = clean_doc(doc)
    para = re.split(r"\n\s*\n", text, maxsplit=1)[0]
    lines = []
    for line in para.splitlines():
        if re.match(r"^\s*(=+|-+|~+|#+|\*+)\s*$", line):  # a reST/markdown underline: the line above was a title
            lines = []
            continue
        lines.append(line.strip().lstrip("#").strip())
    return " ".join(" ".join(lines).split())


def first_sentence(doc: str) -> str:
    para = first_paragraph(doc)
    return _SENTENCE_END.split(para, maxsplit=1)[0].strip()


def without_name(sentence: str, name: str, language: str) -> str:
    """"Foo returns the bar" -> "returns the bar": Go, Java and C# docs open with the name, which
    would put the target's own name in the query."""
    match = re.match(rf"^`?{re.escape(name)}(?:\(\))?`?\s+", sentence)
    if match and (name != name.lower() or language == "go"):
        rest = sentence[match.end() :]
        return rest[:1].upper() + rest[1:]
    return sentence


def words_of(text: str) -> list[str]:
    return re.findall(r"[A-Za-z][A-Za-z0-9_']*", text)


def acceptable(text: str, min_words: int = 4) -> bool:
    words = words_of(text)
    if len(words) < min_words or _BAD_START.match(text.strip()) or _LICENSE.search(text):
        return False
    if len(words) * 2 < len(text.split()):  # mostly symbols, numbers or code
        return False
    return not re.search(r"\b(TODO|FIXME|XXX)\b", text)


def cap_words(text: str, limit: int = MAX_WORDS) -> str:
    parts = text.split()
    return " ".join(parts[:limit])


def normalize(text: str) -> str:
    return " " + " ".join(re.findall(r"[a-z0-9]+", text.lower())) + " "


# ----------------------------------------------------------------------------- locating docs


def comment_block_above(lines: list[str], start: int) -> tuple[int, int] | None:
    """1-based (first, last) of the comments directly above line `start`, as codefathom reads them."""
    number = start - 1
    last = number
    first = None
    while number >= 1:
        s = lines[number - 1].strip()
        if s.endswith("*/"):
            top = number
            while top >= 1 and "/*" not in lines[top - 1]:
                top -= 1
            if top < 1:
                return None
            if not lines[top - 1].strip().startswith("/*"):
                break  # code before the comment on its line
            first, number = top, top - 1
        elif s.startswith("//"):
            first, number = number, number - 1
        else:
            break
    return (first, last) if first is not None else None


def python_docstrings(text: str) -> tuple[dict[tuple[int, str], tuple[int, int]], tuple[int, int] | None]:
    """{(first line incl. decorators, name): (first, last) docstring lines}; the module docstring."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return {}, None
    lines = text.split("\n")

    def own_lines(node: ast.AST, header_line: int) -> tuple[int, int] | None:
        body = getattr(node, "body", None)
        if not body or not isinstance(body[0], ast.Expr):
            return None
        value = body[0].value
        if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
            return None
        first, last = body[0].lineno, body[0].end_lineno or body[0].lineno
        if first <= header_line:
            return None  # on the header's line
        if lines[last - 1][body[0].end_col_offset or 0 :].strip():
            return None  # code after it on its last line
        if lines[first - 1][: body[0].col_offset].strip():
            return None
        return first, last

    found = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            span = own_lines(node, node.lineno)
            if span is not None:
                found[(start, node.name)] = span
    return found, own_lines(tree, 0)


def doc_edits(language: str, lines: list[str], text: str, d: Def, cache: dict) -> list[list[object]] | None:
    if language == "python":
        if "py" not in cache:
            cache["py"] = python_docstrings(text)
        span = cache["py"][0].get((d.start, d.name))
        return [[span[0], span[1], "pass"]] if span else None
    block = comment_block_above(lines, d.start)
    return [[block[0], block[1], "blank"]] if block else None


# ----------------------------------------------------------------------------- reading the index


def index_src(corpus: Corpus) -> Path:
    from codefathom.service import Codefathom

    index_dir = HOME / "index-src" / corpus.id
    with Codefathom(ensure_src(corpus), index_dir=index_dir) as cf:
        cf.index()
        return cf.settings.db_path


def read_defs(db_path: Path) -> tuple[list[Def], dict[str, str]]:
    """Every unit as one definition (split parts merged), and each file's language."""
    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        languages = dict(conn.execute("SELECT path, language FROM files WHERE status != 'skipped'"))
        rows = conn.execute(
            "SELECT f.path, u.kind, u.name, u.qualified_name, u.parent, u.doc, u.language, u.start_line,"
            " u.end_line, u.part FROM units u JOIN files f ON f.id = u.file_id ORDER BY f.path, u.start_line, u.part"
        ).fetchall()
    finally:
        conn.close()
    defs: list[Def] = []
    open_parts: dict[tuple[str, str, str], Def] = {}
    for path, kind, name, qualified, parent, doc, language, start, end, part in rows:
        key = (path, kind, qualified)
        if part > 1 and key in open_parts and kind != "module":
            open_parts[key].end = max(open_parts[key].end, end)
            continue
        d = Def(path, kind, name, qualified, parent, doc or "", language, start, end)
        defs.append(d)
        open_parts[key] = d
    return defs, languages


# ----------------------------------------------------------------------------- generation


class Stripper:
    """Collects line edits per file and checks each against a fresh parse."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.edits: dict[str, list[list[object]]] = defaultdict(list)
        self.texts: dict[str, str] = {}

    def text(self, path: str) -> str:
        if path not in self.texts:
            self.texts[path] = (self.root / path).read_bytes().decode("utf-8", errors="surrogateescape")
        return self.texts[path]

    def stripped(self, path: str, extra: list[list[object]] = ()) -> str:  # type: ignore[assignment]
        data = apply_strip(self.text(path).encode("utf-8", errors="surrogateescape"), self.edits[path] + list(extra))
        return data.decode("utf-8", errors="replace")

    def overlaps(self, path: str, edits: list[list[object]]) -> bool:
        taken = {n for s, e, _ in self.edits[path] for n in range(int(s), int(e) + 1)}  # type: ignore[call-overload]
        return any(n in taken for s, e, _ in edits for n in range(int(s), int(e) + 1))  # type: ignore[call-overload]

    def try_unit(self, d: Def, edits: list[list[object]], phrase: str) -> bool:
        """Apply when the re-parsed unit keeps its lines and has lost its doc and the phrase."""
        from codefathom.parse import parse

        if self.overlaps(d.path, edits):
            return False
        text = self.stripped(d.path, edits)
        parsed = parse(d.path, text)
        same = [u for u in parsed.units if u.kind == d.kind and u.name == d.name and u.start_line == d.start]
        if not same or max(u.end_line for u in same) != d.end or any(u.doc for u in same):
            return False
        if normalize(phrase).strip() in normalize(text):
            return False
        before = parse(d.path, self.stripped(d.path))
        if len(before.units) != len(parsed.units):
            return False
        self.edits[d.path].extend(edits)
        return True

    def try_text(self, path: str, edits: list[list[object]], phrase: str) -> bool:
        """Apply a removal that is not a unit's doc (a package comment): the phrase must be gone."""
        from codefathom.parse import parse

        if self.overlaps(path, edits):
            return False
        text = self.stripped(path, edits)
        if normalize(phrase).strip() in normalize(text):
            return False
        if parse(path, text).status not in ("ok", "text") and parse(path, self.stripped(path)).status in ("ok",):
            return False
        self.edits[path].extend(edits)
        return True


def _uncomment(line: str) -> str:
    return re.sub(r"^\s*(/\*+|\*/|\*)", "", line).replace("*/", "")


def _concept(kind: str, query: str, targets: list[str], path: str, edits: list[list[object]],
             unit: Def | None = None) -> dict:
    return {"kind": kind, "query": query, "targets": targets, "path": path, "edits": edits, "unit": unit}


def _sep(language: str) -> str:
    return "::" if language in ("rust", "cpp") else "."


def _is_source(path: str) -> bool:
    from codefathom.search.rank import path_role

    return path_role(path) == "source"


def _target(d: Def) -> dict[str, object]:
    return {"path": d.path, "start_line": d.start, "end_line": d.end, "name": d.qualified_name}


def _file_target(path: str) -> dict[str, object]:
    return {"path": path, "start_line": None, "end_line": None, "name": path}


def generate(corpus: Corpus, seed: int = SEED) -> tuple[dict[str, list[dict]], dict[str, list[list[object]]]]:
    from codefathom.tokens import name_key, split_identifier

    db_path = index_src(corpus)
    defs, languages = read_defs(db_path)
    root = corpus.src
    stripper = Stripper(root)
    code_files = sorted(p for p, lang in languages.items() if lang not in ("text", "markdown"))
    rng = lambda name: random.Random(f"{seed}:{corpus.id}:{name}")  # noqa: E731
    out: dict[str, list[dict]] = {s: [] for s in BUDGET}
    caches: dict[str, dict] = defaultdict(dict)

    # intent -> function
    sentence_count = Counter(normalize(first_sentence(d.doc)) for d in defs if d.doc)
    candidates = []
    for d in defs:
        if d.kind not in CODE_KINDS or not d.doc or not _is_source(d.path) or d.language in ("text", "markdown"):
            continue
        sentence = cap_words(without_name(first_sentence(d.doc), d.name, d.language))
        if not acceptable(sentence) or sentence_count[normalize(first_sentence(d.doc))] != 1:
            continue
        candidates.append((d, sentence))
    rng("intent").shuffle(candidates)
    chosen_intent = []
    for d, sentence in candidates:
        if len(chosen_intent) >= BUDGET["intent"] * 2:  # twice the budget: the leak check drops some
            break
        text = stripper.text(d.path)
        edits = doc_edits(d.language, text.split("\n"), text, d, caches[d.path])
        if edits and stripper.try_unit(d, edits, sentence):
            chosen_intent.append((d, sentence, edits))

    # concept -> area
    dir_files: dict[str, list[str]] = defaultdict(list)
    for p in code_files:
        dir_files[str(PurePosixPath(p).parent)].append(p)
    concept: list[dict] = []  # kind, query, targets, path, edits, unit (when the doc is a unit's)
    module_docs = {d.path: d for d in defs if d.kind == "module" and d.doc and d.language == "python"}
    for path in code_files:
        if not _is_source(path):
            continue
        language = languages[path]
        pure = PurePosixPath(path)
        siblings = [p for p in dir_files[str(pure.parent)] if _is_source(p)]
        text = stripper.text(path)
        lines = text.split("\n")
        if language == "python" and path in module_docs:
            span = python_docstrings(text)[1]
            query = cap_words(first_paragraph(module_docs[path].doc))
            if span and acceptable(query, 5):
                py_siblings = [p for p in siblings if p.endswith(".py")]
                targets = py_siblings if pure.name == "__init__.py" else [path]
                concept.append(_concept("package" if pure.name == "__init__.py" else "module", query, targets, path,
                                [[span[0], span[1], "blank"]]))
        elif language == "go" and not path.endswith("_test.go"):
            for number, line in enumerate(lines, start=1):
                if line.startswith("package "):
                    block = comment_block_above(lines, number)
                    if block:
                        raw = "\n".join(lines[block[0] - 1 : block[1]])
                        body = "\n".join(re.sub(r"^\s*(//|/\*+|\*/|\*)", "", s) for s in raw.splitlines())
                        query = cap_words(first_paragraph(body))
                        if acceptable(query, 5) and not body.lstrip().startswith("go:build"):
                            go_siblings = [p for p in siblings if p.endswith(".go") and not p.endswith("_test.go")]
                            edits = [[block[0], block[1], "blank"]]
                            concept.append(_concept("package", query, go_siblings, path, edits))
                    break
        elif language == "rust":
            doc_lines = []
            for number, line in enumerate(lines, start=1):
                s = line.strip()
                if s.startswith("//!"):
                    doc_lines.append(number)
                elif s and not s.startswith("//") and not s.startswith("#!["):
                    break
            if doc_lines:
                body = "\n".join(lines[n - 1].strip()[3:] for n in doc_lines)
                query = cap_words(first_paragraph(body))
                if acceptable(query, 5):
                    if pure.name in ("lib.rs", "mod.rs", "main.rs"):
                        targets = [p for p in siblings if p.endswith(".rs")]
                    else:
                        sub = str(pure.with_suffix(""))
                        targets = [path] + [p for p in dir_files.get(sub, []) if p.endswith(".rs")]
                    concept.append(_concept("module", query, targets, path, [[n, n, "blank"] for n in doc_lines]))
        elif language in ("javascript", "typescript", "tsx"):
            head = next((n for n, line in enumerate(lines, start=1) if line.strip()), None)
            if head and lines[head - 1].strip().startswith("/*"):
                end = head
                while end <= len(lines) and "*/" not in lines[end - 1]:
                    end += 1
                if end <= len(lines):
                    raw = "\n".join(lines[head - 1 : end])
                    body = "\n".join(re.sub(r"^\s*(/\*+|\*/|\*)", "", s).replace("*/", "") for s in raw.splitlines())
                    query = cap_words(first_paragraph(body))
                    if acceptable(query, 5):
                        concept.append(_concept("file", query, [path], path, [[head, end, "blank"]]))
        elif language == "java" and pure.name == "package-info.java":
            for number, line in enumerate(lines, start=1):
                if line.startswith("package "):
                    block = comment_block_above(lines, number)
                    if block:
                        raw = "\n".join(lines[block[0] - 1 : block[1]])
                        body = "\n".join(_uncomment(s) for s in raw.splitlines())
                        query = cap_words(first_sentence(body))
                        if acceptable(query, 5):
                            java_siblings = [p for p in siblings if p.endswith(".java") and p != path]
                            edits = [[block[0], block[1], "blank"]]
                            concept.append(_concept("package", query, java_siblings, path, edits))
                    break
    # the type a file is named after, in every language
    for d in defs:
        if d.kind != "class" or not d.doc or not _is_source(d.path) or d.language in ("python", "text", "markdown"):
            continue
        stem = PurePosixPath(d.path).stem.split(".")[0]
        if name_key(stem) != name_key(d.name) or d.parent:
            continue
        query = cap_words(first_sentence(d.doc))
        if acceptable(query, 5):
            text = stripper.text(d.path)
            edits = doc_edits(d.language, text.split("\n"), text, d, caches[d.path])
            if edits:
                concept.append(_concept("type", query, [d.path], d.path, edits, d))
    concept = [c for c in concept if c["targets"]]
    concept.sort(key=lambda c: (c["path"], c["kind"], c["edits"][0][0]))
    rng("concept").shuffle(concept)
    chosen_concept = []
    for c in concept:
        if len(chosen_concept) >= BUDGET["concept"] * 2:
            break
        if c["unit"] is not None:
            ok = stripper.try_unit(c["unit"], c["edits"], c["query"])
        else:
            ok = stripper.try_text(c["path"], c["edits"], c["query"])
        if ok:
            chosen_concept.append((c["kind"], c["query"], sorted(c["targets"]), c["path"], c["edits"]))

    # Leak check over the whole stripped corpus: the query's words must be left nowhere. First with
    # every verified removal, to pick the queries; then with only the picked queries' removals
    # (the docs of candidates left over stay in the code), dropping any that leak again.
    def haystack() -> str:
        texts = []
        for path in sorted(languages):
            try:
                texts.append(normalize(stripper.stripped(path) if stripper.edits.get(path) else stripper.text(path)))
            except OSError:
                continue
        return "\n".join(texts)

    everything = haystack()
    intent_pick = [c for c in chosen_intent if normalize(c[1]).strip() not in everything][: BUDGET["intent"]]
    concept_pick = [c for c in chosen_concept if normalize(c[1]).strip() not in everything][: BUDGET["concept"]]
    del everything
    stripper.edits = defaultdict(list)
    for d, _sentence, edits in intent_pick:
        stripper.edits[d.path].extend(edits)
    for _kind, _query, _targets, path, edits in concept_pick:
        stripper.edits[path].extend(edits)
    final = haystack()
    for d, sentence, edits in intent_pick:
        if normalize(sentence).strip() in final:
            for e in edits:
                stripper.edits[d.path].remove(e)
            continue
        out["intent"].append({"kind": "docstring", "query": sentence, "level": "unit", "targets": [_target(d)]})
    for kind, query, targets, path, edits in concept_pick:
        if normalize(query).strip() in final:
            for e in edits:
                stripper.edits[path].remove(e)
            continue
        out["concept"].append({"kind": kind, "query": query, "level": "file",
                               "targets": [_file_target(p) for p in targets]})
    del final

    # identifier -> definition (names read from the index; nothing is stripped)
    named = [d for d in defs if d.kind in DEF_KINDS]
    by_name = Counter(d.name for d in named)
    by_key = Counter(name_key(d.name) for d in defs if d.kind != "module")
    by_owner = Counter((d.parent, d.name) for d in named)
    usable = [d for d in named if _is_source(d.path) and len(d.name) >= 4 and not d.name.startswith("__")
              and d.language not in ("text", "markdown")]
    exact = sorted((d for d in usable if by_name[d.name] == 1), key=lambda d: (d.path, d.start))
    qualified = sorted((d for d in usable if 2 <= by_name[d.name] <= 30 and d.parent
                        and by_owner[(d.parent, d.name)] == 1 and d.parent != d.name), key=lambda d: (d.path, d.start))
    worded = sorted((d for d in usable if len(split_identifier(d.name)) >= 2 and by_key[name_key(d.name)] == 1
                     and all(len(w) >= 2 for w in split_identifier(d.name))), key=lambda d: (d.path, d.start))
    third = BUDGET["identifier"] // 3
    taken: set[tuple[str, int]] = set()
    for kind, pool, make in (
        ("qualified", qualified, lambda d: f"{d.parent}{_sep(d.language)}{d.name}"),
        ("words", worded, lambda d: " ".join(split_identifier(d.name))),
        ("exact", exact, lambda d: d.name),
    ):
        pool = list(pool)
        rng(f"identifier:{kind}").shuffle(pool)
        count = 0
        for d in pool:
            if count >= third:
                break
            if (d.path, d.start) in taken:
                continue
            taken.add((d.path, d.start))
            out["identifier"].append({"kind": kind, "query": make(d), "level": "unit", "targets": [_target(d)]})
            count += 1

    for set_name, items in out.items():
        for number, item in enumerate(items, start=1):
            item["id"] = f"{corpus.name}:{set_name}:{number}"
        order = list(range(len(items)))
        rng(f"split:{set_name}").shuffle(order)
        tune = set(order[: (len(order) + 1) // 2])
        for number, item in enumerate(items):
            item["split"] = "tune" if number in tune else "check"
        out[set_name] = [
            {"id": i["id"], "corpus": corpus.id, "set": set_name, "kind": i["kind"], "split": i["split"],
             "query": i["query"], "level": i["level"], "targets": i["targets"]}
            for i in items
        ]
    strip = {path: sorted(edits, key=lambda e: int(e[0])) for path, edits in sorted(stripper.edits.items()) if edits}  # type: ignore[arg-type]
    return out, strip


def write(corpus: Corpus, sets: dict[str, list[dict]], strip: dict[str, list[list[object]]]) -> None:
    QUERIES_DIR.mkdir(parents=True, exist_ok=True)
    for set_name, items in sets.items():
        path = QUERIES_DIR / f"{corpus.id}.{set_name}.jsonl"
        path.write_text("".join(json.dumps(i, ensure_ascii=False, sort_keys=False) + "\n" for i in items))
    (QUERIES_DIR / f"{corpus.id}.strip.json").write_text(json.dumps(strip, indent=0, sort_keys=True) + "\n")


def load(corpus: Corpus, sets: tuple[str, ...] = SETS) -> list[dict]:
    items = []
    for set_name in sets:
        path = QUERIES_DIR / f"{corpus.id}.{set_name}.jsonl"
        if path.exists():
            items.extend(json.loads(line) for line in path.read_text().splitlines() if line.strip())
    return items


def load_strip(corpus: Corpus) -> tuple[dict[str, list[list[object]]], str]:
    import hashlib

    path = QUERIES_DIR / f"{corpus.id}.strip.json"
    if not path.exists():
        raise SystemExit(f"{path} is missing: run `python bench/quality.py generate` first")
    raw = path.read_bytes()
    return json.loads(raw), hashlib.sha256(raw).hexdigest()


if __name__ == "__main__":
    print("use: python bench/quality.py generate", file=sys.stderr)
