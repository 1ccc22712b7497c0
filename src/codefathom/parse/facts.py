"""Graph facts of a parsed file: its symbols, the names it references, imports and type evidence.

Capture vocabulary of `queries/<lang>-graph.scm` (definitions of classes and functions come from
the units, so a symbol and its unit always agree):
    @reference.<kind> with @name (and @receiver)   call | inherit | decorator | type | read |
                                                   maybe_call (a bare name that is a call of the enclosing
                                                   object's method unless a local binds it: Ruby's `save`;
                                                   dropped like a local read, else kept as a call) |
                                                   super (a bare `super`: a call of the enclosing method's
                                                   namesake in the base, its name the method's)
    @import                                        an import statement, parsed by hooks/<lang>.py
    @hint.<kind> with @variable, @type (@object)   assign (`x = f(...)`, the call) | annotation | parameter | returns |
                                                   alias (`x = y`, `x = a.b`) | literal (a primitive) |
                                                   element (`for x in xs`: the iterable's expression) |
                                                   enter (`with cm as x`: the context manager's expression) |
                                                   caught (`except E as x`: the exception's expression) |
                                                   attribute (`self.x = T()`) | attribute_annotation
                                                   (`self.x: T`) | attribute_alias (`self.x = y`); attribute
                                                   hints are scoped to the method they are written in |
                                                   extension (C#: the type a method's `this` parameter names)
    @binding with @variable                        a target the enclosing scope binds (parameters, assignment
                                                   and loop targets, `as` names); becomes a `local` hint
                                                   (`attribute` for `obj.x = ...`) typed "?" (unknown) or
                                                   "None" unless a typed hint holds for the same line
    @definition.<kind> with @name                  constant (module level, or field in a class body) |
                                                   local (a class or function inside a function: a symbol
                                                   and a scope of its own, named inside the one around it)
    @definition.class                              a unit of kind module that is a class-like symbol (Ruby's
                                                   `module`, mixed into classes), matched by its first line
    @definition.block                              a class-like unit that adds to a type named like it
                                                   (a Rust `impl`): the scope of what it holds, no symbol,
                                                   so that the type's name means the type
    @conditional                                   a C/C++ preprocessor conditional (`#if`, `#ifdef`): the
                                                   conditions of its branches, read by hooks/cfamily.py

Each pattern names one tag, which every match of it captures: the tag is read from the pattern's text
once, and the nodes of reference and hint tags are not recorded (nothing reads them). The graph
query runs after the units query's patterns in one query (`units_and_graph_query`), so that the
tree is walked once for both.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from itertools import starmap
from operator import itemgetter

from tree_sitter import Node, Query, QueryCursor

from codefathom.model import (
    ARGUMENT_SEPARATOR,
    LOCAL_HINT_KINDS,
    FileFacts,
    ImportSite,
    RefSite,
    Symbol,
    TypeHint,
    Unit,
)
from codefathom.parse.grammars import grammar_for, query_text
from codefathom.parse.hooks import ARGUMENT_TYPES, IMPORT_PARSERS, NAMES, REFERENCE_NAMES, REWRITERS, Rewriter
from codefathom.parse.hooks.cfamily import preprocessor_branches
from codefathom.parse.hooks.ecmascript import callback_site
from codefathom.parse.languages import LanguageSpec
from codefathom.parse.navigate import MAX_SYNTAX_DEPTH

__all__ = ["FactsQuery", "Match", "extract_facts", "graph_query_text", "has_graph_query", "units_and_graph_query"]

DEFINITION_KINDS = frozenset({"class", "function", "method"})
DEF_NODE_TYPES = frozenset({"function_definition", "class_definition"})
# Java, Kotlin, Scala, Rust, C#, C/C++ and Swift definitions around a field (`@definition.field`): a
# class-like body owns it, a function body makes it a local.
OTHER_FUNCTION_NODES = frozenset(
    {"method_declaration", "constructor_declaration", "lambda_expression", "function_item", "closure_expression",
     "local_function_statement", "accessor_declaration", "function_declaration", "secondary_constructor",
     "anonymous_initializer", "getter", "setter", "lambda_literal", "init_declaration", "deinit_declaration",
     "computed_property", "subscript_declaration"}
)
OTHER_CLASS_NODES = frozenset(
    {"class_declaration", "interface_declaration", "enum_declaration", "record_declaration",
     "annotation_type_declaration", "enum_item", "struct_item", "union_item", "trait_item", "impl_item",
     "struct_declaration", "struct_specifier", "union_specifier", "class_specifier", "object_declaration",
     "companion_object", "object_literal", "object_definition", "trait_definition", "enum_definition",
     "package_object", "given_definition", "protocol_declaration"}
)
_FUNCTION_NODES = DEF_NODE_TYPES | OTHER_FUNCTION_NODES
_DEFINITION_NODES = DEF_NODE_TYPES | OTHER_FUNCTION_NODES | OTHER_CLASS_NODES
# Languages whose grammars name their definitions with words other languages use for something else
# (Python's root node is a `module`, Ruby's `module` a definition).
LANGUAGE_CLASS_NODES = {"ruby": frozenset({"class", "module", "singleton_class"})}
LANGUAGE_FUNCTION_NODES = {"ruby": frozenset({"method", "singleton_method"})}
# Nodes whose children are targets in turn: `a, (b, *c) = ...`, `for k, v in ...`, `as (x, y)`.
TARGET_CONTAINERS = frozenset(
    {"pattern_list", "tuple_pattern", "list_pattern", "tuple", "list", "parenthesized_expression", "list_splat_pattern",
     "list_splat", "as_pattern_target", "expression_list"}
)
PARAMETER_LISTS = frozenset({"parameters", "lambda_parameters"})
MAX_CALL_TEXT = 200  # a call kept as type evidence longer than this keeps only its function
# When patterns capture one name twice (a decorator is also a call), the more specific kind wins.
_REF_PRIORITY = {"decorator": 0, "inherit": 1, "call": 2, "type": 3, "read": 4, "maybe_call": 5}
LOCAL_READ_KINDS = frozenset({"read", "maybe_call"})  # references dropped when a local binds their name
SCOPE_KINDS = DEFINITION_KINDS
ECMASCRIPT_LANGUAGES = frozenset({"javascript", "typescript", "tsx"})
_NEW = re.compile(r"^new\s+")
_NON_NULL = re.compile(r"(?<=[\w$)\]])!(?!=)")  # TypeScript's `x!`, `f()!`, `a[0]!`: not `!=`
# Languages whose namespace blocks scope what is written in them (not symbols: units of kind module):
# the block's node type, and whether its name is qualified by the file's module. A Rust inline
# `mod tests { ... }` is one: a macro invoked at its top level (`syntax!(cls1, s("a"))`) calls the
# mod's own helpers, not the file's.
NAMESPACE_BLOCKS = {"cpp": ("namespace_definition", False), "rust": ("mod_item", True)}
# Nodes a namespace block may sit in: `extern "C" {`, `#ifdef` blocks.
_NAMESPACE_HOLDERS = frozenset(
    {"linkage_specification", "declaration_list", "preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif"}
)
# C and C++: top-level names are not qualified by their file (a macro `MAX` is `MAX`), and a
# prototype's parameters (`int f(int n);`, an in-class `void m(Foo x);`) bind nothing.
C_FAMILY = frozenset({"c", "cpp"})
_PROTOTYPE_NODES = frozenset({"declaration", "field_declaration", "type_definition"})
# Swift: a type's qualified name is its name alone (a module's top level spans its files), so its
# top-level properties are too.
UNQUALIFIED_TOP_LEVEL = frozenset({"swift"})
_ARRAY_TYPE = re.compile(r"([A-Za-z_$][\w.$]*)\[\]")
_WORDS = re.compile(r"[\w$]+")  # the names an expression or a type is written with (and its numbers)


def graph_query_text(spec: LanguageSpec) -> str | None:
    """The language's graph query: `<name>-graph.scm` of each of its query files that has one
    (`typescript-graph.scm` + `ecmascript-graph.scm`), None when none has."""
    folder = resources.files("codefathom.parse").joinpath("queries")
    paths = [folder.joinpath(f"{name}-graph.scm") for name in spec.query_files]
    texts = [path.read_text("utf-8") for path in paths if path.is_file()]
    return "\n".join(texts) if texts else None


def has_graph_query(spec: LanguageSpec) -> bool:
    return graph_query_text(spec) is not None


@cache
def _has_graph_query(spec: LanguageSpec) -> bool:
    return has_graph_query(spec)


# Where a match goes, by its tag's group (and, for definitions, kind): matches are sorted into these
# buckets in one pass, each bucket read in match order.
_REFS, _IMPORTS, _HINTS, _BINDINGS, _BLOCKS, _CLASSES, _LOCALS, _MEMBERS, _CONDITIONALS = range(9)
_BUCKETS = 9
_PER_MATCH = (-1, "")  # a pattern whose tag depends on the match: read from its captures
_PARAMETER_NODES = frozenset({"hint.parameter"})  # C and C++ read them: see _Prototypes
# Languages whose overloads differ in their parameters: a call's arguments are counted (its
# `@reference.call` node is read), so that the binder picks the overload taking that many.
ARITY_LANGUAGES = frozenset({"java", "csharp", "kotlin", "scala", "cpp"})
ARGUMENT_LISTS = frozenset({"argument_list", "arguments", "value_arguments"})
_COMMENTS = frozenset({"comment", "line_comment", "block_comment", "multiline_comment"})
_CAPTURE = re.compile(r'"(?:\\.|[^"\\])*"|;[^\n]*|@([\w.]+)')  # strings and comments skipped


Match = tuple[int, dict[str, list[Node]]]  # (pattern index, captures), as QueryCursor.matches gives them


@dataclass(frozen=True)
class FactsQuery:
    """A compiled query whose patterns from `first` on are the language's graph query (those before
    it, the units query's: one walk of the tree finds both)."""

    query: Query
    first: int
    # By pattern index: (bucket, kind) of a graph pattern, None for a pattern without a tag or one
    # of the units query, _PER_MATCH when the pattern's text names several tags (none does today).
    buckets: tuple[tuple[int, str] | None, ...]


