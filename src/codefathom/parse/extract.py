"""Turns a tree-sitter parse into units, the same way for every language.

Language knowledge comes from the query's captures (the vocabulary below) and the LanguageSpec:
    @definition.<kind>  the whole definition; <kind> is looked up in KIND_OF_CAPTURE
    @name               its name (may be qualified, `Foo::bar`, the last part is the name)
    @receiver           the type a method belongs to when it is declared outside it (Go)
    @package            the file's package or namespace, prefixed to qualified names
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from tree_sitter import Node, QueryCursor, QueryError

from codefathom.model import FileFacts, ParsedFile, Unit
from codefathom.parse.facts import Match, extract_facts, units_and_graph_query
from codefathom.parse.grammars import parser_for
from codefathom.parse.hooks import PARSER_INPUT
from codefathom.parse.languages import LanguageSpec
from codefathom.parse.navigate import MAX_SYNTAX_DEPTH, Ancestry, deeper_than
from codefathom.parse.windows import split_lines, split_unit
from codefathom.tokens import operator_symbol

__all__ = ["extract_units", "KIND_OF_CAPTURE", "module_path"]

KIND_OF_CAPTURE = {
    "class": "class", "interface": "class", "struct": "class", "enum": "class", "trait": "class",
    "impl": "class", "type": "class", "object": "class", "protocol": "class", "record": "class",
    "union": "class", "extension": "class",
    "function": "function", "method": "method", "constructor": "method",
    "module": "module", "namespace": "module",
}
CONTAINER_KINDS = frozenset({"class", "module"})
# Levels of definitions that become units of their own: a container's unit spans what it holds, so
# n levels of classes, each over MAX_UNIT_LINES, would hold the innermost lines n times over.
MAX_UNIT_NESTING = 10
MAX_SIGNATURE = 240
MAX_DOC = 1200
_LEADING_TYPES = frozenset({"decorator", "attribute_item"})
_BODY_TYPES = frozenset(
    {
        "block", "body", "class_body", "declaration_list", "field_declaration_list", "compound_statement",
        "statement_block", "enum_body", "interface_body", "enum_variant_list", "object_body",
        "template_body", "function_body", "do_group", "body_statement", "compound_literal",
    }
)


@dataclass
class _Definition:
    kind: str
    name: str
    scope: list[str]  # qualifiers written in the name itself (`Foo::bar` -> ["Foo"])
    node: Node
    start_row: int  # includes decorators and export keywords
    end_row: int
    header_end_row: int
    signature: str
    doc: str
    children: list[_Definition] = field(default_factory=list)


def extract_units(spec: LanguageSpec, path: str, text: str) -> ParsedFile:
    data = text.encode("utf-8", errors="surrogatepass")
    if not data.endswith(b"\n"):
        data += b"\n"  # a directive on the last line (`#pragma`, `#endif`) needs its newline
    adapt = PARSER_INPUT.get(spec.name)
    parsed = adapt(data) if adapt is not None else data
    tree = parser_for(spec).parse(parsed)
    root = tree.root_node
    lines = split_lines(text)
    try:
        query, graph = units_and_graph_query(spec), True
    except QueryError:  # a broken graph query costs the graph facts (below), not the units
        query, graph = units_and_graph_query(spec, graph=False), False
    cursor = QueryCursor(query.query)
    cursor.set_max_start_depth(MAX_SYNTAX_DEPTH)
    matches = cursor.matches(root)
    package, definitions, nested_from = _collect(spec, matches, query.first, data, root, _hidden_rows(data, parsed))
    prefix = module_path(spec, path) if spec.qualifier == "path" else package
    units: list[Unit] = []
    for definition in definitions:
        _emit(spec, definition, lines, prefix.split(".") if prefix else [], None, units)
    module_doc = _docstring(tree.root_node) if spec.doc_style == "docstring" else ""
    units.extend(_module_units(spec, path, prefix, definitions, lines, module_doc))
    units.sort(key=lambda u: (u.start_line, -u.end_line, u.part))
    problems = []
    if root.has_error:
        problems.append(f"syntax error near line {_first_error_line(root)}")
    deep = deeper_than(root, MAX_SYNTAX_DEPTH)
    if deep is not None:
        problems.append(
            f"nested deeper than {MAX_SYNTAX_DEPTH} syntax levels at line {deep.start_point.row + 1}: definitions"
            " and references below that depth are not extracted (their text stays in the unit around them)"
        )
    if nested_from is not None:
        problems.append(
            f"definitions nested more than {MAX_UNIT_NESTING} deep (from line {nested_from}) are kept in the"
            " definition around them, not made units of their own"
        )
    status, error = ("partial", "; ".join(problems)) if problems else ("ok", None)
    # The file's own symbol: its module path where the language has one, else the file path.
    module_name = prefix if spec.qualifier == "path" and prefix else path
    warnings: tuple[str, ...] = ()
    try:
        package_name = prefix if spec.qualifier == "package" else ""
        facts = extract_facts(
            spec, tree.root_node, units, module_name, len(lines), package_name, matches if graph else None
        )
    except Exception as exc:  # a graph query or hook bug costs the file's graph facts, not its units
        facts = FileFacts()
        warnings = (f"graph facts not extracted: {type(exc).__name__}: {exc}",)
        error = "; ".join(filter(None, [error, warnings[0]]))
    return ParsedFile(
        path=path, language=spec.name, units=tuple(units), status=status, error=error, warnings=warnings,
        facts=facts,
    )


def module_path(spec: LanguageSpec, path: str) -> str:
    """A module's dotted path from its file path (`src/pkg/mod.py` -> `pkg.mod`)."""
    parts = list(PurePosixPath(path).with_suffix("").parts)
    if len(parts) > 1 and parts[0] in spec.path_roots:
        parts = parts[1:]
    if len(parts) > 1 and parts[-1] in spec.index_names:
        parts = parts[:-1]
    return ".".join(parts)


