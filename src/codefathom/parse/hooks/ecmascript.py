"""JavaScript, TypeScript and TSX imports: ES modules, re-exports and CommonJS `require`.

Each name an import binds becomes an ImportSite whose module is the specifier as written
(`./util`, `../lib/mod`, `react`), whose name is the member imported, and whose alias is the
local name:

    import D from "./m"                 name "default", alias D
    import * as ns from "./m"           name None (the module itself), alias ns
    import { a, b as c } from "./m"     names a, b; aliases a, c
    import "./m"                        nothing is bound: no site
    export { a as b } from "./m"        name a, alias b (a re-export: what `b` means in this file's module)
    export * from "./m"                 name "*", alias "*"
    export * as ns from "./m"           name None, alias ns
    const x = require("./m")            name None, alias x
    const { a, b: c } = require("./m")  names a, b; aliases a, c
"""

from __future__ import annotations

import re

from tree_sitter import Node

from codefathom.model import ImportSite
from codefathom.parse.hooks.common import node_text as _text

__all__ = ["parse_import", "callback_site", "without_variance", "typescript_parser_input"]

_PARAMETERS = ("required_parameter", "optional_parameter")
_CHOOSING = ("ternary_expression", "parenthesized_expression")


def parse_import(node: Node) -> list[ImportSite]:
    line = node.start_point.row + 1
    if node.type in ("lexical_declaration", "variable_declaration"):
        return _require(node, line)
    source = node.child_by_field_name("source")
    if source is None and node.type == "export_statement":  # `export { try_ as try }`: this file's own name
        clause = next((c for c in node.named_children if c.type == "export_clause"), None)
        sites = _specifiers(clause, "export_specifier", "", line) if clause is not None else []
        return [site for site in sites if site.alias != site.name]
    module = _string(source)
    if module is None:
        return []
    if node.type == "export_statement":
        return _reexport(node, module, line)
    sites = []
    for clause in (c for c in node.named_children if c.type == "import_clause"):
        for child in clause.named_children:
            if child.type == "identifier":
                sites.append(ImportSite(module, "default", _text(child), line))
            elif child.type == "namespace_import":
                alias = next((c for c in child.named_children if c.type == "identifier"), None)
                if alias is not None:
                    sites.append(ImportSite(module, None, _text(alias), line))
            elif child.type == "named_imports":
                sites.extend(_specifiers(child, "import_specifier", module, line))
    return sites


def _reexport(node: Node, module: str, line: int) -> list[ImportSite]:
    sites = []
    for child in node.named_children:
        if child.type == "export_clause":
            sites.extend(_specifiers(child, "export_specifier", module, line))
        elif child.type == "namespace_export":
            alias = next((c for c in child.named_children if c.type in ("identifier", "string")), None)
            if alias is not None:
                sites.append(ImportSite(module, None, _text(alias).strip("\"'"), line))
    if not sites and any(c.type == "*" for c in node.children):
        sites.append(ImportSite(module, "*", "*", line))
    return sites


def _specifiers(node: Node, kind: str, module: str, line: int) -> list[ImportSite]:
    sites = []
    for spec in (c for c in node.named_children if c.type == kind):
        name = spec.child_by_field_name("name")
        alias = spec.child_by_field_name("alias")
        if name is None:
            continue
        written = _text(name).strip("\"'")
        sites.append(ImportSite(module, written, _text(alias).strip("\"'") if alias is not None else written, line))
    return sites


def _require(node: Node, line: int) -> list[ImportSite]:
    sites = []
    for declarator in (c for c in node.named_children if c.type == "variable_declarator"):
        value = declarator.child_by_field_name("value")
        target = declarator.child_by_field_name("name")
        if value is None or target is None or value.type != "call_expression":
            continue
        function = value.child_by_field_name("function")
        arguments = value.child_by_field_name("arguments")
        if function is None or _text(function) != "require" or arguments is None:
            continue
        module = _string(arguments.named_children[0]) if arguments.named_children else None
        if module is None:
            continue
        if target.type == "identifier":
            sites.append(ImportSite(module, None, _text(target), line))
        elif target.type == "object_pattern":
            for child in target.named_children:
                if child.type == "shorthand_property_identifier_pattern":
                    sites.append(ImportSite(module, _text(child), _text(child), line))
                elif child.type == "pair_pattern":
                    key, value_node = child.child_by_field_name("key"), child.child_by_field_name("value")
                    if key is not None and value_node is not None and value_node.type == "identifier":
                        sites.append(ImportSite(module, _text(key), _text(value_node), line))
    return sites


def _string(node: Node | None) -> str | None:
    if node is None or node.type != "string":
        return None
    return "".join(_text(c) for c in node.named_children if c.type == "string_fragment")