@cache
def _graph_query(spec: LanguageSpec) -> FactsQuery | None:
    text = graph_query_text(spec)
    return None if text is None else _facts_query(spec, "", text)


@cache
def units_and_graph_query(spec: LanguageSpec, graph: bool = True) -> FactsQuery:
    """The units query (`queries/<lang>.scm`) followed by the graph query, when the language has one
    and `graph`: a file's tree is walked once for its units and its facts (the walk costs as much
    as the units patterns do together)."""
    graph_text = graph_query_text(spec) if graph else None
    return _facts_query(spec, query_text(spec), graph_text or "")


def _facts_query(spec: LanguageSpec, units_text: str, graph_text: str) -> FactsQuery:
    text = f"{units_text}\n{graph_text}" if units_text else graph_text
    query = Query(grammar_for(spec), text)
    data = text.encode("utf-8")
    units_end = len(units_text.encode("utf-8")) if units_text else 0
    first = sum(1 for index in range(query.pattern_count) if query.start_byte_for_pattern(index) < units_end)
    buckets: list[tuple[int, str] | None] = [None] * first
    for index in range(first, query.pattern_count):
        # The tag is a pattern's own: read from its text once, not from the captures of each match.
        source = data[query.start_byte_for_pattern(index) : query.end_byte_for_pattern(index)].decode("utf-8")
        tags = {tag for m in _CAPTURE.finditer(source) if m[1] and (tag := _tag({m[1]: []})) is not None}
        buckets.append(_bucket(*tags.pop()) if len(tags) == 1 else None if not tags else _PER_MATCH)
    if _PER_MATCH not in buckets:
        # Nothing reads the node a reference's or hint's tag is on (the pattern says the tag):
        # unrecorded, it costs no node object in every match.
        read = {m[1] for m in _CAPTURE.finditer(units_text) if m[1]}
        if spec.name in C_FAMILY:
            read |= _PARAMETER_NODES
        if spec.name in ARITY_LANGUAGES:
            read |= {"reference.call"}  # (its node is where the arguments are counted)
        for index in range(query.capture_count):
            name = query.capture_name(index)
            if name.partition(".")[0] in ("reference", "hint") and name not in read:
                query.disable_capture(name)
    return FactsQuery(query, first, tuple(buckets))