def _hidden_rows(data: bytes, parsed: bytes) -> frozenset[int]:
    """The rows that hold text only in the file, not in what the parser was given: a hook hid them
    (a C++ attribute on a line of its own, before the declaration it belongs to)."""
    if parsed is data:
        return frozenset()
    return frozenset(
        row for row, (written, seen) in enumerate(zip(data.split(b"\n"), parsed.split(b"\n"), strict=True))
        if not seen.strip() and written.strip()
    )


def _collect(
    spec: LanguageSpec, matches: list[Match], first: int, data: bytes, root: Node, hidden: frozenset[int]
) -> tuple[str, list[_Definition], int | None]:
    """Definitions from the units query's matches (those of patterns before `first`; the graph
    query's come after), nested by containment; the file's package; the first line of a definition
    left in the one around it for lying more than MAX_UNIT_NESTING deep, if any."""
    package = ""
    found: dict[tuple[int, int], _Named] = {}
    for index, captures in matches:
        if index >= first:
            continue
        if "package" in captures and not package:
            parts = (_text(n) for n in captures["package"])  # several in one match: `package a` `package b`
            package = ".".join(parts).replace("::", ".").replace("\\", ".")
        named = _named(captures)
        if named is not None:
            found.setdefault((named.node.start_byte, named.node.end_byte), named)
    ordered = sorted(found.values(), key=lambda d: (d.node.start_byte, -d.node.end_byte))
    # Nesting first, then the costly reading (doc, signature, decorators) of the definitions kept.
    kept: list[tuple[_Named, int | None]] = []  # each with the index of its container in `kept`
    stack: list[tuple[_Named, int]] = []
    nested_from = None
    for named in ordered:
        while stack and named.node.start_byte >= stack[-1][0].node.end_byte:
            stack.pop()
        if stack and stack[-1][0].kind not in CONTAINER_KINDS:
            continue  # defined inside a function: part of that function's unit
        if len(stack) >= MAX_UNIT_NESTING:
            nested_from = nested_from or named.node.start_point.row + 1
            continue  # part of the container's unit, as what is inside it
        kept.append((named, stack[-1][1] if stack else None))
        stack.append((named, len(kept) - 1))
    ancestry = Ancestry(root, (named.node for named, _ in kept))
    last_rows: dict[int, int] = {}
    definitions = [_definition(spec, named, data, ancestry, last_rows, hidden) for named, _ in kept]
    top: list[_Definition] = []
    for definition, (_, container) in zip(definitions, kept, strict=True):
        (top if container is None else definitions[container].children).append(definition)
    return package, top, nested_from


