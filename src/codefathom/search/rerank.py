"""The rerankers: for a question in words, a linear model over a few interpretable features of
each candidate replaces the fused score: one for searches with a query vector, one without.

Their weights are fitted on the quality lab's tune split (`bench/fit_ranking.py`, listwise softmax)
and kept in `ranking.toml`'s `[rerank_weights]` and `[rerank_lexical_weights]`; each result keeps
its feature values for `explain`.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Callable

from codefathom.model import StoredUnit, Unit
from codefathom.search.channels import Candidate, NameMatch
from codefathom.search.concepts import abbreviations
from codefathom.search.query import QueryPlan, light_stem
from codefathom.search.roles import path_role
from codefathom.tokens import spelled_out, split_identifier

__all__ = [
    "FEATURES", "PARTIAL_FEATURES", "LEXICAL_FEATURES", "LEXICAL_DEPTH", "applies", "applies_lexical", "features",
    "score", "candidate_ids", "lexical_depth", "kin_depth", "kin_lines", "with_kin",
]

# What each feature measures (all are 0 when it does not apply):
#   similarity       the unit's cosine with the query less the best candidate's, in standard deviations
#                    of the query's cosine over the index (0 for the nearest unit)
#   vector_rank      10 / (10 + its rank in the vector channel)
#   lexical_rank     10 / (10 + its rank in BM25F)
#   in_lexical       1 when BM25F ranks it within LEXICAL_DEPTH, or it is the `kin` of a definition it ranks
#                    higher (found below by `with_kin`: its family was found, in words its doc would say)
#   name_words       share of the query's words found in the unit's name, as written or abbreviated
#                    (`buf` says "buffer": concepts.abbreviations), "returns" said by `get` (NAMED_BY),
#                    or two of them side by side joined (`mergesort` says "merge sort")
#   signature_words  ... in its signature, as written (its parameters abbreviate what it is given)
#   owner_words      ... in the name of the class or module it belongs to, as written or abbreviated
#   path_words       ... in its file's path, as written
#   name_match       the name channel's grade, 1 (qualified name) down to 1/6 (prefix)
#   test, example    its file is a test / an example, doc or vendored copy
#   module_or_chunk  it is module-level code, a doc section or a line window, not a definition
#   file_support     ln(1 + the other candidates of its file)
#   lexical_score    its BM25F score over the best candidate's
#   container        it is a class or other container of definitions
#   length           ln(1 + its lines) / 5
#   kin              (the models with and without vectors) it has no doc, and a documented definition
#                    of its family or a sibling near it (`_kin`) scored higher in BM25F: by how much (lexical_score);
#                    its weight is set by hand, the same in both (bench/fit_ranking.py holds it)
#   contrast         (the models without vectors and with every unit embedded) it has no doc, and its name
#                    says the query's words that the name of such a documented kin says, and more, or one
#                    that kin's name and doc do not say (`_contrast`), or its owner's name says one a
#                    documented namesake scored higher does not (`_namesakes`); set by hand like kin
#   subject          (all three models) its name is the one a sentence defining a thing begins with
#                    ("A Sink is used to consume ...": `QueryPlan.subject`); set by hand like kin
# and, for the model without vectors,
#   predicate        the query asks whether something holds ("returns true if", "checks whether") and
#                    the unit answers yes or no (`_is_predicate`); set by hand like kin. The model with
#                    vectors goes without: their similarity already tells (1 there cost intent on tune)
# and, for the model with vectors,
#   similarity_cut,  similarity and vector_rank times the share of the unit its vector does not read:
#   vector_rank_cut  a long unit's vector is of its first lines (EMBEDDED_LINES), not of what follows
# and, for the model of an index whose units are not all embedded yet (without the two above):
#   vectorless       it has no vector yet (its similarity and vector rank are taken as middling)
_BOTH = (
    "similarity", "vector_rank", "lexical_rank", "in_lexical", "name_words", "signature_words", "owner_words",
    "path_words", "name_match", "test", "example", "module_or_chunk", "file_support", "lexical_score", "container",
    "length",
)
FEATURES = (*_BOTH, "similarity_cut", "vector_rank_cut", "kin", "contrast", "subject")
PARTIAL_FEATURES = (*_BOTH, "vectorless", "kin", "subject")
LEXICAL_FEATURES = (
    "lexical_rank", "in_lexical", "lexical_score", "name_words", "signature_words", "owner_words", "path_words",
    "name_match", "test", "example", "module_or_chunk", "file_support", "container", "length", "kin", "predicate",
    "contrast", "subject",
)

LEXICAL_DEPTH = 100
# A documented definition's words often say what its undocumented kin does too (the variants of one
# call: `PrintErr`, `PrintErrf`, `PrintErrln`), when the kin sits this near it in the same file.
KIN_LINES = 60
# Members of one class whose definitions start this near are neighbours: one's doc often says what
# the other does too (`uid`, `gid`, `pid` of a credentials type).
SIBLING_LINES = 12
# The reranker also reads kin found below its depth of these best documented candidates (`with_kin`).
KIN_FROM = 3
_CONSTRUCTORS = frozenset({"__init__", "__new__", "constructor", "new", "init", "initialize"})
_BARE_SHAPE = re.compile(r"\(\s*[\w&*]*\s*\)|")  # `()`, `(self)`, `(message)`, or nothing at all
_NOT_DEFINITIONS = frozenset({"module", "chunk", "section"})
# About the lines of a unit's body its vector reads: embed/text.py cuts the text at 600 characters.
EMBEDDED_LINES = 20
_NAME_GRADES = 6
# A doc's verb that code names by another word: "Returns the timeout" is `get_timeout`, `GetTimeout`.
NAMED_BY = {"return": frozenset({"get"})}


def applies(plan: QueryPlan, channels: dict[str, list[Candidate]], weights: dict[str, float]) -> bool:
    """Fitted for questions in words searched with a vector; names and plain lexical search keep RRF,
    and so does a short phrase (2-4 words) that spells or names a name the project has (`max by`)."""
    return bool(weights) and not plan.identifier_like and bool(channels.get("vectors")) and not _spells_a_name(
        plan, channels)


def _spells_a_name(plan: QueryPlan, channels: dict[str, list[Candidate]]) -> bool:
    return bool(plan.spelled_key) and any(NameMatch.names_it(int(-c.score)) for c in channels.get("names", ()))


def applies_lexical(plan: QueryPlan, channels: dict[str, list[Candidate]], weights: dict[str, float],
                    max_name_words: int) -> bool:
    """Fitted for questions in words searched without a vector; a phrase short enough to spell a
    name ("pool manager", at most `max_name_words` words) and identifiers keep RRF, which finds names."""
    prose = not plan.identifier_like and len(plan.words) > max_name_words
    return bool(weights) and prose and not channels.get("vectors")


def with_kin(lexical: list[Candidate], plan: QueryPlan, units: dict[int, StoredUnit], limit: int) -> list[Candidate]:
    """BM25F's best `lexical_depth`, then the undocumented kin of its best documented few found deeper
    (down to `kin_depth`) whose names say one of the query's words: a variant left undocumented
    shares few of the words its documented kin's doc is found by (`valid_first_char` beside
    `valid_later_char`)."""
    depth = lexical_depth(limit)
    best = lexical[:depth]
    documented = _documented_best(lexical, units)
    if not documented:
        return best
    said = _said(plan.words)
    deeper = []
    for candidate in lexical[depth:]:
        stored = units.get(candidate.unit_id)
        if stored is None or stored.unit.doc or not stored.unit.name or stored.unit.kind in _NOT_DEFINITIONS:
            continue
        if _share(said, _name_words(stored.unit.name)) and any(
            kin.path == stored.path and _kin(stored.unit, kin.unit) for kin in documented
        ):
            deeper.append(candidate)
    return best + deeper


def kin_lines(lexical: list[Candidate], units: dict[int, StoredUnit]) -> list[tuple[str, int, int]]:
    """Where the kin of BM25F's best documented few may be: (path, first line, last line) around each.
    Read from the index, they join the candidates below BM25F's own (`with_kin` sorts them): a variant
    may share no word with the question at all, only a name with its kin (`with_min_len` beside
    `with_max_len` for "the minimum length")."""
    return [(s.path, max(1, s.unit.start_line - KIN_LINES), s.unit.start_line + KIN_LINES)
            for s in _documented_best(lexical, units)]


def _documented_best(lexical: list[Candidate], units: dict[int, StoredUnit]) -> list[StoredUnit]:
    """The documented definitions among BM25F's best KIN_FROM."""
    return [
        stored for stored in (units.get(c.unit_id) for c in lexical[:KIN_FROM])
        if stored is not None and stored.unit.doc and stored.unit.kind not in _NOT_DEFINITIONS
    ]