def _bucket(group: str, kind: str) -> tuple[int, str]:
    if group == "definition":
        bucket = {"block": _BLOCKS, "class": _CLASSES, "local": _LOCALS}.get(kind, _MEMBERS)
    else:
        bucket = {
            "reference": _REFS, "import": _IMPORTS, "hint": _HINTS, "binding": _BINDINGS, "conditional": _CONDITIONALS
        }[group]
    return bucket, kind


# A reference before it is kept: RefSite's fields, in its order.
_Ref = tuple[str, str, int, int, str | None, str]


def extract_facts(
    spec: LanguageSpec, root: Node, units: Sequence[Unit], module_name: str, line_count: int, package: str = "",
    matches: Sequence[Match] | None = None,
) -> FileFacts:
    """`package`: the file's package where its top-level definitions are qualified by one (a Kotlin
    top-level property is `<package>.<name>`, like its functions), else "". `matches`: those of
    `units_and_graph_query(spec)` on `root`, when the caller has them (else the graph query runs)."""
    if not _has_graph_query(spec):
        return FileFacts(symbols=tuple(_symbols(units, module_name, line_count)))
    # With the caller's matches, the graph query alone is never compiled (a worker compiled it only
    # to learn that it exists: up to a third of a second per language).
    graph = units_and_graph_query(spec) if matches is not None else _graph_query(spec)
    assert graph is not None
    buckets: list[list[tuple[str, dict[str, list[Node]]]]] = [[] for _ in range(_BUCKETS)]
    pattern_buckets = graph.buckets
    if matches is None:
        cursor = QueryCursor(graph.query)
        cursor.set_max_start_depth(MAX_SYNTAX_DEPTH)  # as the units query (see parse/navigate.py)
        matches = cursor.matches(root)
    for index, captures in matches:
        where = pattern_buckets[index]
        if where is _PER_MATCH:
            tag = _tag(captures)
            where = None if tag is None else _bucket(*tag)
        if where is not None:
            buckets[where[0]].append((where[1], captures))
    classes = {c["definition.class"][0].start_point.row + 1 for _, c in buckets[_CLASSES]}
    symbols = _symbols(units, module_name, line_count, classes)
    # Classes and functions inside functions are scopes too: what they bind is theirs alone.
    block = NAMESPACE_BLOCKS.get(spec.name)
    namespaces = _namespace_spans(root, block[0], module_name if block[1] else "") if block else []
    scopes = _ScopeMap(symbols, line_count, namespaces)
    local = _local_definitions([c for _, c in buckets[_LOCALS] if "name" in c], scopes, module_name)
    if local:
        symbols.extend(local)
        scopes = _ScopeMap(symbols, line_count, namespaces)
    ecmascript = spec.name in ECMASCRIPT_LANGUAGES
    rewrite = REWRITERS.get(spec.name)
    plain = NAMES.get(spec.name, _same)
    c_family = spec.name in C_FAMILY
    arities: dict[tuple[int, int], tuple[int, str]] | None = {} if spec.name in ARITY_LANGUAGES else None
    typer = ARGUMENT_TYPES.get(spec.name)
    imports: list[ImportSite] = []
    parse_import = IMPORT_PARSERS.get(spec.name)
    if parse_import is not None:
        for _, captures in buckets[_IMPORTS]:
            imports.extend(parse_import(captures["import"][0]))
    prototypes = _Prototypes() if c_family else None
    hints = [
        _hint(kind, captures, scopes, ecmascript, rewrite, plain) for kind, captures in buckets[_HINTS]
        if "variable" in captures and "type" in captures
        and not (prototypes is not None and kind == "parameter" and prototypes.holds(captures["hint.parameter"][0]))
    ]
    bindings: list[tuple[str | None, str, int, bool]] = []  # scope, variable, line, assigned None
    for _, captures in buckets[_BINDINGS]:
        if "variable" in captures and not (prototypes is not None and prototypes.holds(captures["binding"][0])):
            bindings.extend(_bindings(captures["binding"][0], captures["variable"][0], scopes))
    blocks = {  # (first, last line) of `@definition.block` nodes
        (node.start_point.row + 1, node.end_point.row + 1)
        for node in (captures["definition.block"][0] for _, captures in buckets[_BLOCKS])
    }
    extra: list[Symbol] = []
    if buckets[_MEMBERS]:
        around = _member_context(spec.name)
        bare = c_family or spec.name in ECMASCRIPT_LANGUAGES or spec.name in UNQUALIFIED_TOP_LEVEL
        for kind, captures in buckets[_MEMBERS]:
            if "name" in captures:
                member = _member(kind, captures, scopes, module_name, around, plain, bare=bare, package=package)
                if member is not None:
                    extra.append(member)
    # names a function binds that also name a definition of the file or an import: a bare one in an
    # anonymous function that binds it (`export const f = dual(2, (self, f) => f(self))`) means that
    # local, not what the binder would find
    shadowing = (
        ({h.variable for h in hints} | {b[1] for b in bindings})
        & ({s.name for s in symbols} | {s.name for s in extra} | {site.alias for site in imports})
    ) if ecmascript else None
    refs = _references(
        buckets[_REFS], scopes, ecmascript, rewrite, REFERENCE_NAMES.get(spec.name), arities, typer, shadowing)
    hints.extend(_untyped(bindings, hints))
    if c_family:
        conditionals = [captures["conditional"][0] for _, captures in buckets[_CONDITIONALS]]
        hints.extend(_conditions(conditionals, symbols + extra))
    kept = _without_local_reads(refs.values(), hints, symbols)
    kept.sort(key=itemgetter(2, 3))
    sites: Sequence[tuple[object, ...]] = kept  # RefSite's fields, in its order
    if arities:
        sites = [ref + arities.get((ref[2], ref[3]), _UNCOUNTED) for ref in kept]
    ordered = tuple(starmap(RefSite, sites))
    hints = _without_unused_locals(hints, ordered, symbols)
    if blocks:
        symbols = [s for s in symbols if not (s.kind == "class" and _is_block(s, blocks))]
    return FileFacts(tuple(symbols + extra), ordered, tuple(imports), tuple(hints))