@dataclass
class _Named:
    kind: str
    name: str
    scope: list[str]
    node: Node


def _named(captures: dict[str, list[Node]]) -> _Named | None:
    """The kind, name and node of a match's definition (what nesting needs), if it has them."""
    kind = None
    node = None
    for capture, nodes in captures.items():
        if capture.startswith("definition."):
            kind = KIND_OF_CAPTURE.get(capture.split(".", 1)[1])
            node = nodes[0]
            break
    if kind is None or node is None or "name" not in captures:
        return None
    written = _without_type_arguments(_text(captures["name"][0]))
    if "name.prefix" in captures:  # C#'s `operator +`: a keyword before the name
        written = f"{_text(captures['name.prefix'][0])} {written}"
    written = _operator_named(written)
    parts = [p for p in written.replace("::", ".").replace("\\", ".").split(".") if p]
    if not parts:
        return None
    scope = parts[:-1]
    if "receiver" in captures:
        scope = [_text(captures["receiver"][0]).lstrip("*&").strip()]
    return _Named(kind, parts[-1], scope, node)


def _definition(
    spec: LanguageSpec, named: _Named, data: bytes, ancestry: Ancestry, last_rows: dict[int, int],
    hidden: frozenset[int],
) -> _Definition:
    node = named.node
    outer = node
    while (parent := ancestry.parent(outer)) is not None and parent.type in spec.wrappers:
        outer = parent
    while (before := ancestry.prev_sibling(outer)) is not None and before.type in _LEADING_TYPES:
        outer = before  # decorators written as siblings before a class member
    body = _body_of(node)
    # The header ends with the token before the body: Python's block starts at its first statement.
    before_body = _child_before(node, body) if body is not None else None
    header_end = before_body.end_point.row if before_body is not None else node.start_point.row
    start_row = outer.start_point.row
    while start_row - 1 in hidden:
        start_row -= 1  # the definition's own attribute, written on the lines before it
    return _Definition(
        kind=named.kind, name=named.name, scope=named.scope, node=node, start_row=start_row,
        end_row=_last_text_row(node, data, last_rows), header_end_row=max(header_end, node.start_point.row),
        signature=_signature(node, body, data), doc=_doc(spec, outer, node, body, ancestry, start_row),
    )


def _child_before(node: Node, child: Node) -> Node | None:
    previous = None
    for current in node.children:
        if current.id == child.id:
            return previous
        previous = current
    return None


def _emit(
    spec: LanguageSpec, d: _Definition, lines: list[str], qualifier: list[str], parent: str | None,
    out: list[Unit], in_class: bool = False,
) -> None:
    """Units for a definition and, when it is a container, for what it contains."""
    kind = d.kind
    if kind == "function" and (in_class or d.scope):
        kind = "method"
    if d.scope:
        parent = d.scope[-1]
    path = qualifier + d.scope + [d.name]
    content = None
    if d.children:
        content = _collapse_children(d, lines)
    unit = Unit(
        kind=kind, name=d.name, qualified_name=".".join(path), start_line=d.start_row + 1,
        end_line=d.end_row + 1, content="", language=spec.name, parent=parent,
        signature=d.signature, doc=d.doc,
    )
    out.extend(split_unit(unit, lines, content))
    for child in d.children:
        _emit(spec, child, lines, path, d.name, out, in_class=d.kind == "class")


