"""A second query style, not derived from doc comments: a commit's subject asked of the code the
commit changed, from the pinned git history of real projects.

A person wrote the subject for other people ("Resolve the pager command once", "prevent completions
from mutating os.Args"): its words are what someone looking for that code would say, and they come
from no docstring. Each query is made from one commit, newest first, back from the pinned commit:

  - the subject: no merges, reverts, releases, version bumps, dependency or CI upkeep, typo or
    formatting fixes; a leading `area:` or `fix(area):` and trailing `(#123)` removed; at least 4 words;
  - the commit changes 1 to 4 source files (no tests, examples, docs, vendored code; a language
    codefathom parses into definitions) and at most MAX_CHANGED lines;
  - the targets: the functions, methods and classes whose lines the commit added or changed, as
    codefathom's parser reads the file after the commit (the innermost definition of each changed
    line), that still exist at the pinned commit under the same path and qualified name, with
    their lines there; a commit with none left is skipped;
  - kind `named` when the subject spells a target's name (`fix parse_args`: the name channel can
    answer it), `words` otherwise.

The tree indexed is the pinned commit's, as a user's checkout would be. Each repository gives at
most BUDGET queries, split 50/50 into tune and check with the lab's seed.

The `question` set beside it is written by hand (bench/queries/<id>.question.jsonl): "where/how"
questions a newcomer would ask, in their own words, with the definitions that answer them; this
module only gives them their splits.
"""

from __future__ import annotations

import json
import random
import re
import subprocess
from pathlib import Path

from lab.corpora import Corpus, history_clone

from codefathom.parse import parse
from codefathom.search.roles import path_role

BUDGET = 60
MAX_COMMITS = 4000  # how far back from the pinned commit to look
MAX_CHANGED = 120  # lines added plus removed, over the whole commit
MAX_FILES = 4
DEF_KINDS = ("function", "method", "class")

_SKIP = re.compile(
    r"^(merge|revert|release|bump|prepare|version|v?\d+\.\d+|update (changelog|changes|readme|deps|dependencies)"
    r"|changelog|chore|ci\b|build\b|docs?\b|test|tests\b|style\b|lint|format|typo|fix typo|spelling|wip\b"
    r"|pre-commit|\[pre-commit|auto|update copyright|copyright|add (a )?test|remove unused import)",
    re.IGNORECASE,
)
_UPKEEP = re.compile(r"\b(typo|typos|dependabot|pre-commit|bump|changelog|lint|flake8|mypy|ruff|black|isort)\b", re.I)
_PREFIX = re.compile(r"^[\w./,\- ]{1,30}(\([\w./,\- ]{1,30}\))?!?:\s+")
_TRAILER = re.compile(r"\s*\((#\d+|[\w-]+/[\w-]+#\d+)(,\s*#\d+)*\)\s*$|\s+#\d+\s*$")
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")
_WORD = re.compile(r"[A-Za-z0-9]+")
_TOKEN = re.compile(r"[\w$]+")
_PATH_ONLY = re.compile(r"^(update|change|edit|modify) \S+\.\w+$", re.IGNORECASE)


def subject_query(subject: str) -> str | None:
    """The subject as a query, or None when it says nothing a searcher would ask."""
    text = subject.strip()
    if _SKIP.match(text) or _UPKEEP.search(text):
        return None
    text = _TRAILER.sub("", text)
    text = _PREFIX.sub("", text, count=1).strip()
    if _SKIP.match(text) or _PATH_ONLY.match(text) or len(_WORD.findall(text)) < 4:
        return None
    return text[:1].upper() + text[1:]


def split_questions(path: Path, seed: int) -> int:
    """Give the hand-written questions of a corpus (`<id>.question.jsonl`, written without splits)
    their tune/check split, 50/50 with the lab's seed; returns how many there are."""
    if not path.exists():
        return 0
    items = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    _split(items, f"{seed}:{path.name}")
    path.write_text("".join(json.dumps(item, ensure_ascii=False) + "\n" for item in items))
    return len(items)


