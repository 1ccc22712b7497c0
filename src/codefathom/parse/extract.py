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
from codefathom.parse.windows import split_lines, split_unit

__all__ = ["extract_units", "KIND_OF_CAPTURE", "module_path"]

KIND_OF_CAPTURE = {
    "class": "class", "interface": "class", "struct": "class", "enum": "class", "trait": "class",
    "impl": "class", "type": "class", "object": "class", "protocol": "class", "record": "class",
    "union": "class", "extension": "class",
    "function": "function", "method": "method", "constructor": "method",
    "module": "module", "namespace": "module",
}
CONTAINER_KINDS = frozenset({"class", "module"})
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
    tree = parser_for(spec).parse(adapt(data) if adapt is not None else data)
    lines = split_lines(text)
    try:
        query, graph = units_and_graph_query(spec), True
    except QueryError:  # a broken graph query costs the graph facts (below), not the units
        query, graph = units_and_graph_query(spec, graph=False), False
    matches = QueryCursor(query.query).matches(tree.root_node)
    package, definitions = _collect(spec, matches, query.first, data)
    prefix = module_path(spec, path) if spec.qualifier == "path" else package
    units: list[Unit] = []
    for definition in definitions:
        _emit(spec, definition, lines, prefix.split(".") if prefix else [], None, units)
    module_doc = _docstring(tree.root_node) if spec.doc_style == "docstring" else ""
    units.extend(_module_units(spec, path, prefix, definitions, lines, module_doc))
    units.sort(key=lambda u: (u.start_line, -u.end_line, u.part))
    status, error = "ok", None
    if tree.root_node.has_error:
        status, error = "partial", f"syntax error near line {_first_error_line(tree.root_node)}"
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


def _collect(spec: LanguageSpec, matches: list[Match], first: int, data: bytes) -> tuple[str, list[_Definition]]:
    """Definitions from the units query's matches (those of patterns before `first`; the graph
    query's come after), nested by containment; the file's package."""
    package = ""
    found: dict[tuple[int, int], _Definition] = {}
    for index, captures in matches:
        if index >= first:
            continue
        if "package" in captures and not package:
            parts = (_text(n) for n in captures["package"])  # several in one match: `package a` `package b`
            package = ".".join(parts).replace("::", ".").replace("\\", ".")
        definition = _definition(spec, captures, data)
        if definition is not None:
            key = (definition.node.start_byte, definition.node.end_byte)
            found.setdefault(key, definition)
    ordered = sorted(found.values(), key=lambda d: (d.node.start_byte, -d.node.end_byte))
    top: list[_Definition] = []
    stack: list[_Definition] = []
    for definition in ordered:
        while stack and definition.node.start_byte >= stack[-1].node.end_byte:
            stack.pop()
        if not stack:
            top.append(definition)
        elif stack[-1].kind in CONTAINER_KINDS:
            stack[-1].children.append(definition)
        else:
            continue  # defined inside a function: part of that function's unit
        stack.append(definition)
    return package, top


def _definition(spec: LanguageSpec, captures: dict[str, list[Node]], data: bytes) -> _Definition | None:
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
    parts = [p for p in written.replace("::", ".").replace("\\", ".").split(".") if p]
    if not parts:
        return None
    scope = parts[:-1]
    if "receiver" in captures:
        scope = [_text(captures["receiver"][0]).lstrip("*&").strip()]
    outer = node
    while outer.parent is not None and outer.parent.type in spec.wrappers:
        outer = outer.parent
    while outer.prev_sibling is not None and outer.prev_sibling.type in _LEADING_TYPES:
        outer = outer.prev_sibling  # decorators written as siblings before a class member
    body = _body_of(node)
    # The header ends with the token before the body: Python's block starts at its first statement.
    before_body = body.prev_sibling if body is not None else None
    header_end = before_body.end_point.row if before_body is not None else node.start_point.row
    return _Definition(
        kind=kind, name=parts[-1], scope=scope, node=node, start_row=outer.start_point.row,
        end_row=_last_text_row(node, data), header_end_row=max(header_end, node.start_point.row),
        signature=_signature(node, body, data), doc=_doc(spec, outer, node, body),
    )


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


def _last_text_row(node: Node, data: bytes) -> int:
    """The node's last row of code: indentation-based grammars end a node where the next begins, so
    its end may take in blank lines and the comments above the next definition."""
    last = node
    while True:
        kept = [c for c in last.children if "comment" not in c.type]
        if not kept:
            break
        last = kept[-1]
    end = max(last.end_byte, node.start_byte)
    return node.start_point.row + data[node.start_byte : end].rstrip().count(b"\n")


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


def _doc(spec: LanguageSpec, outer: Node, node: Node, body: Node | None) -> str:
    if spec.doc_style == "docstring":
        return _docstring(body)
    comments: list[str] = []
    row = outer.start_point.row
    sibling = outer.prev_sibling
    while sibling is None and outer.parent is not None and outer.parent.start_byte == outer.start_byte:
        outer = outer.parent  # first in a body node: some grammars put the comment before that body
        sibling = outer.prev_sibling
    while sibling is not None and "comment" not in sibling.type and sibling.children:
        sibling = sibling.children[-1]  # indentation grammars end the node before with the comment
    while sibling is not None and "comment" in sibling.type and sibling.end_point.row >= row - 1:
        comments.append(_text(sibling))
        row = sibling.start_point.row
        sibling = sibling.prev_sibling
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


def _clean_comment(raw: str) -> str:
    cleaned = []
    for line in raw.splitlines():
        line = line.strip()
        for marker in ("/**", "/*!", "/*", "*/", "///", "//!", "//", "#", "--"):
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


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", errors="replace")
