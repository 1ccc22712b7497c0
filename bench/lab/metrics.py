"""Scoring a ranked list against a query's targets, and telling two runs apart.

A result is (path, start_line, end_line), and for one shown with its overloads (search results
name them: `also 171-171: ...`) their lines too. Targets are units (path and line range) or files
(path only, `level: "file"`):
  - unit level: a result hits a target when it is in the same file and its lines (or an overload's)
    overlap the target's without strictly enclosing them (a class or a module chunk that merely contains the
    target function is not an answer; a part of a split function is);
  - file level: results are reduced to their files, first occurrence kept, and a file hits when
    it is a target.
With `enclosing=True` (the window baseline) overlapping is enough.
A directory result (its path ends with "/") is a miss, except with `directories=True`, which the
lab sets for the concept queries of kind "package" only: their query is the package's own
description and their targets are the package's files, so the directory node of that package is
the answer asked for; it then hits a target directly inside it (one target, like any result). A
directory is never credited for a module, file or type description, whose answer is one file.
Each target counts once (the first result that hits it); relevance is binary.
"""

from __future__ import annotations

import math
import posixpath
import random
from collections.abc import Sequence
from typing import Any

# (path, start_line, end_line), and for a result shown with its overloads their (start, end) lines too.
Result = tuple[str, int, int] | tuple[str, int, int, tuple[tuple[int, int], ...]]
K = 10
METRICS = ("mrr@10", "p@1", "r@5", "r@10", "ndcg@10")


def hits_target(
    result: Result, target: dict, level: str = "unit", directories: bool = False, enclosing: bool = False
) -> bool:
    path = result[0]
    if path.endswith("/"):
        return directories and posixpath.dirname(target["path"]) + "/" == path
    if path != target["path"]:
        return False
    if level == "file" or target.get("start_line") is None:
        return True
    t_start, t_end = int(target["start_line"]), int(target["end_line"])
    for start, end in ((result[1], result[2]), *(result[3] if len(result) > 3 else ())):
        overlaps = start <= t_end and end >= t_start
        encloses = start < t_start and end > t_end
        if overlaps and (enclosing or not encloses):
            return True
    return False


def shown(scored: Any, units: dict[int, Any]) -> Result:
    """A ranked unit (`search.rank.Scored`) as the result search shows: its lines and its overloads'."""
    unit = units[scored.unit_id]
    also = tuple((units[o].unit.start_line, units[o].unit.end_line) for o in scored.overloads if o in units)
    return unit.path, unit.unit.start_line, unit.unit.end_line, also


def as_ranking(results: Sequence[Result], level: str) -> list[Result]:
    if level != "file":
        return list(results)
    seen: set[str] = set()
    files = []
    for r in results:
        if r[0] not in seen:
            seen.add(r[0])
            files.append((r[0], 0, 0))
    return files


def judge(
    results: Sequence[Result], targets: Sequence[dict], level: str = "unit", k: int = K, directories: bool = False,
    enclosing: bool = False,
) -> list[int | None]:
    """For each of the first k results: the index of the target it is the first to hit, -1 when it
    hits only targets already found, None when it hits none."""
    found: set[int] = set()
    marks: list[int | None] = []
    for result in as_ranking(results, level)[:k]:
        hit = [i for i, t in enumerate(targets) if hits_target(result, t, level, directories, enclosing)]
        new = [i for i in hit if i not in found]
        if new:
            found.add(new[0])
            marks.append(new[0])
        else:
            marks.append(-1 if hit else None)
    return marks


def score(
    results: Sequence[Result], targets: Sequence[dict], level: str = "unit", directories: bool = False,
    enclosing: bool = False,
) -> dict[str, float]:
    marks = judge(results, targets, level, K, directories, enclosing)
    relevant = [m is not None for m in marks]
    first = next((i for i, r in enumerate(relevant) if r), None)
    n = max(len(targets), 1)
    found_at = [i for i, m in enumerate(marks) if m is not None and m >= 0]
    dcg = sum(1.0 / math.log2(i + 2) for i in found_at)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(n, K)))
    return {
        "mrr@10": 1.0 / (first + 1) if first is not None else 0.0,
        "p@1": 1.0 if relevant[:1] == [True] else 0.0,
        "r@5": sum(1 for i in found_at if i < 5) / n,
        "r@10": len(found_at) / n,
        "ndcg@10": dcg / ideal if ideal else 0.0,
    }


def chars_to_first_hit(
    prefix_chars: Sequence[int], results: Sequence[Result], targets: Sequence[dict], level: str = "unit",
    directories: bool = False, enclosing: bool = False,
) -> float:
    """What an agent pays to find the answer: the characters of a reply it reads until the first
    result that hits a target, that result included. `prefix_chars[i]` is the length of the reply's
    text holding results 0..i, as the tool sends it; a reply with no hit is read whole."""
    for i, result in enumerate(results[: len(prefix_chars)]):
        if any(hits_target(result, t, level, directories, enclosing) for t in targets):
            return float(prefix_chars[i])
    return float(prefix_chars[-1]) if prefix_chars else 0.0


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def paired_bootstrap(a: Sequence[float], b: Sequence[float], rounds: int = 2000, seed: int = 7) -> float:
    """Two-sided p-value that mean(b) - mean(a) is 0, from resampling the paired queries."""
    if len(a) != len(b) or not a:
        return 1.0
    diffs = [y - x for x, y in zip(a, b, strict=True)]
    observed = mean(diffs)
    if all(d == 0 for d in diffs):
        return 1.0
    rng = random.Random(seed)
    n = len(diffs)
    opposite = 0
    for _ in range(rounds):
        sample = sum(diffs[rng.randrange(n)] for _ in range(n)) / n
        if (sample <= 0 if observed > 0 else sample >= 0):
            opposite += 1
    return min(1.0, 2 * (opposite + 1) / (rounds + 1))


def sign_test(a: Sequence[float], b: Sequence[float]) -> tuple[int, int, float]:
    """(queries better in b, queries worse in b, two-sided exact sign-test p-value)."""
    wins = sum(1 for x, y in zip(a, b, strict=True) if y > x)
    losses = sum(1 for x, y in zip(a, b, strict=True) if y < x)
    n = wins + losses
    if n == 0:
        return 0, 0, 1.0
    tail = sum(math.comb(n, i) for i in range(min(wins, losses) + 1)) / 2**n
    return wins, losses, min(1.0, 2 * tail)