def _references(
    matches: list[tuple[str, dict[str, list[Node]]]], scopes: _ScopeMap, ecmascript: bool, rewrite: Rewriter | None,
    plain: Callable[[str], str] | None = None, arities: dict[tuple[int, int], tuple[int, str]] | None = None,
    typer: Callable[[Node], str] | None = None, shadowing: set[str] | None = None,
) -> dict[tuple[int, int], _Ref]:
    """The references by position: one name written once is one reference, of the most specific
    kind the patterns that match it say; `plain` reads a name written in quotes. `arities`, when
    given, is filled with the arguments each call passes, by position. `shadowing` (JavaScript and
    TypeScript): names some function binds; one written outside any unit, without a receiver, in
    an anonymous function that binds it, is left out."""
    refs: dict[tuple[int, int], _Ref] = {}
    names, last = scopes.names, len(scopes.names)
    for kind, captures in matches:
        if "name" not in captures:
            continue
        if kind == "super":
            ref = _super(captures, scopes)
            if ref is not None and (ref[2], ref[3]) not in refs:
                refs[(ref[2], ref[3])] = ref
            continue
        name = captures["name"][0]
        row, column = name.start_point
        line = row + 1
        receiver_nodes = captures.get("receiver")
        receiver = ""
        if receiver_nodes is not None:
            receiver = " ".join((receiver_nodes[0].text or b"").decode("utf-8", errors="replace").split())
            if ecmascript and receiver:
                receiver = _ecmascript_expression(receiver)
            elif rewrite is not None and receiver:
                receiver = rewrite(receiver_nodes[0], receiver, False)
        if shadowing is not None and receiver_nodes is None:
            text = (name.text or b"").decode("utf-8", errors="replace")
            if text in shadowing and _bound_around(name, text, line >= last or names[line] is None):
                continue
        key = (line, column)
        old = refs.get(key)
        if old is None or _REF_PRIORITY.get(kind, 9) < _REF_PRIORITY.get(old[1], 9) or (
            kind == old[1] and receiver and not old[5]  # `Outer.Inner`: Inner via Outer
        ):
            text = (name.text or b"").decode("utf-8", errors="replace")
            if plain is not None:
                text = plain(text)
            refs[key] = (text, kind, line, column, names[line] if line < last else None, receiver)
            call = captures.get("reference.call")
            if arities is not None and call is not None:
                arities[key] = _arity(call[0], typer)
    return refs


_ES_FUNCTIONS = frozenset({
    "arrow_function", "function_expression", "function", "generator_function", "function_declaration",
    "generator_function_declaration", "method_definition",
})
_ES_PATTERN_NAMES = frozenset({"identifier", "shorthand_property_identifier_pattern"})
_ES_PATTERN_PARTS = frozenset({
    "required_parameter", "optional_parameter", "object_pattern", "array_pattern", "pair_pattern", "rest_pattern",
    "object_assignment_pattern", "assignment_pattern",
})


def _bound_around(name: Node, text: str, outside_units: bool) -> bool:
    """Whether a function around `name` binds `text` as a parameter, or (`outside_units`: the name
    is written outside any unit, where locals are not scoped) by a declaration written directly in
    its body (JavaScript and TypeScript)."""
    node = name.parent
    while node is not None:
        if node.type in _ES_FUNCTIONS:
            parameters = node.child_by_field_name("parameters") or node.child_by_field_name("parameter")
            if parameters is not None and _pattern_binds(parameters, text):
                return True
            body = node.child_by_field_name("body") if outside_units else None
            if body is not None and body.type == "statement_block" and _declares(body, text):
                return True
        node = node.parent
    return False


def _pattern_binds(node: Node, text: str) -> bool:
    """Whether a parameter list (or one parameter, or a pattern) binds the name `text`; default
    values and types are not looked in."""
    if node.type in _ES_PATTERN_NAMES:
        return node.text == text.encode()
    if node.type == "formal_parameters":
        return any(_pattern_binds(child, text) for child in node.named_children)
    if node.type not in _ES_PATTERN_PARTS:
        return False
    if node.type in ("required_parameter", "optional_parameter"):
        pattern = node.child_by_field_name("pattern")
        return pattern is not None and _pattern_binds(pattern, text)
    if node.type == "pair_pattern":
        value = node.child_by_field_name("value")
        return value is not None and _pattern_binds(value, text)
    if node.type in ("object_assignment_pattern", "assignment_pattern"):
        left = node.child_by_field_name("left")
        return left is not None and _pattern_binds(left, text)
    return any(_pattern_binds(child, text) for child in node.named_children)


def _declares(block: Node, text: str) -> bool:
    """Whether a statement written directly in `block` declares `text`."""
    wanted = text.encode()
    for statement in block.named_children:
        kind = statement.type
        if kind in ("lexical_declaration", "variable_declaration"):
            for declarator in statement.named_children:
                target = declarator.child_by_field_name("name") if declarator.type == "variable_declarator" else None
                if target is not None and (target.text == wanted if target.type == "identifier"
                                           else _pattern_binds(target, text)):
                    return True
        elif kind in ("function_declaration", "generator_function_declaration", "class_declaration"):
            declared = statement.child_by_field_name("name")
            if declared is not None and declared.text == wanted:
                return True
    return False


def _is_block(symbol: Symbol, blocks: set[tuple[int, int]]) -> bool:
    """Whether a class symbol is a block's unit (which starts at the block, or at an attribute above it)."""
    return any(end == symbol.end_line and symbol.start_line <= start for start, end in blocks)


def _without_local_reads(refs: Iterable[_Ref], hints: list[TypeHint], symbols: list[Symbol]) -> list[_Ref]:
    """The references minus reads of a function's own parameters and variables: they can only
    mean those locals, answer no graph question, and are a third of all references. A bare name
    no local binds is a call (Ruby's `save` is `self.save()`)."""
    by_name = {s.qualified_name: s for s in symbols}
    bound: set[tuple[str | None, str]] = {
        (h.scope, h.variable) for h in hints if h.kind in LOCAL_HINT_KINDS and h.scope is not None
    }
    defined = {(s.parent, s.name) for s in symbols}
    top = {h.variable for h in hints if h.kind in LOCAL_HINT_KINDS and h.scope is None}
    kept = []
    for ref in refs:
        name, kind, _, _, scope, receiver = ref
        if kind in LOCAL_READ_KINDS and not receiver and _is_local(scope, name, by_name, bound, defined):
            continue
        if kind == "maybe_call":
            if scope is None and name in top:
                continue  # a variable of top-level code (a spec's blocks)
            ref = (name, "call", *ref[2:])
        kept.append(ref)
    return kept