def name_says(plan: QueryPlan, units: dict[int, StoredUnit]) -> Callable[[int], frozenset[int]]:
    """Which of the query's words (by position among its stems) a candidate's name says."""
    said = _said(plan.words)

    def says(unit_id: int) -> frozenset[int]:
        stored = units.get(unit_id)
        if stored is None or not stored.unit.name:
            return frozenset()
        return _words_said(said, stored.unit.name)

    return says


def kin_depth(limit: int) -> int:
    """How many of BM25F's best the reranker reads: its depth, and as many again where kin may be."""
    return 2 * lexical_depth(limit)


def lexical_depth(limit: int) -> int:
    """How many of BM25F's best the reranker orders: LEXICAL_DEPTH, as it was fitted, or more when
    many results are asked for."""
    return max(LEXICAL_DEPTH, 5 * limit)


def features(
    plan: QueryPlan, channels: dict[str, list[Candidate]], units: dict[int, StoredUnit],
    without_vectors: frozenset[int] = frozenset(),
) -> dict[int, dict[str, float]]:
    """Every candidate's features, by unit id. The vector channel scores in standard deviations
    above the query's mean similarity over the searched units, so similarity reads alike on any index.
    A unit not embedded yet (`without_vectors`) is taken for a middling vector candidate: unknown,
    not far."""
    vectors, lexical, names = channels["vectors"], channels["lexical"], channels["names"]
    similarity = {c.unit_id: c.score for c in vectors}
    floor = min(similarity.values()) if similarity else 0.0
    top = max(similarity.values()) if similarity else 0.0
    middle = sorted(similarity.values())[len(similarity) // 2] if similarity else 0.0
    vector_rank = {c.unit_id: r for r, c in enumerate(vectors, 1)}
    vector_rank.update({uid: (len(vectors) + 1) // 2 for uid in without_vectors if uid not in vector_rank})
    similarity.update({uid: middle for uid in without_vectors if uid not in similarity})
    lexical_rank = {c.unit_id: r for r, c in enumerate(lexical, 1)}
    best_lexical = lexical[0].score if lexical and lexical[0].score > 0 else 1.0
    lexical_score = {c.unit_id: max(c.score, 0.0) / best_lexical for c in lexical}
    grade = {c.unit_id: int(-c.score) for c in names}
    stems = _stems(plan.words)
    query, said = [frozenset({stem}) for stem in stems], _said(plan.words)
    ids = candidate_ids(channels)
    per_file = Counter(units[u].path for u in ids if u in units)
    kin = _kin_gain(units, lexical_score)
    known = abbreviations()  # the query's words as a name says them, "returns" by `get` left out
    contrast = _contrast(units, lexical_score, [known.get(stem, frozenset()) | {stem} for stem in stems])
    found: dict[int, dict[str, float]] = {}
    for uid in ids:
        stored = units.get(uid)
        if stored is None:
            continue
        unit, role = stored.unit, path_role(stored.path)
        lexical_at, vector_at, tier = lexical_rank.get(uid), vector_rank.get(uid), grade.get(uid)
        named = NameMatch.names_it(tier)
        lines = unit.end_line - unit.start_line + 1
        unread = 0.0 if uid in without_vectors else max(0.0, 1.0 - EMBEDDED_LINES / lines)
        # Relative to the best candidate: only differences within one query matter to a ranking.
        near = similarity.get(uid, floor) - top
        ranked = 10 / (10 + vector_at) if vector_at else 0.0
        found[uid] = {
            "similarity": near,
            "vector_rank": ranked,
            "lexical_rank": 10 / (10 + lexical_at) if lexical_at else 0.0,
            "in_lexical": 1.0 if lexical_at and (lexical_at <= LEXICAL_DEPTH or uid in kin) else 0.0,
            "name_words": _share(said, _name_words(unit.name)),
            "signature_words": _share(query, _words(unit.signature or "")),
            "owner_words": _share(said, _words(unit.parent or "")),
            "path_words": _share(query, _words(stored.path)),
            "name_match": (_NAME_GRADES - tier) / _NAME_GRADES if tier is not None else 0.0,
            # A test or an example the query names is not weighed down for being one (as rank.role_weight).
            "test": 1.0 if role == "test" and not named else 0.0,
            "example": 1.0 if role in ("example", "vendored") and not named else 0.0,
            "module_or_chunk": 1.0 if unit.kind in ("module", "chunk", "section") else 0.0,
            "file_support": math.log1p(per_file[stored.path] - 1),
            "lexical_score": lexical_score.get(uid, 0.0),
            "container": 1.0 if unit.kind == "class" else 0.0,
            "length": math.log1p(lines) / 5,
            "similarity_cut": near * unread,
            "vector_rank_cut": ranked * unread,
            "vectorless": 1.0 if uid in without_vectors else 0.0,
            "kin": kin.get(uid, 0.0),
            "contrast": contrast.get(uid, 0.0),
            "predicate": 1.0 if plan.asks_whether and _is_predicate(unit.name, unit.signature) else 0.0,
            "subject": 1.0 if plan.subject and unit.name == plan.subject else 0.0,
        }
    return found


_PREDICATE_WORDS = frozenset(
    "is has have can should was were are does did contains exists needs allows supports matches equals must".split()
)
_BOOL = re.compile(r"\bbool(?:ean)?\b", re.IGNORECASE)


@functools.lru_cache(maxsize=65536)
def _is_predicate(name: str, signature: str) -> bool:
    """A definition that answers yes or no: named so (`is_closed`, `HasParent`, `contains`) or
    declared to give a boolean (`-> bool`, `): boolean`, `bool IsContiguous(`)."""
    if _first_word(name) in _PREDICATE_WORDS:
        return True
    parts = _around_name(name, signature)
    return parts is not None and bool(_BOOL.search(parts[0] + parts[1].rpartition(")")[2]))


def _definitions_by_file(units: dict[int, StoredUnit], lexical_score: dict[int, float]) -> list[list[StoredUnit]]:
    """BM25F's named definitions, file by file."""
    return _definitions_by(units, lexical_score, lambda stored: stored.path)


def _definitions_by(
    units: dict[int, StoredUnit], lexical_score: dict[int, float], key: Callable[[StoredUnit], str | None]
) -> list[list[StoredUnit]]:
    """BM25F's named definitions grouped by `key` (None: in no group)."""
    groups: dict[str, list[StoredUnit]] = {}
    for uid in lexical_score:
        stored = units.get(uid)
        if stored is not None and stored.unit.name and stored.unit.kind not in _NOT_DEFINITIONS:
            if (group := key(stored)) is not None:
                groups.setdefault(group, []).append(stored)
    return list(groups.values())


def _kin_gain(units: dict[int, StoredUnit], lexical_score: dict[int, float]) -> dict[int, float]:
    """Per undocumented definition among BM25F's candidates: how much better a documented definition
    of its family scored (see `_kin`; same file, within KIN_LINES), when one did."""
    gain: dict[int, float] = {}
    for members in _definitions_by_file(units, lexical_score):
        documented = [m for m in members if m.unit.doc]
        for stored in members:
            if stored.unit.doc:
                continue
            best = max((lexical_score[m.id] for m in documented if _kin(stored.unit, m.unit)), default=0.0)
            if best > lexical_score[stored.id]:
                gain[stored.id] = best - lexical_score[stored.id]
    return gain


def _contrast(
    units: dict[int, StoredUnit], lexical_score: dict[int, float], said: list[frozenset[str]]
) -> dict[int, float]:
    """1 for an undocumented definition whose name says the query's words a documented kin's name
    says and more (`log2` beside `log10` for "the base-2 logarithm"), or the same in the query's order
    where the kin's are not (`_says_in_order`), or one the kin's name and doc do not say (`_says_beyond`:
    `valueSeparator` beside `arrayDelimiter`, "Specify the delimiter character for an array", for "the
    delimiter between a name and value"), when BM25F scored the kin higher: the kin's doc matched
    the question, the name tells which of the two it asks for."""
    found: dict[int, float] = {}
    for members in _definitions_by_file(units, lexical_score):
        says = {m.id: _words_said(said, m.unit.name) for m in members}
        for m in members:
            if not m.unit.doc and says[m.id] and any(
                k.unit.doc and lexical_score[k.id] > lexical_score[m.id] and says[k.id]
                and (says[m.id] > says[k.id] or _says_in_order(said, m, k, says)
                     or _says_beyond(said, says[m.id] - says[k.id], k))
                and _kin(m.unit, k.unit) for k in members
            ):
                found[m.id] = 1.0
    return found | _namesakes(units, lexical_score, said)


def _namesakes(
    units: dict[int, StoredUnit], lexical_score: dict[int, float], said: list[frozenset[str]]
) -> dict[int, float]:
    """1 for an undocumented member whose owner's name says a query word that a documented namesake of
    another owner, scored higher by BM25F, says in neither its name, owner nor doc (itertools'
    `IntoChunks::step` beside `GroupInner::step`, "`client`: Index of group that requests next
    element", for "Index of chunk that requests next element")."""
    found: dict[int, float] = {}
    for members in _definitions_by(units, lexical_score, _member_name):
        named = _words_said(said, members[0].unit.name)  # the name all of them have
        owns = {m.id: _words_said(said, _owner(m.unit)) for m in members}
        for m in members:
            if not m.unit.doc and owns[m.id] and any(
                k.unit.doc and lexical_score[k.id] > lexical_score[m.id]
                and _says_beyond(said, owns[m.id] - owns[k.id] - named, k)
                for k in members
            ):
                found[m.id] = 1.0
    return found


def _member_name(stored: StoredUnit) -> str | None:
    """A member's name, which its namesakes in other owners share; None for what has no owner."""
    return stored.unit.name if stored.unit.parent else None


def _owner(unit: Unit) -> str:
    return (unit.parent or "").rpartition(".")[2]


def _says_beyond(said: list[frozenset[str]], words: frozenset[int], kin: StoredUnit) -> bool:
    """One of the query's `words` (by position) is in neither the kin's name nor its doc: the doc
    that matched the question does not say all of it."""
    text = _words(kin.unit.doc or "")
    return any(said[at].isdisjoint(text) for at in words)


def _says_in_order(
    said: list[frozenset[str]], unit: StoredUnit, kin: StoredUnit, says: dict[int, frozenset[int]]
) -> bool:
    """Both names say the same two or more of the query's words, and only `unit`'s in the query's order
    (`computeRotationScaling` beside `computeScalingRotation` for "a product rotation x scaling")."""
    same = says[unit.id] == says[kin.id] and len(says[unit.id]) > 1
    return same and _in_order(said, unit.unit.name) and not _in_order(said, kin.unit.name)


def _in_order(query: list[frozenset[str]], name: str) -> bool:
    """The name says the query's words in the order the query says them."""
    at = [i for part in split_identifier(name) for i, forms in enumerate(query)
          if not forms.isdisjoint(_words(part))]
    return at == sorted(at)


# Kinds whose definitions of one name in one file are one result (overloads, a Rust type's impl blocks).
OVERLOADED = frozenset({"function", "method", "class"})


def overload_name(unit: Unit) -> tuple[str, str] | None:
    """What a definition shares with its overloads in its file, which are shown as one result with it
    (`rank.diversify`); None for what has none (a module, a part of a long unit: each shows other lines)."""
    return (unit.qualified_name, unit.kind) if unit.kind in OVERLOADED and not unit.part else None


def _kin(unit: Unit, other: Unit) -> bool:
    """Two definitions of one family, near each other: one's name begins the other's (`PrintErr`,
    `PrintErrf`; `Delete`, `DeleteLabelValues`), both begin with the same word, or one's words end the
    other's (`unsafeSqrt`, `sqrt`); or they take and give the same (rayon's `eq`, `ne`, `lt`, `le`:
    `<I>(self, other: I) -> bool`); or they are members of one class side by side (`UCred.uid`, `gid`,
    `pid`), both constructors or neither."""
    apart = abs(unit.start_line - other.start_line)
    if apart > KIN_LINES:
        return False
    if (name := overload_name(unit)) is not None and name == overload_name(other):
        return False  # one result already, whichever leads
    if apart <= SIBLING_LINES and unit.parent and unit.parent == other.parent:
        if _constructs(unit) == _constructs(other):  # not `__init__` beside `pop`
            return True
    mine, theirs = unit.name.lower(), other.name.lower()
    if mine.startswith(theirs) or theirs.startswith(mine):
        return True
    if _first_word(unit.name) == _first_word(other.name):
        return True
    if _ends(unit.name, other.name):
        return True
    shape = _shape(unit.name, unit.signature)
    return bool(shape) and shape == _shape(other.name, other.signature)


def _constructs(unit: Unit) -> bool:
    return _makes_its_class(unit.name, unit.signature, unit.parent or "")


@functools.lru_cache(maxsize=65536)
def _makes_its_class(name: str, signature: str, parent: str) -> bool:
    """A constructor (`__init__`, `new`, a method named as its class, or one that gives `Self` or the
    class: `from_vec(...) -> DrainProducer<T>`): a method's doc beside it does not say what it does."""
    owner = parent.rpartition(".")[2]
    if name in _CONSTRUCTORS or name == owner:
        return True
    parts = _around_name(name, signature)
    result = parts[1].rpartition(")")[2] if parts else ""  # after the parameters (before: Go's receiver)
    return bool(owner) and re.search(rf"\b(?:Self|{re.escape(owner)})\b(?!::)", result) is not None


@functools.lru_cache(maxsize=65536)
def _shape(name: str, signature: str) -> str:
    """What a definition takes and gives: its signature after its name, without Rust's `where`
    bounds; empty when it does not name the definition or says too little to tell a family (`()`,
    `(self)`, `(message)`: one untyped parameter and no result)."""
    parts = _around_name(name, signature)
    shape = parts[1].strip() if parts else ""
    return "" if _BARE_SHAPE.fullmatch(shape) else shape


@functools.lru_cache(maxsize=65536)
def _around_name(name: str, signature: str) -> tuple[str, str] | None:
    """A signature before its definition's name and after it, Rust's `where` bounds left out; None when
    it does not name it. The name is the one its parameters, generics or type follow (`fn ne<I>(`,
    `of: <A>(a: A) =>`), not a receiver's type of the same name (Go's `func (s *Set) Set(`)."""
    found = re.search(rf"(?<![\w$]){re.escape(name)}(?=\s*[(<:=])", signature) if name else None
    if found is None:
        return None
    return signature[: found.start()], signature[found.end():].split(" where ")[0]


@functools.lru_cache(maxsize=65536)
def _ends(name: str, other: str) -> bool:
    """One name's words end the other's: a variant named by what it adds in front (`unsafeSqrt` and
    `sqrt`, `try_for_each_with` and `for_each_with`)."""
    mine, theirs = split_identifier(name), split_identifier(other)
    short, long = sorted((mine, theirs), key=len)
    return 0 < len(short) < len(long) and long[-len(short):] == short


@functools.lru_cache(maxsize=65536)
def _first_word(name: str) -> str:
    words = split_identifier(name)
    return words[0] if words else name


def score(values: dict[str, float], weights: dict[str, float]) -> float:
    return sum(weights.get(name, 0.0) * value for name, value in values.items())


def candidate_ids(channels: dict[str, list[Candidate]]) -> list[int]:
    """The units the reranker orders: every candidate of every channel (BM25F's cut to `lexical_depth`)."""
    return list(dict.fromkeys(
        [c.unit_id for c in channels["lexical"]]
        + [c.unit_id for c in channels["vectors"]]
        + [c.unit_id for c in channels["names"]]
    ))


def _said(words: tuple[str, ...]) -> list[frozenset[str]]:
    """Each of the query's words (stemmed, once) with the forms a name may say it by: its abbreviations,
    and with the word beside it, the two joined ("merge sort" is `mergesort`, "file name" `filename`)."""
    known = abbreviations()
    forms = {stem: {stem} | known.get(stem, frozenset()) | NAMED_BY.get(stem, frozenset()) for stem in _stems(words)}
    for first, second in zip(words, words[1:], strict=False):
        if len(first) < 2 or len(second) < 2:
            continue  # a letter (the `x` of "f(x)") joins nothing
        joined = light_stem(first + second)
        forms[light_stem(first)].add(joined)
        forms[light_stem(second)].add(joined)
    return [frozenset(found) for found in forms.values()]


def _stems(words: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(light_stem(word) for word in words))


def _words_said(query: list[frozenset[str]], name: str) -> frozenset[int]:
    """Which of the query's words (by position) a name says, each in any of its forms."""
    words = _name_words(name)
    return frozenset(at for at, forms in enumerate(query) if not forms.isdisjoint(words))


def _share(query: list[frozenset[str]], words: frozenset[str]) -> float:
    """The share of the query's words that `words` say, each in any of its forms."""
    return sum(1 for forms in query if not forms.isdisjoint(words)) / len(query) if query else 0.0


@functools.lru_cache(maxsize=65536)
def _name_words(name: str) -> frozenset[str]:
    """A name's words, and the words it stands for (`operator<<`: stream, print...; `acos`: arc cosine)."""
    return _words(name) | _words(spelled_out(name))


@functools.lru_cache(maxsize=65536)  # names, signatures and paths repeat across searches
def _words(text: str) -> frozenset[str]:
    return frozenset(light_stem(part) for part in split_identifier(text))