def _collapse_children(d: _Definition, lines: list[str]) -> str:
    """A container's own lines, each contained definition shortened to its header."""
    hidden: set[int] = set()
    for child in d.children:
        hidden.update(range(child.header_end_row + 1, child.end_row + 1))
    return "\n".join(lines[row] for row in range(d.start_row, d.end_row + 1) if row not in hidden)


def _module_units(
    spec: LanguageSpec, path: str, prefix: str, definitions: list[_Definition], lines: list[str], doc: str
) -> list[Unit]:
    """Top-level code outside every definition (imports, constants, scripts), so none is lost."""
    covered = bytearray(len(lines))
    for d in definitions:
        covered[d.start_row : d.end_row + 1] = b"\x01" * (d.end_row + 1 - d.start_row)
    rows = [r for r in range(len(lines)) if not covered[r] and lines[r].strip()]
    if not rows:
        return []
    name = module_path(spec, path) if spec.qualifier == "path" else PurePosixPath(path).stem
    qualified = prefix or name
    units = []
    groups = [rows[i : i + 120] for i in range(0, len(rows), 120)]
    for number, group in enumerate(groups, start=1 if len(groups) > 1 else 0):
        units.append(
            Unit(
                kind="module", name=name.rsplit(".", 1)[-1], qualified_name=qualified,
                start_line=group[0] + 1, end_line=group[-1] + 1,
                content="\n".join(lines[r] for r in group)[:12_000], language=spec.name, part=number,
                doc=doc if number <= 1 else "",
            )
        )
    return units


def _last_text_row(node: Node, data: bytes, known: dict[int, int]) -> int:
    """The node's last row of code: indentation-based grammars end a node where the next begins, so
    its end may take in blank lines and the comments above the next definition.

    `known` keeps the answer for each node passed on the way down, so nested definitions, whose
    last children are the same chain, walk it once between them."""
    chain = []
    last = node
    while (found := known.get(last.id)) is None:
        chain.append(last)
        # From the end: the last child is rarely a comment, so one type is read, not every child's.
        child = next((c for c in reversed(last.children) if "comment" not in c.type), None)
        if child is None:
            found = _row_before_space(last, data)
            break
        last = child
    for passed in chain:
        known[passed.id] = found
    return max(found, node.start_point.row)


_SPACE = frozenset(b" \t\n\r\x0b\x0c")


def _row_before_space(leaf: Node, data: bytes) -> int:
    """The row of the leaf's last character that is not white space (its start row if it has none)."""
    end = leaf.end_byte
    stop = end
    while stop > leaf.start_byte and data[stop - 1] in _SPACE:
        stop -= 1
    if stop == leaf.start_byte:
        return leaf.start_point.row
    return leaf.end_point.row - data.count(b"\n", stop, end)


def _body_of(node: Node) -> Node | None:
    body = node.child_by_field_name("body")
    if body is not None:
        return body
    for child in reversed(node.named_children):
        if child.type in _BODY_TYPES or child.type.endswith("_body"):
            return child
    return None


def _signature(node: Node, body: Node | None, data: bytes) -> str:
    end = body.start_byte if body is not None else node.end_byte
    for child in node.children[1:]:  # a comment between the header and its body is not header
        if child.start_byte >= end:
            break
        if "comment" in child.type:
            end = child.start_byte
            break
    raw = data[node.start_byte : end].decode("utf-8", errors="replace")
    if body is None:
        raw = raw.split("\n", 1)[0]
    text = " ".join(raw.split()).rstrip("{:=; ").rstrip()
    return text[:MAX_SIGNATURE]