_UNCOUNTED = (-1, "")


def _conditions(conditionals: list[Node], symbols: list[Symbol]) -> list[TypeHint]:
    """A `condition` hint for each C or C++ definition inside preprocessor branches that name a
    platform: the conditions under which it is compiled, joined (variable: its name; line: its first)."""
    branches = preprocessor_branches(conditionals)
    if not branches:
        return []
    lines = sorted({s.start_line for s in symbols})
    under: dict[int, list[str]] = {}
    for first, last, condition in branches:
        for line in lines[bisect_left(lines, first) : bisect_right(lines, last)]:
            under.setdefault(line, []).append(f"({condition})")
    return [
        TypeHint(None, s.name, " && ".join(under[s.start_line]), s.start_line, "condition")
        for s in symbols if s.start_line in under and s.kind != "module"
    ]


def _arity(call: Node, typer: Callable[[Node], str] | None = None) -> tuple[int, str]:
    """How many arguments a call passes (-1: no argument list found; a Kotlin lambda written after
    the parentheses is one more), and, given a language's `typer`, their types (ARGUMENT_SEPARATOR
    between)."""
    for child in call.named_children:
        if child.type in ARGUMENT_LISTS:
            arguments = [c for c in child.named_children if c.type not in _COMMENTS]
            return len(arguments), ARGUMENT_SEPARATOR.join(typer(a) for a in arguments) if typer is not None else ""
        if child.type == "call_suffix":
            lists = [c for c in child.named_children if c.type in ARGUMENT_LISTS]
            lambdas = sum(1 for c in child.named_children if c.type == "annotated_lambda")
            return (_arity(child)[0] if lists else 0) + lambdas, ""
    return _UNCOUNTED


def _same(text: str) -> str:
    return text


def _super(captures: dict[str, list[Node]], scopes: _ScopeMap) -> _Ref | None:
    """A bare `super`: a call of the enclosing method's own name, through the base class."""
    node = captures["name"][0]
    line = node.start_point.row + 1
    scope = scopes.scope(line)
    if scope is None or scope.kind != "method":
        return None
    return scope.name, "call", line, node.start_point.column, scope.qualified_name, "super"


def _is_local(
    scope: str | None, name: str, by_name: dict[str, Symbol], bound: set[tuple[str | None, str]],
    defined: set[tuple[str | None, str]],
) -> bool:
    current = scope
    while current is not None:
        symbol = by_name.get(current)
        if symbol is None or symbol.kind not in ("function", "method"):
            return False  # class bodies and the module: names there are not locals
        if (current, name) in defined:
            return False  # a function defined in there: a symbol worth binding to
        if (current, name) in bound:
            return True
        current = symbol.parent
    return False


def _symbols(
    units: Sequence[Unit], module_name: str, line_count: int, classes: frozenset[int] | set[int] = frozenset()
) -> list[Symbol]:
    """The file's module, and a symbol for each class, function and method unit (and each module unit
    starting on a line of `classes`: a class-like module)."""
    symbols = [Symbol("module", module_name.rsplit(".", 1)[-1], module_name, 1, max(line_count, 1))]
    ends: dict[tuple[str, str], int] = {}  # the last line of the units of each name and kind
    for unit in units:
        key = (unit.qualified_name, unit.kind)
        ends[key] = max(ends.get(key, 0), unit.end_line)
    for unit in units:
        class_like = unit.kind == "module" and unit.start_line in classes and unit.qualified_name != module_name
        if (unit.kind not in DEFINITION_KINDS and not class_like) or unit.part > 1:
            continue
        end = unit.end_line
        if unit.part == 1:  # a split unit: the symbol spans every part
            end = ends[(unit.qualified_name, unit.kind)]
        parent = unit.qualified_name.rsplit(".", 1)[0] if "." in unit.qualified_name else module_name
        kind = "class" if class_like else unit.kind
        symbols.append(
            Symbol(kind, unit.name, unit.qualified_name, unit.start_line, end, parent, unit.signature, unit.doc)
        )
    return symbols


class _ScopeMap:
    """The innermost definition around each line, and the innermost class; a C++ namespace block is
    the scope of what is written in it outside every definition (a stand-in symbol, kind "namespace")."""

    def __init__(self, symbols: list[Symbol], line_count: int, namespaces: Sequence[tuple[int, int, str]] = ()) -> None:
        self.at: list[Symbol | None] = [None] * (line_count + 2)
        self.cls: list[Symbol | None] = [None] * (line_count + 2)
        # The scope's qualified name by line, read for every reference.
        self.names: list[str | None] = [None] * (line_count + 2)
        self._last = line_count + 1
        for start, end, qualified in namespaces:  # outermost first: inner blocks overwrite
            self._cover(Symbol("namespace", qualified.rsplit(".", 1)[-1], qualified, start, end), start, end)
        for symbol in sorted(symbols, key=lambda s: (s.start_line, -s.end_line)):
            if symbol.kind in SCOPE_KINDS:
                self._cover(symbol, symbol.start_line, symbol.end_line)

    def _cover(self, symbol: Symbol, start: int, end: int) -> None:
        stop = min(end, self._last) + 1
        if start < stop:  # slices, not a loop over the lines: a module's class covers thousands
            self.at[start:stop] = [symbol] * (stop - start)
            self.names[start:stop] = [symbol.qualified_name] * (stop - start)
            if symbol.kind == "class":
                self.cls[start:stop] = [symbol] * (stop - start)

    def scope(self, line: int) -> Symbol | None:
        return self.at[line] if 0 <= line < len(self.at) else None

    def name(self, line: int) -> str | None:
        """The qualified name of `scope(line)`."""
        return self.names[line] if 0 <= line < len(self.names) else None

    def enclosing_class(self, line: int) -> Symbol | None:
        return self.cls[line] if 0 <= line < len(self.cls) else None


def _tag(captures: dict[str, list[Node]]) -> tuple[str, str] | None:
    for capture in captures:
        group, _, kind = capture.partition(".")
        if group in ("reference", "hint", "definition") and kind:
            return group, kind
        if group in ("import", "binding", "conditional"):
            return group, ""
    return None


