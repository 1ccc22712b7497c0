"""Duplicated code between definitions: exact copies, copies with names and literals changed, and
near copies (statements added, removed or edited), found by fingerprints of their token streams.

A unit's text becomes tokens; identifiers become ID and literals LIT (keywords stay), so renamed
copies read the same. Every run of K such tokens is hashed and a window keeps the smallest hash
(winnowing): two units that share some of these fingerprints are candidates, and the share of their
token streams that line up (difflib's ratio) says how alike they are.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from collections import defaultdict
from dataclasses import dataclass, field

__all__ = ["CloneUnit", "CloneGroup", "find_clones", "tokens", "KEYWORDS"]

K = 7  # tokens a fingerprint covers: shorter runs are idioms every file shares
WINDOW = 4  # one fingerprint is kept for each window of this many runs
COMMON = 40  # a fingerprint found in more units than this is boilerplate, not evidence

# Words that keep their meaning across copies, in the languages indexed; any other name is an ID.
KEYWORDS = frozenset("""
    abstract and as assert async await break case catch class const continue def default defer del delete do elif
    else enum except export extends final finally fn for foreach from func function go goto if impl implements import
    in instanceof interface is lambda let loop match mod module mut namespace new nil none not null or override
    package pass private protected pub public raise return self select static struct super switch this throw throws
    trait try type typeof union unsafe use using val var void where while with yield true false True False None
""".split())
_TOKEN = re.compile(
    r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|`[^`]*`'  # strings
    r"|\d[\w.]*"  # numbers
    r"|[A-Za-z_$][\w$]*"  # names
    r"|==|!=|<=|>=|=>|->|::|&&|\|\||\+\+|--|\*\*|<<|>>|[^\s\w]"  # operators and punctuation
)
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/|#[^\n]*", re.S)
_DOCSTRING = re.compile(r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'')


@dataclass(frozen=True)
class CloneUnit:
    id: int
    path: str
    name: str
    start_line: int
    end_line: int
    language: str
    content: str


@dataclass
class CloneGroup:
    units: list[CloneUnit]
    similarity: float  # the lowest similarity of a copy to the first, 0-1 (1: the same after renaming)
    exact: bool  # the same text, apart from layout and comments
    lines: int  # lines of the first copy
    # unit id -> its line ranges that are not in the first copy
    differs: dict[int, list[tuple[int, int]]] = field(default_factory=dict)

    @property
    def weight(self) -> int:
        """What removing the copies would save: lines times the copies beyond the first."""
        return self.lines * (len(self.units) - 1)


def tokens(text: str, rename: bool = True) -> list[str]:
    """The unit's tokens without comments and docstrings; with `rename`, names become ID and literals LIT."""
    text = _COMMENT.sub(" ", _DOCSTRING.sub(" ", text))
    out = []
    for token in _TOKEN.findall(text):
        if rename:
            first = token[0]
            if first in "\"'`" or first.isdigit():
                token = "LIT"
            elif (first.isalpha() or first in "_$") and token not in KEYWORDS:
                token = "ID"
        out.append(token)
    return out


def find_clones(units: list[CloneUnit], min_tokens: int = 40, min_similarity: float = 0.9) -> list[CloneGroup]:
    """Groups of units that are copies of each other, the largest saving first."""
    streams = {u.id: tokens(u.content) for u in units}
    big = [u for u in units if len(streams[u.id]) >= min_tokens]
    prints = {u.id: _fingerprints(streams[u.id]) for u in big}
    owners: dict[int, list[int]] = defaultdict(list)
    for uid, hashes in prints.items():
        for h in hashes:
            owners[h].append(uid)
    shared: dict[tuple[int, int], int] = defaultdict(int)
    for holders in owners.values():
        if 1 < len(holders) <= COMMON:
            for i, a in enumerate(holders):
                for b in holders[i + 1:]:
                    shared[(a, b) if a < b else (b, a)] += 1
    parent = {u.id: u.id for u in big}
    best: dict[tuple[int, int], float] = {}
    for (a, b), count in shared.items():
        # Lengths far apart cannot line up to min_similarity; a few shared runs are chance (a copy
        # edited in one place in ten still shares about half of its fingerprints).
        shorter, longer = sorted((len(streams[a]), len(streams[b])))
        enough = max(2, 0.3 * min(len(prints[a]), len(prints[b])))
        if count < enough or 2 * shorter / (shorter + longer) < min_similarity:
            continue
        similarity = difflib.SequenceMatcher(None, streams[a], streams[b], autojunk=False).ratio()
        if similarity >= min_similarity:
            best[(a, b)] = similarity
            parent[_root(parent, a)] = _root(parent, b)
    members: dict[int, list[int]] = defaultdict(list)
    for uid in parent:
        members[_root(parent, uid)].append(uid)
    by_id = {u.id: u for u in big}
    groups = [_group([by_id[i] for i in ids], best, streams) for ids in members.values() if len(ids) > 1]
    return sorted(groups, key=lambda g: (-g.weight, g.units[0].path, g.units[0].start_line))


def _fingerprints(stream: list[str]) -> set[int]:
    if len(stream) < K:
        return set()
    hashes = [int.from_bytes(hashlib.blake2b(" ".join(stream[i:i + K]).encode(), digest_size=8).digest(), "big")
              for i in range(len(stream) - K + 1)]
    if len(hashes) <= WINDOW:
        return {min(hashes)}
    return {min(hashes[i:i + WINDOW]) for i in range(len(hashes) - WINDOW + 1)}


def _root(parent: dict[int, int], uid: int) -> int:
    while parent[uid] != uid:
        parent[uid] = parent[parent[uid]]
        uid = parent[uid]
    return uid


def _group(units: list[CloneUnit], best: dict[tuple[int, int], float], streams: dict[int, list[str]]) -> CloneGroup:
    units.sort(key=lambda u: (u.path, u.start_line))
    first = units[0]
    pairs = [best.get((a.id, b.id) if a.id < b.id else (b.id, a.id)) for a in units for b in units if a.id < b.id]
    similarity = min((p for p in pairs if p is not None), default=1.0)
    plain = [tokens(u.content, rename=False) for u in units]
    exact = all(p == plain[0] for p in plain[1:])
    if all(streams[u.id] == streams[first.id] for u in units[1:]):
        similarity = 1.0
    differs = {u.id: _differing_lines(first, u) for u in units[1:]}
    return CloneGroup(units, round(similarity, 3), exact, first.end_line - first.start_line + 1,
                      {uid: ranges for uid, ranges in differs.items() if ranges})


def _differing_lines(first: CloneUnit, other: CloneUnit) -> list[tuple[int, int]]:
    """The line ranges of `other` (file line numbers) that its copy of `first` changed or added."""
    a = [line.strip() for line in first.content.splitlines()]
    b = [line.strip() for line in other.content.splitlines()]
    ranges = []
    for tag, _i1, _i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag in ("replace", "insert") and j2 > j1:
            ranges.append((other.start_line + j1, other.start_line + j2 - 1))
    return ranges