def _doc(spec: LanguageSpec, outer: Node, node: Node, body: Node | None, ancestry: Ancestry, row: int) -> str:
    """The definition's docstring, or the comments right above `row`, where it starts as written."""
    if spec.doc_style == "docstring":
        return _docstring(body)
    comments: list[str] = []
    sibling = ancestry.prev_sibling(outer)
    while sibling is None and (parent := ancestry.parent(outer)) is not None and parent.start_byte == outer.start_byte:
        outer = parent  # first in a body node: some grammars put the comment before that body
        sibling = ancestry.prev_sibling(outer)
    while sibling is not None and "comment" not in sibling.type and sibling.children:
        # Indentation grammars end the node before with the comment.
        sibling = ancestry.last_child(sibling)
    while sibling is not None and "comment" in sibling.type and sibling.end_point.row >= row - 1:
        comments.append(_text(sibling))
        row = sibling.start_point.row
        sibling = ancestry.prev_sibling(sibling)
    return _clean_comment("\n".join(reversed(comments)))


def _docstring(body: Node | None) -> str:
    if body is None or not body.named_children:
        return ""
    first = body.named_children[0]
    if first.type == "expression_statement" and first.named_children:
        first = first.named_children[0]
    if first.type != "string":
        return ""
    parts = [_text(c) for c in first.named_children if c.type == "string_content"]
    raw = "".join(parts) if parts else _text(first).strip("\"'")
    return _dedent(raw)[:MAX_DOC]


_COMMENT_MARKERS = ("/**", "/*!", "/*", "*/", "///", "//!", "//", "#", "--")  # the first that starts a line goes
# By first character, in that order: a line is compared with those it can start with (most with none).
_MARKERS_BY_START = {
    start: tuple(marker for marker in _COMMENT_MARKERS if marker[0] == start) for start in "/*#-"
}


def _clean_comment(raw: str) -> str:
    cleaned = []
    for line in raw.splitlines():
        line = line.strip()
        for marker in _MARKERS_BY_START.get(line[:1], ()):
            if line.startswith(marker):
                line = line[len(marker) :]
                break
        if line.endswith("*/"):
            line = line[:-2]
        cleaned.append(line.lstrip("*").strip())
    return "\n".join(cleaned).strip()[:MAX_DOC]


def _dedent(text: str) -> str:
    return "\n".join(line.strip() for line in text.strip().splitlines())


def _first_error_line(root: Node) -> int:
    cursor = [root]
    while cursor:
        node = cursor.pop()
        if node.is_error or node.is_missing:
            return node.start_point.row + 1
        if node.has_error:
            cursor.extend(reversed(node.children))
    return root.start_point.row + 1


def _without_type_arguments(name: str) -> str:
    """`Stack<T>::pop` -> `Stack::pop`: type arguments in a qualifier are not part of the name."""
    head, sep, last = name.rpartition("::")
    while "<" in head:
        stripped = re.sub(r"<[^<>]*>", "", head)
        if stripped == head:
            break
        head = stripped
    return head + sep + last


def _operator_named(name: str) -> str:
    """A C++ operator named as it is asked for: by its symbol, however it is spaced (`operator <<` ->
    `operator<<`), a conversion by its type alone (`operator bool() const` -> `operator bool`)."""
    head, found, rest = name.rpartition("operator")
    if not found or (head and not head.endswith("::")):
        return name
    symbol = operator_symbol("operator" + rest.rstrip())
    if symbol is not None:
        return f"{head}operator{symbol}"
    conversion = _CONVERSION.match(rest)
    return f"{head}operator {' '.join(conversion.group(1).split())}" if conversion else name


# After `operator` and no symbol (`tokens.operator_symbol`): a type up to its parameters (a conversion,
# `operator new`, `operator delete[]`).
_CONVERSION = re.compile(r"\s+([^()]+?)\s*(?:\(.*)?$", re.DOTALL)


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", errors="replace")