def _hint(
    kind: str, captures: dict[str, list[Node]], scopes: _ScopeMap, ecmascript: bool = False,
    rewrite: Rewriter | None = None, plain: Callable[[str], str] = _same,
) -> TypeHint:
    variable = plain(_text(captures["variable"][0]))
    if kind == "callback":  # a parameter typed by the signature of the function it is passed to
        line = captures["variable"][0].start_point.row + 1
        site = callback_site(captures["variable"][0], captures["type"][0])
        return TypeHint(scopes.name(line), variable, site or "?", line, "callback" if site else "local")
    if kind == "property":  # `const { a, b: c } = expr`: expr.a, expr.b
        value = captures["type"][0]
        text = " ".join(_text(value).split())
        function = value.child_by_field_name("function") if value.type == "call_expression" else None
        if len(text) > MAX_CALL_TEXT and function is not None:  # `f(<long arguments>)`: f()
            text = " ".join(_text(function).split()) + "()"
        text = _ecmascript_expression(text)
        if value.type not in ("identifier", "member_expression", "call_expression", "this", "subscript_expression"):
            text = f"({text})"
        key = _text(captures["key"][0]) if "key" in captures else variable
        line = captures["variable"][0].start_point.row + 1
        return TypeHint(scopes.name(line), variable, f"{text}.{key}", line, "assign")
    if kind == "narrowed":  # `x` inside `if (x instanceof Foo) ...` or `if (isFoo(x)) ...`: test#how#last line
        line = captures["variable"][0].start_point.row + 1
        test = captures["type"][0]
        how = "instanceof" if test.parent is not None and test.parent.type == "binary_expression" else "guard"
        written = _ecmascript_expression(" ".join(_text(test).split()))
        last = captures["narrowed"][0].end_point.row + 1
        return TypeHint(scopes.name(line), variable, f"{written}#{how}#{last}", line, "narrowed")
    if kind == "array_of":  # `[new Foo(), ...]`: declared as `Array[Foo]`
        line = captures["variable"][0].start_point.row + 1
        written = " ".join(_text(captures["type"][0]).split())
        return TypeHint(scopes.name(line), variable, f"Array[{written}]", line, "annotation")
    if kind == "attribute_literal":
        kind = "attribute"
        type_name = "literal"
    elif kind == "literal":  # what the literal is written as says nothing more
        type_name = "literal"
    else:
        type_node = captures["type"][0]
        type_name = " ".join(_text(type_node).split())
        node_type = type_node.type
        if len(type_name) > MAX_CALL_TEXT and node_type in ("call", "call_expression"):  # `x = f(<long arguments>)`
            function = type_node.child_by_field_name("function")
            if function is not None:  # f()
                type_name = " ".join(_text(function).split()) + "()"
        constructor = type_node.child_by_field_name("constructor") if node_type == "new_expression" else None
        if constructor is not None:  # `new Foo(...)`: a call of the class, `Foo()`
            type_name = " ".join(_text(constructor).split()) + "()"
        elif ecmascript and kind in ("assign", "alias", "attribute", "attribute_alias", "element"):
            type_name = _ecmascript_expression(type_name)
        elif ecmascript:
            type_name = _ecmascript_type(type_name)
        elif rewrite is not None:
            type_name = rewrite(
                type_node, type_name, kind not in ("assign", "alias", "element", "item", "attribute", "attribute_alias")
            )
        if kind not in ("element", "item", "enter", "caught", "assign", "attribute"):  # a string annotation: `x: "Foo"`
            type_name = type_name.strip("\"' ")
    line = captures["variable"][0].start_point.row + 1
    if kind.startswith("attribute"):  # kept in the method it is written in, where `T` and `y` mean something
        owner = _text(captures["object"][0]) if "object" in captures else "this" if ecmascript else "self"
        scope = scopes.name(line) if scopes.enclosing_class(line) is not None else None
        return TypeHint(scope, f"{owner}.{variable}", type_name, line, kind)
    return TypeHint(scopes.name(line), variable, type_name, line, kind)


def _ecmascript_expression(text: str) -> str:
    """A JavaScript expression as the binder reads expressions: `new Foo().bar` -> `Foo().bar`,
    `a?.b!.c` -> `a.b.c`, `xs.shift()!` -> `xs.shift()`."""
    if text.startswith("new"):  # (a regex pass costs more than looking)
        text = _NEW.sub("", text)
    text = text.replace("?.", ".")
    return _NON_NULL.sub("", text) if "!" in text else text


def _ecmascript_type(text: str) -> str:
    """A TypeScript type as the binder reads types: `Array<Foo>` -> `Array[Foo]`, `Foo[]` ->
    `Array[Foo]`, `Observer<T>[]` -> `Array[Observer[T]]`; function types are left as they are
    (the binder reads nothing of them)."""
    if "=>" in text:
        return text
    text = text.replace("<", "[").replace(">", "]")
    if text.startswith("readonly "):
        text = text[9:]
    for _ in range(4):  # `Partial<Foo>`, `Readonly<Foo>`: Foo's members
        wrapper = _SAME_MEMBERS.search(text)
        if wrapper is None:
            break
        close = _closing(text, wrapper.end() - 1)
        if close is None:
            break
        text = f"{text[:wrapper.start()]}{text[wrapper.end():close]}{text[close + 1:]}"
    if "[]" not in text:
        return text
    text = _ARRAY_TYPE.sub(r"Array[\1]", text)
    for _ in range(8):  # a generic or parenthesized element type: `Foo[T][]`, `(A | B)[]`
        found = text.find("[]")
        if found <= 0:
            break
        start = _term_start(text, found)
        if start is None:
            break
        text = f"{text[:start]}Array[{text[start:found]}]{text[found + 2:]}"
    return text


_SAME_MEMBERS = re.compile(r"(?<![\w$.])(?:Partial|Required|Readonly|NonNullable)\[")


def _closing(text: str, start: int) -> int | None:
    """The index of the bracket that closes the one at `start`."""
    depth = 0
    for position in range(start, len(text)):
        if text[position] in "[(":
            depth += 1
        elif text[position] in "])":
            depth -= 1
            if depth == 0:
                return position
    return None


def _term_start(text: str, end: int) -> int | None:
    """Where the type that ends at `end` starts: a name with its brackets (`Foo[T]`, `a.B[C[D]]`)
    or a parenthesized type."""
    position, depth = end, 0
    while position > 0:
        char = text[position - 1]
        if char in "])":
            depth += 1
        elif char in "[(":
            depth -= 1
            if depth < 0:
                return None
            if depth == 0 and char == "(":
                return position - 1
        elif depth == 0 and not (char.isalnum() or char in "_$."):
            break
        position -= 1
    return position if position < end and depth == 0 else None