def callback_site(variable: Node, callee: Node) -> str | None:
    """`callee#argument#parameter#last line` for an untyped parameter of a function passed to a
    call (`operate((source, subscriber) => ...)`: `operate#0#1#9`), which the callee's signature
    types; the function's last line bounds where the parameter is seen (its hint is written in the
    named function around it, as other arrows' parameters of the same name may be). None when the
    positions cannot be counted (a spread argument)."""
    holder = variable.parent
    if holder is None:
        return None
    if holder.type in _PARAMETERS:  # `(a, b) => ...`, `function (a, b) { ... }`
        parameters = holder.parent
        function = parameters.parent if parameters is not None else None
        siblings = [c for c in parameters.named_children if c.type in _PARAMETERS] if parameters is not None else []
        position = next((i for i, c in enumerate(siblings) if c == holder), None)
    else:  # `a => ...`
        function, position = holder, 0
    passed = function  # the argument: the function, or a conditional choosing it (`s ? (x) => ... : g`)
    while passed is not None and passed.parent is not None and passed.parent.type in _CHOOSING:
        passed = passed.parent
    arguments = passed.parent if passed is not None else None
    if function is None or arguments is None or arguments.type != "arguments" or position is None:
        return None
    written = [c for c in arguments.named_children if c.type != "comment"]
    if any(c.type == "spread_element" for c in written):
        return None
    argument = next((i for i, c in enumerate(written) if c == passed), None)
    if argument is None:
        return None
    callee_text = " ".join(_text(callee).split()).replace("?.", ".").replace("!.", ".")
    return f"{callee_text}#{argument}#{position}#{function.end_point.row + 1}"


# A type parameter list that may carry variance annotations: `interface Chunk<out A>`, `class
# Queue<in out T>`, `type Fn<in A, out B> = ...` (TypeScript 4.7).
_GENERIC_HEADER = re.compile(rb"\b(?:interface|class|type)\s+[A-Za-z_$][\w$]*\s*<")
_VARIANCE = re.compile(rb"\s*((?:in\s+out|in|out)\s+)(?=[A-Za-z_$])")
_MAX_PARAMETERS = 2000  # bytes of one type parameter list looked through


def without_variance(data: bytes) -> bytes:
    """`data` with the variance annotations of type parameters blanked out, byte for byte, for a
    grammar that does not know them (tree-sitter-typescript 0.23 fails on `<out A>` and loses the
    rest of the declaration); lines, columns and every other byte stay as written."""
    if b"in " not in data and b"out " not in data:
        return data
    masked: bytearray | None = None
    for header in _GENERIC_HEADER.finditer(data):
        for start, end in _variance_spans(data, header.end()):
            masked = masked if masked is not None else bytearray(data)
            masked[start:end] = b" " * (end - start)
    return bytes(masked) if masked is not None else data


def typescript_parser_input(data: bytes) -> bytes:
    """What tree-sitter-typescript 0.23 is given for a .ts file: variance annotations blanked out,
    and a `;` in the indentation before a generic call signature that starts a line after a member
    written without one (`(n: number): A` then `<A>(self: A): A` in an object type is read as one
    comparison otherwise, and the rest of the file goes with it). Same length, same lines."""
    data = without_variance(data)
    masked: bytearray | None = None
    for line in _GENERIC_MEMBER.finditer(data):
        if _ends_a_type(data, line.start()):
            masked = masked if masked is not None else bytearray(data)
            masked[line.start(1)] = ord(";")
    return bytes(masked) if masked is not None else data


_GENERIC_MEMBER = re.compile(rb"\n([ \t])[ \t]*<\s*[A-Za-z_$]")
_TYPE_END = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$>])}")


def _ends_a_type(data: bytes, end: int) -> bool:
    """Whether the code before `end` (comments skipped) ends with what ends a type: a name, `>`,
    `]` or `)`, not `(`, `,` or an operator that continues an expression onto the next line."""
    while True:
        while end > 0 and data[end - 1] in b" \t\r\n":
            end -= 1
        if data.endswith(b"*/", 0, end):
            end = data.rfind(b"/*", 0, end - 2)
            if end < 0:
                return False
            continue
        line_start = data.rfind(b"\n", 0, end) + 1
        if data[line_start:end].lstrip().startswith(b"//"):
            end = line_start
            continue
        if data.endswith(b"=>", 0, end):  # an arrow whose body is a generic arrow on the next line
            return False
        return end > 0 and data[end - 1] in _TYPE_END


def _variance_spans(data: bytes, position: int) -> list[tuple[int, int]]:
    """Where `in`/`out` modifiers are in the type parameter list whose `<` ends before `position`
    (comments in the list skipped: `/** @ts-ignore */ out Shape`)."""
    spans, depth, expecting = [], 1, True  # expecting: a parameter starts here
    index, stop = position, min(len(data), position + _MAX_PARAMETERS)
    while index < stop:
        comment = _COMMENT.match(data, index)
        if comment is not None and comment.end() > index:
            index = comment.end()
            continue
        if expecting:
            found = _VARIANCE.match(data, index)
            if found is not None:
                spans.append(found.span(1))
            expecting = found is None and data[index : index + 1].isspace()
        char = data[index : index + 1]
        if char == b"<":
            depth += 1
        elif char == b">" and data[index - 1 : index] != b"=":
            depth -= 1
            if depth == 0:
                return spans
        elif char == b"," and depth == 1:
            expecting = True
        index += 1
    return []  # no end found: leave it as written


_COMMENT = re.compile(rb"/\*.*?\*/|//[^\n]*", re.DOTALL)