def _split(items: list[dict[str, object]], key: str) -> None:
    order = list(range(len(items)))
    random.Random(key).shuffle(order)
    tune = set(order[: (len(items) + 1) // 2])
    for number, item in enumerate(items):
        item["split"] = "tune" if number in tune else "check"


def generate_commits(corpus: Corpus, seed: int) -> list[dict[str, object]]:
    clone = history_clone(corpus)
    head = corpus.sha256  # a git corpus pins its commit there
    log = _git(clone, "log", "--no-merges", f"--max-count={MAX_COMMITS}", "--format=%H%x00%s", head)
    queries: list[dict[str, object]] = []
    seen: set[str] = set()
    head_units: dict[str, dict[tuple[str, str], tuple[int, int]] | None] = {}
    for line in log.splitlines():
        sha, _, subject = line.partition("\0")
        query = subject_query(subject)
        if query is None or query.lower() in seen:
            continue
        try:
            targets = _targets(clone, sha, head, head_units)
        except subprocess.CalledProcessError:  # an object the clone lacks (a partial or shallow one)
            continue
        if not targets:
            continue
        seen.add(query.lower())
        tokens = {t.strip("_").lower() for t in _TOKEN.findall(query)}
        named = any(str(t["name"]).strip("_").lower() in tokens for t in targets)
        queries.append({
            "id": f"{corpus.id}:commit:{sha[:10]}", "set": "commit", "kind": "named" if named else "words",
            "query": query, "level": "unit", "commit": sha, "targets": targets,
        })
        if len(queries) >= BUDGET:
            break
    _split(queries, f"{seed}:{corpus.id}:commit")
    return queries


def _targets(
    clone: Path, sha: str, head: str, head_units: dict[str, dict[tuple[str, str], tuple[int, int]] | None]
) -> list[dict[str, object]]:
    numstat = _git(clone, "show", "--no-renames", "--numstat", "--format=", sha)
    files: list[str] = []
    changed = 0
    for row in numstat.splitlines():
        added, removed, path = row.split("\t", 2)
        if added == "-":
            return []  # a binary file: not a change to code
        changed += int(added) + int(removed)
        if path_role(path) == "source" and not _is_doc(path):
            files.append(path)
    if not files or len(files) > MAX_FILES or changed > MAX_CHANGED:
        return []
    targets: list[dict[str, object]] = []
    for path in files:
        lines = _changed_lines(_git(clone, "show", "--no-renames", "-U0", "--format=", sha, "--", path))
        after = _units(clone, sha, path)
        if not lines or after is None:
            continue
        if path not in head_units:
            head_units[path] = _units(clone, head, path)
        at_head = head_units[path]
        if at_head is None:
            continue
        names = {_innermost(after, line) for line in lines} - {None}
        for key in sorted(names):  # type: ignore[type-var]
            if key in at_head:
                start, end = at_head[key]
                name = key[1].rpartition(".")[2]
                targets.append({"path": path, "start_line": start, "end_line": end, "name": name,
                                "qualified_name": key[1]})
    return targets


def _units(clone: Path, rev: str, path: str) -> dict[tuple[str, str], tuple[int, int]] | None:
    """(kind, qualified name) -> lines of each definition in the file at `rev`; None when absent,
    not parsed into definitions, or a name is defined twice (the target would be ambiguous)."""
    try:
        text = _git(clone, "show", f"{rev}:{path}")
    except subprocess.CalledProcessError:
        return None
    parsed = parse(path, text)
    if parsed.status not in ("ok", "partial"):
        return None
    spans: dict[tuple[str, str], tuple[int, int]] = {}
    twice: set[tuple[str, str]] = set()
    for unit in parsed.units:
        if unit.kind not in DEF_KINDS:
            continue
        key = (unit.kind, unit.qualified_name)
        if key in spans and unit.part <= 1:
            twice.add(key)
        start, end = spans.get(key, (unit.start_line, unit.end_line))
        spans[key] = (min(start, unit.start_line), max(end, unit.end_line))
    for key in twice:
        del spans[key]
    return spans


def _innermost(spans: dict[tuple[str, str], tuple[int, int]], line: int) -> tuple[str, str] | None:
    inside = [(end - start, key) for key, (start, end) in spans.items() if start <= line <= end]
    return min(inside)[1] if inside else None


def _changed_lines(diff: str) -> list[int]:
    """Lines of the new version the diff adds; a pure removal counts as the line after it."""
    lines: list[int] = []
    for row in diff.splitlines():
        match = _HUNK.match(row)
        if match:
            start, count = int(match.group(1)), int(match.group(2) or 1)
            lines.extend(range(start, start + count) if count else [max(start, 1)])
    return lines


def _is_doc(path: str) -> bool:
    return path.endswith((".md", ".rst", ".txt")) or "/docs/" in f"/{path}"


def _git(clone: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(clone), *args], check=True, capture_output=True)
    return done.stdout.decode("utf-8", errors="replace")