def _bindings(statement: Node, target: Node, scopes: _ScopeMap) -> list[tuple[str | None, str, int, bool]]:
    """(scope, variable, line, assigned None) of each name a binding statement binds; `obj.x`
    targets are recorded as `obj.x` in the enclosing class."""
    right = statement.child_by_field_name("right") if statement.type == "assignment" else None
    is_none = right is not None and right.type == "none"
    if target.type == "identifier":  # most targets: `x = ...`, `for x in ...`
        line = target.start_point.row + 1
        return [(scopes.name(line), (target.text or b"").decode("utf-8", errors="replace"), line, is_none)]
    found: list[tuple[str | None, str, int, bool]] = []
    for node in _target_names(target):
        line = node.start_point.row + 1
        if node.type == "attribute":
            obj, attr = node.child_by_field_name("object"), node.child_by_field_name("attribute")
            if obj is None or attr is None or obj.type != "identifier":
                continue
            method = scopes.name(line)
            if method is not None and scopes.enclosing_class(line) is not None:
                found.append((method, f"{_text(obj)}.{_text(attr)}", line, is_none))
            continue
        found.append((scopes.name(line), _text(node), line, is_none))
    return found


def _target_names(node: Node) -> list[Node]:
    """The identifiers (and `obj.attr` nodes) a target binds."""
    # (a type parameter too; PHP's `$x` is a `name` in a `variable_name`)
    node_type = node.type
    if node_type in ("identifier", "attribute", "type_identifier", "implicit_parameter", "name",
                     "shorthand_property_identifier_pattern"):
        return [node]
    if node_type in PARAMETER_LISTS:
        names = []
        for child in node.named_children:
            child_type = child.type
            if child_type == "identifier":
                names.append(child)
            elif child_type in ("default_parameter", "typed_default_parameter"):
                name = child.child_by_field_name("name")
                names.extend([name] if name is not None and name.type == "identifier" else [])
            elif child_type == "typed_parameter":
                names.extend(_target_names(child.named_children[0]) if child.named_children else [])
            elif child_type in ("list_splat_pattern", "dictionary_splat_pattern"):
                names.extend(_target_names(child))
        return names
    if node_type in TARGET_CONTAINERS or node_type == "dictionary_splat_pattern":
        return [name for child in node.named_children for name in _target_names(child)]
    return []


def _untyped(bindings: list[tuple[str | None, str, int, bool]], hints: list[TypeHint]) -> list[TypeHint]:
    """A `local` (or `attribute`) hint for each variable bound without type evidence, once per
    scope and variable: "?" when its value is unknown, "None" when it was assigned None."""
    typed = {(h.scope, h.variable, h.line) for h in hints if h.kind != "returns"}
    seen: set[tuple[str | None, str, str]] = set()
    found = []
    for scope, variable, line, is_none in sorted(bindings, key=itemgetter(2)):
        if (scope, variable, line) in typed:
            continue
        type_name = "None" if is_none else "?"
        if (scope, variable, type_name) in seen:
            continue
        seen.add((scope, variable, type_name))
        kind = "attribute" if "." in variable else "local"
        found.append(TypeHint(scope, variable, type_name, line, kind))
    return found


def _without_unused_locals(hints: list[TypeHint], refs: Sequence[RefSite], symbols: list[Symbol]) -> list[TypeHint]:
    """The hints minus the untyped locals of functions that nothing written in the function (or in
    a definition inside it) names: no kept reference's name, receiver or arguments, no other hint's
    type. They served to drop reads of locals (`_without_local_reads`); the binder asks for a
    function's locals only by names written there, so it would never ask for these. (Locals of a
    module or class body stay: other files read those, as module variables and class attributes.)"""
    functions = {s.qualified_name for s in symbols if s.kind in ("function", "method")}
    # The functions that have such locals: only their words are read (Java's locals are mostly
    # typed, and a file without any is left as it is).
    asked = {h.scope for h in hints if h.kind == "local" and h.scope in functions}
    if not asked:
        return hints
    # The texts written in each scope, gathered first: the words are read once per scope, not once
    # per reference (a file has tens of scopes and thousands of references).
    texts: dict[str | None, list[str]] = {}
    for ref in refs:
        texts.setdefault(ref.scope, []).extend((ref.name, ref.receiver, ref.arguments))
    for hint in hints:
        if hint.kind != "local":
            texts.setdefault(hint.scope, []).append(hint.type_name)
    written: dict[str | None, set[str]] = {}  # scope -> the names written in it or in a scope inside it
    for scope, parts in texts.items():
        around = []  # the scope and those around it that have locals to keep or drop
        while scope:
            if scope in asked:
                around.append(scope)
            scope = scope.rpartition(".")[0]
        if not around:
            continue
        words = set(_WORDS.findall(" ".join(parts)))  # (a space joins no two words)
        words |= {word.lstrip("$") for word in words if word.startswith("$")}  # PHP's `$x` is `x`
        for name in around:
            written.setdefault(name, set()).update(words)
    return [
        h for h in hints
        if h.kind != "local" or h.scope not in functions or h.variable in written.get(h.scope, ())
    ]


