"""Graph facts of a parsed file: its symbols, the names it references, imports and type evidence.

Capture vocabulary of `queries/<lang>-graph.scm` (definitions of classes and functions come from
the units, so a symbol and its unit always agree):
    @reference.<kind> with @name (and @receiver)   call | inherit | decorator | type | read
    @import                                        an import statement, parsed by hooks/<lang>.py
    @hint.<kind> with @variable, @type (@object)   assign | annotation | parameter | attribute | returns |
                                                   literal (the variable holds a literal: a primitive)
    @definition.<kind> with @name                  constant | field | local (a function inside a function)
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from importlib import resources

from tree_sitter import Node, Query, QueryCursor

from codefathom.model import FileFacts, ImportSite, RefSite, Symbol, TypeHint, Unit
from codefathom.parse.grammars import grammar_for
from codefathom.parse.hooks import IMPORT_PARSERS
from codefathom.parse.languages import LanguageSpec

__all__ = ["extract_facts", "graph_query_text", "has_graph_query"]

DEFINITION_KINDS = frozenset({"class", "function", "method"})
# When patterns capture one name twice (a decorator is also a call), the more specific kind wins.
_REF_PRIORITY = {"decorator": 0, "inherit": 1, "call": 2, "type": 3, "read": 4}
SCOPE_KINDS = DEFINITION_KINDS


def graph_query_text(spec: LanguageSpec) -> str | None:
    path = resources.files("codefathom.parse").joinpath("queries", f"{spec.name}-graph.scm")
    return path.read_text("utf-8") if path.is_file() else None


def has_graph_query(spec: LanguageSpec) -> bool:
    return graph_query_text(spec) is not None


@cache
def _graph_query(spec: LanguageSpec) -> Query | None:
    text = graph_query_text(spec)
    return None if text is None else Query(grammar_for(spec), text)


def extract_facts(
    spec: LanguageSpec, root: Node, units: Sequence[Unit], module_name: str, line_count: int
) -> FileFacts:
    symbols = _symbols(units, module_name, line_count)
    query = _graph_query(spec)
    if query is None:
        return FileFacts(symbols=tuple(symbols))
    scopes = _ScopeMap(symbols, line_count)
    refs: dict[tuple[int, int], RefSite] = {}  # by position: one name written once is one reference
    imports: list[ImportSite] = []
    hints: list[TypeHint] = []
    extra: list[Symbol] = []
    parse_import = IMPORT_PARSERS.get(spec.name)
    for _, captures in QueryCursor(query).matches(root):
        tag = _tag(captures)
        if tag is None:
            continue
        group, kind = tag
        if group == "reference" and "name" in captures:
            ref = _ref(kind, captures, scopes)
            key = (ref.line, ref.column)
            if key not in refs or _REF_PRIORITY.get(kind, 9) < _REF_PRIORITY.get(refs[key].kind, 9):
                refs[key] = ref
        elif group == "import" and parse_import is not None:
            imports.extend(parse_import(captures["import"][0]))
        elif group == "hint" and "variable" in captures and "type" in captures:
            hints.append(_hint(kind, captures, scopes))
        elif group == "definition" and "name" in captures:
            extra.append(_member(kind, captures, scopes, module_name))
    ordered = tuple(sorted(refs.values(), key=lambda r: (r.line, r.column)))
    return FileFacts(tuple(symbols + extra), ordered, tuple(imports), tuple(hints))


def _symbols(units: Sequence[Unit], module_name: str, line_count: int) -> list[Symbol]:
    symbols = [Symbol("module", module_name.rsplit(".", 1)[-1], module_name, 1, max(line_count, 1))]
    for unit in units:
        if unit.kind not in DEFINITION_KINDS or unit.part > 1:
            continue
        end = unit.end_line
        if unit.part == 1:  # a split unit: the symbol spans every part
            end = max(u.end_line for u in units if u.qualified_name == unit.qualified_name and u.kind == unit.kind)
        parent = unit.qualified_name.rsplit(".", 1)[0] if "." in unit.qualified_name else module_name
        symbols.append(
            Symbol(unit.kind, unit.name, unit.qualified_name, unit.start_line, end, parent, unit.signature, unit.doc)
        )
    return symbols


class _ScopeMap:
    """The innermost definition around each line, and the innermost class."""

    def __init__(self, symbols: list[Symbol], line_count: int) -> None:
        self.at: list[Symbol | None] = [None] * (line_count + 2)
        self.cls: list[Symbol | None] = [None] * (line_count + 2)
        for symbol in sorted(symbols, key=lambda s: (s.start_line, -s.end_line)):
            if symbol.kind not in SCOPE_KINDS:
                continue
            span = range(symbol.start_line, min(symbol.end_line, line_count + 1) + 1)
            for line in span:
                self.at[line] = symbol
                if symbol.kind == "class":
                    self.cls[line] = symbol

    def scope(self, line: int) -> Symbol | None:
        return self.at[line] if 0 <= line < len(self.at) else None

    def enclosing_class(self, line: int) -> Symbol | None:
        return self.cls[line] if 0 <= line < len(self.cls) else None


def _tag(captures: dict[str, list[Node]]) -> tuple[str, str] | None:
    for capture in captures:
        group, _, kind = capture.partition(".")
        if group in ("reference", "hint", "definition") and kind:
            return group, kind
        if group == "import":
            return group, ""
    return None


def _ref(kind: str, captures: dict[str, list[Node]], scopes: _ScopeMap) -> RefSite:
    name = captures["name"][0]
    line = name.start_point.row + 1
    scope = scopes.scope(line)
    receiver = " ".join(_text(captures["receiver"][0]).split()) if "receiver" in captures else ""
    return RefSite(_text(name), kind, line, name.start_point.column, scope.qualified_name if scope else None, receiver)


def _hint(kind: str, captures: dict[str, list[Node]], scopes: _ScopeMap) -> TypeHint:
    variable = _text(captures["variable"][0])
    type_name = "literal" if kind == "literal" else _text(captures["type"][0]).strip("\"' ")
    line = captures["variable"][0].start_point.row + 1
    if kind == "attribute":
        owner = _text(captures["object"][0]) if "object" in captures else "self"
        cls = scopes.enclosing_class(line)
        return TypeHint(cls.qualified_name if cls else None, f"{owner}.{variable}", type_name, line, kind)
    scope = scopes.scope(line)
    return TypeHint(scope.qualified_name if scope else None, variable, type_name, line, kind)


def _member(kind: str, captures: dict[str, list[Node]], scopes: _ScopeMap, module_name: str) -> Symbol:
    name = _text(captures["name"][0])
    node = captures[f"definition.{kind}"][0]
    line = node.start_point.row + 1
    if kind == "local":  # a function inside a function belongs to the function around it
        outer = scopes.scope(line - 1) if line > 1 else None
        scope = scopes.scope(line)
        owner = scope if scope is not None else outer
        parent = owner.qualified_name if owner else module_name
        signature = " ".join(_text(node).split("\n", 1)[0].split()).rstrip(":")
        return Symbol("function", name, f"{parent}.{name}", line, node.end_point.row + 1, parent, signature)
    owner = scopes.enclosing_class(line) if kind == "field" else None
    parent = owner.qualified_name if owner else module_name
    signature = " ".join(_text(node).split())[:160]
    return Symbol(kind, name, f"{parent}.{name}", line, node.end_point.row + 1, parent, signature)


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", errors="replace")
