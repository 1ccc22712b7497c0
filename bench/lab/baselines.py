"""Two floors every codefathom number is shown beside, over the very units codefathom indexed
(read from its SQLite file, read-only) and with their own simple scoring:

  rg     ripgrep-style term counting: each query word is searched case-insensitively as a
         substring of the unit's text; units rank by how many distinct words they contain,
         then by the total number of occurrences (what `rg -i -c` per word and a sort would give)
  bm25   plain BM25 (SQLite FTS5, Porter + unicode61, k1 1.2, b 0.75) over one field, the
         unit's text as written: no field weights, no identifier splitting, no name channel,
         no priors
  bm25w  the same BM25 over 40-line windows of the files codefathom indexed (a new window every
         20 lines), read from the indexed tree: what a search tool with no parser returns. A
         window hits a target it overlaps (it shows the target's lines), enclosing or not

Query words for both: the query's alphanumeric runs, lower-cased, English stopwords left out
(a name such as `Request.prepare` gives `request` and `prepare`).
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

Result = tuple[str, int, int]

STOPWORDS = frozenset(
    """a an and are as at be by for from has have how i if in into is it its of on or that the their
    this to was were what when where which who will with""".split()
)
_WORD = re.compile(r"[A-Za-z0-9_$]+")


def query_words(query: str) -> list[str]:
    words = [w.lower() for w in _WORD.findall(query)]
    kept = [w for w in words if w not in STOPWORDS and len(w) >= 2]
    return list(dict.fromkeys(kept or words))


class Units:
    """The units of one index: paths, line ranges and text."""

    def __init__(self, db_path: Path) -> None:
        conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
        try:
            rows = conn.execute(
                "SELECT f.path, u.start_line, u.end_line, u.content FROM units u JOIN files f ON f.id = u.file_id"
                " ORDER BY u.id"
            ).fetchall()
        finally:
            conn.close()
        self.spans: list[Result] = [(r[0], int(r[1]), int(r[2])) for r in rows]
        self.texts: list[str] = [r[3] for r in rows]


class Windows:
    """40-line windows, one every 20 lines, of the files an index holds, read from the tree."""

    LINES = 40
    STRIDE = 20

    def __init__(self, db_path: Path, tree: Path) -> None:
        conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
        try:
            paths = [r[0] for r in conn.execute("SELECT path FROM files WHERE status != 'skipped' ORDER BY path")]
        finally:
            conn.close()
        self.spans: list[Result] = []
        self.texts: list[str] = []
        for path in paths:
            try:
                lines = (tree / path).read_text(encoding="utf-8", errors="replace").split("\n")
            except OSError:
                continue
            for start in range(0, max(len(lines) - self.LINES + self.STRIDE, 1), self.STRIDE):
                chunk = lines[start : start + self.LINES]
                self.spans.append((path, start + 1, start + len(chunk)))
                self.texts.append("\n".join(chunk))


class TermCount:
    name = "rg"

    def __init__(self, units: Units) -> None:
        self.units = units
        self.lower = [t.lower() for t in units.texts]

    def search(self, query: str, limit: int) -> list[Result]:
        words = query_words(query)
        if not words:
            return []
        distinct = [0] * len(self.lower)
        total = [0] * len(self.lower)
        for word in words:
            for i, text in enumerate(self.lower):
                if word in text:
                    distinct[i] += 1
                    total[i] += text.count(word)
        ranked = sorted((i for i in range(len(total)) if total[i]), key=lambda i: (-distinct[i], -total[i], i))
        return [self.units.spans[i] for i in ranked[:limit]]


class PlainBM25:
    name = "bm25"

    def __init__(self, units: Units | Windows) -> None:
        self.units = units
        self.conn = sqlite3.connect(":memory:")
        self.conn.execute("CREATE VIRTUAL TABLE t USING fts5(body, tokenize = 'porter unicode61')")
        self.conn.executemany("INSERT INTO t(rowid, body) VALUES (?, ?)", enumerate(units.texts))

    def search(self, query: str, limit: int) -> list[Result]:
        words = query_words(query)
        if not words:
            return []
        match = " OR ".join('"' + w.replace('"', '""') + '"' for w in words)
        rows = self.conn.execute("SELECT rowid FROM t WHERE t MATCH ? ORDER BY rank LIMIT ?", (match, limit))
        return [self.units.spans[int(r[0])] for r in rows]

    def close(self) -> None:
        self.conn.close()


class WindowBM25(PlainBM25):
    name = "bm25w"

    def reply_prefixes(self, results: list[Result]) -> list[int]:
        """What an agent reads of these windows: each as `path:start-end` and its 40 lines, so
        `prefix[i]` is the length of the reply holding windows 0..i."""
        text = dict(zip(self.units.spans, self.units.texts, strict=True))
        prefixes, total = [], 0
        for path, start, end in results:
            total += len(f"{path}:{start}-{end}\n{text[(path, start, end)]}\n")
            prefixes.append(total)
        return prefixes