def _local_definitions(
    matches: list[dict[str, list[Node]]], units: _ScopeMap, module_name: str
) -> list[Symbol]:
    """Symbols of the classes and functions defined inside functions (units stop at a function),
    each named inside the definition around it: `mod.outer.inner`, `mod.test.Local.method`."""
    # The matches hold every class and function (Python) or function (Bash) above each of them, so
    # what is around a definition is read off the matches in document order, not by walking up
    # the tree (tree-sitter's Node.parent searches down from the root: n nested ones cost n³).
    around_of: dict[int, Node | None] = {}
    in_function: set[int] = set()
    enclosing: list[Node] = []
    definitions = {captures["definition.local"][0].id: captures["definition.local"][0] for captures in matches}
    for node in sorted(definitions.values(), key=lambda n: (n.start_byte, -n.end_byte)):
        while enclosing and enclosing[-1].end_byte <= node.start_byte:
            enclosing.pop()
        around_of[node.id] = enclosing[-1] if enclosing else None
        if enclosing and (enclosing[-1].type == "function_definition" or enclosing[-1].id in in_function):
            in_function.add(node.id)
        enclosing.append(node)
    inside: dict[tuple[int, str], Node] = {}
    for captures in matches:
        node = captures["definition.local"][0]
        if node.id in in_function:  # else a unit already
            inside[(node.start_byte, _text(captures["name"][0]))] = node
    stack: list[tuple[Node, Symbol]] = []
    found = []
    for (_, name), node in sorted(inside.items()):
        while stack and stack[-1][0].end_byte <= node.start_byte:
            stack.pop()
        line = node.start_point.row + 1
        if stack:
            parent = stack[-1][1].qualified_name
        else:
            owner = units.scope(line)
            parent = owner.qualified_name if owner else module_name
        around = around_of[node.id]
        kind = "class" if node.type == "class_definition" else "function"
        if kind == "function" and around is not None and around.type == "class_definition":
            kind = "method"
        signature = " ".join(_text(node).split("\n", 1)[0].split()).rstrip(":")
        symbol = Symbol(kind, name, f"{parent}.{name}", line, node.end_point.row + 1, parent, signature)
        found.append(symbol)
        stack.append((node, symbol))
    return found


@dataclass(frozen=True)
class _MemberContext:
    """A language's node types around a constant or field: `around` is every definition type,
    `functions` those that make it a local variable, `classes` those that must be its owner."""

    around: frozenset[str]
    functions: frozenset[str]
    classes: frozenset[str]


@cache
def _member_context(language: str) -> _MemberContext:
    functions = OTHER_FUNCTION_NODES | LANGUAGE_FUNCTION_NODES.get(language, frozenset())
    classes = OTHER_CLASS_NODES | LANGUAGE_CLASS_NODES.get(language, frozenset())
    return _MemberContext(DEF_NODE_TYPES | functions | classes, functions | {"function_definition"}, classes)


def _member(
    kind: str, captures: dict[str, list[Node]], scopes: _ScopeMap, module_name: str, context: _MemberContext,
    plain: Callable[[str], str] = _same, bare: bool = False, package: str = "",
) -> Symbol | None:
    """A module constant (a package's, where the file's top level is qualified by its package) or a
    class field. `bare`: the language's top-level names are not qualified by their file (C, C++: a
    macro `MAX` is `MAX`, in a namespace `ns.MAX`; JavaScript and TypeScript, like their functions)."""
    node = captures[f"definition.{kind}"][0]
    if kind == "parameter_field":  # `constructor(private repo: Repo)`: a field of the class
        cls = scopes.enclosing_class(node.start_point.row + 1)
        if cls is None:
            return None
        name = plain(_text(captures["name"][0]))
        signature = " ".join(_text(node).split())[:160]
        line = node.start_point.row + 1
        return Symbol("field", name, f"{cls.qualified_name}.{name}", line, node.end_point.row + 1, cls.qualified_name,
                      signature)
    around = _nearest_definition(node, context.around)
    if around is not None and around.type in context.functions:
        return None  # a local variable: most matches, so before anything else is read
    line = node.start_point.row + 1
    owner = scopes.enclosing_class(line) if around is not None else None
    if around is not None and owner is None:
        return None
    if around is not None and around.type in context.classes and scopes.scope(line) is not owner:
        return None  # in a type declared inside a function body, which is no symbol
    if kind == "field" and owner is None and bare:
        return None  # a C field no struct holds: a struct body the parser could not read (macros in it)
    name = plain(_text(captures["name"][0]))
    around_scope = scopes.scope(line)
    namespace = around_scope.qualified_name if around_scope is not None and around_scope.kind == "namespace" else None
    parent = owner.qualified_name if owner else namespace or package or module_name
    qualified = name if bare and parent == module_name else f"{parent}.{name}"
    signature = " ".join(_text(node).split())[:160]
    return Symbol("field" if owner else "constant", name, qualified, line, node.end_point.row + 1, parent, signature)


class _Prototypes:
    """The C and C++ parameters of declarations without a body (`int f(int n);`), not of functions:
    their hints and bindings are dropped. Known by parameter list: a list's parameters share the
    answer, and each parameter's hint and binding both ask."""

    def __init__(self) -> None:
        self._by_list: dict[int, bool] = {}

    def holds(self, node: Node) -> bool:
        """Whether `node` (a hint's or binding's) is such a parameter."""
        if node.type not in ("parameter_declaration", "optional_parameter_declaration"):
            return False
        parameters = node.parent
        if parameters is None:
            return False
        found = self._by_list.get(parameters.id)
        if found is None:
            found = self._by_list[parameters.id] = _in_prototype(parameters)
        return found


def _in_prototype(node: Node) -> bool:
    current: Node | None = node
    while current is not None and (current_type := current.type) not in _FUNCTION_NODES:
        if current_type in _PROTOTYPE_NODES:
            return True
        current = current.parent
    return False


def _namespace_spans(root: Node, block: str = "namespace_definition", module: str = "") -> list[tuple[int, int, str]]:
    """(first line, last line, dotted name) of each named namespace block, outermost first;
    `namespace a::b {` and blocks inside blocks are qualified by the ones around them (and by the
    file's module when given)."""
    found: list[tuple[int, int, str]] = []
    pending: list[tuple[Node, str]] = [(root, module)]
    while pending:
        node, prefix = pending.pop(0)
        for child in node.named_children:
            if child.type == block:
                name = child.child_by_field_name("name")
                body = child.child_by_field_name("body")
                written = "".join(_text(name).split()).replace("::", ".") if name is not None else ""
                inner = f"{prefix}.{written}".strip(".") if written else prefix
                if written and body is not None:  # (Rust's `mod foo;` names a file)
                    found.append((child.start_point.row + 1, child.end_point.row + 1, inner))
                if body is not None:
                    pending.append((body, inner))
            elif child.type in _NAMESPACE_HOLDERS:
                pending.append((child, prefix))
    return found


def _nearest_definition(node: Node, definitions: frozenset[str] = _DEFINITION_NODES) -> Node | None:
    """The class or function definition around a node, if any: the first ancestor whose type is
    one of `definitions`."""
    current = node.parent
    while current is not None and current.type not in definitions:
        current = current.parent
    return current


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", errors="replace")
