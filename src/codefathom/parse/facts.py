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
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from functools import cache
from importlib import resources

from tree_sitter import Node, Query, QueryCursor

from codefathom.model import LOCAL_HINT_KINDS, FileFacts, ImportSite, RefSite, Symbol, TypeHint, Unit
from codefathom.parse.grammars import grammar_for
from codefathom.parse.hooks import IMPORT_PARSERS, NAMES, REWRITERS, Rewriter
from codefathom.parse.languages import LanguageSpec

__all__ = ["extract_facts", "graph_query_text", "has_graph_query"]

DEFINITION_KINDS = frozenset({"class", "function", "method"})
DEF_NODE_TYPES = frozenset({"function_definition", "class_definition"})
# Java, Kotlin, Rust, C# and C/C++ definitions around a field (`@definition.field`): a class-like body owns it, a
# function body makes it a local.
OTHER_FUNCTION_NODES = frozenset(
    {"method_declaration", "constructor_declaration", "lambda_expression", "function_item", "closure_expression",
     "local_function_statement", "accessor_declaration", "function_declaration", "secondary_constructor",
     "anonymous_initializer", "getter", "setter", "lambda_literal"}
)
OTHER_CLASS_NODES = frozenset(
    {"class_declaration", "interface_declaration", "enum_declaration", "record_declaration",
     "annotation_type_declaration", "enum_item", "struct_item", "union_item", "trait_item", "impl_item",
     "struct_declaration", "struct_specifier", "union_specifier", "class_specifier", "object_declaration",
     "companion_object", "object_literal"}
)
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
# Languages whose namespace blocks scope what is written in them (not symbols: units of kind module).
NAMESPACE_LANGUAGES = frozenset({"cpp"})
# Nodes a namespace block may sit in: `extern "C" {`, `#ifdef` blocks.
_NAMESPACE_HOLDERS = frozenset(
    {"linkage_specification", "declaration_list", "preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif"}
)
# C and C++: top-level names are not qualified by their file (a macro `MAX` is `MAX`), and a
# prototype's parameters (`int f(int n);`, an in-class `void m(Foo x);`) bind nothing.
C_FAMILY = frozenset({"c", "cpp"})
_PROTOTYPE_NODES = frozenset({"declaration", "field_declaration", "type_definition"})
_ARRAY_TYPE = re.compile(r"([A-Za-z_$][\w.$]*)\[\]")


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
def _graph_query(spec: LanguageSpec) -> Query | None:
    text = graph_query_text(spec)
    return None if text is None else Query(grammar_for(spec), text)


def extract_facts(
    spec: LanguageSpec, root: Node, units: Sequence[Unit], module_name: str, line_count: int, package: str = ""
) -> FileFacts:
    """`package`: the file's package where its top-level definitions are qualified by one (a Kotlin
    top-level property is `<package>.<name>`, like its functions), else ""."""
    query = _graph_query(spec)
    if query is None:
        return FileFacts(symbols=tuple(_symbols(units, module_name, line_count)))
    matches = []
    for _, captures in QueryCursor(query).matches(root):
        tag = _tag(captures)
        if tag is not None:
            matches.append((tag, captures))
    classes = {
        c["definition.class"][0].start_point.row + 1 for (group, kind), c in matches
        if group == "definition" and kind == "class"
    }
    symbols = _symbols(units, module_name, line_count, classes)
    # Classes and functions inside functions are scopes too: what they bind is theirs alone.
    namespaces = _namespace_spans(root) if spec.name in NAMESPACE_LANGUAGES else []
    scopes = _ScopeMap(symbols, line_count, namespaces)
    local = _local_definitions(
        [c for (group, kind), c in matches if group == "definition" and kind == "local" and "name" in c],
        scopes, module_name,
    )
    if local:
        symbols.extend(local)
        scopes = _ScopeMap(symbols, line_count, namespaces)
    refs: dict[tuple[int, int], RefSite] = {}  # by position: one name written once is one reference
    imports: list[ImportSite] = []
    hints: list[TypeHint] = []
    extra: list[Symbol] = []
    bindings: list[tuple[str | None, str, int, bool]] = []  # scope, variable, line, assigned None
    blocks: set[tuple[int, int]] = set()  # (first, last line) of `@definition.block` nodes
    parse_import = IMPORT_PARSERS.get(spec.name)
    ecmascript = spec.name in ECMASCRIPT_LANGUAGES
    rewrite = REWRITERS.get(spec.name)
    plain = NAMES.get(spec.name, _same)
    c_family = spec.name in C_FAMILY
    for (group, kind), captures in matches:
        if c_family and _prototype_parameter(group, kind, captures):
            continue
        if group == "reference" and kind == "super" and "name" in captures:
            ref = _super(captures, scopes)
            if ref is not None and (ref.line, ref.column) not in refs:
                refs[(ref.line, ref.column)] = ref
        elif group == "reference" and "name" in captures:
            ref = _ref(kind, captures, scopes, ecmascript, rewrite)
            key = (ref.line, ref.column)
            if key not in refs or _REF_PRIORITY.get(kind, 9) < _REF_PRIORITY.get(refs[key].kind, 9) or (
                kind == refs[key].kind and ref.receiver and not refs[key].receiver  # `Outer.Inner`: Inner via Outer
            ):
                refs[key] = ref
        elif group == "import" and parse_import is not None:
            imports.extend(parse_import(captures["import"][0]))
        elif group == "hint" and "variable" in captures and "type" in captures:
            hints.append(_hint(kind, captures, scopes, ecmascript, rewrite, plain))
        elif group == "binding" and "variable" in captures:
            bindings.extend(_bindings(captures["binding"][0], captures["variable"][0], scopes))
        elif group == "definition" and kind == "block":
            node = captures["definition.block"][0]
            blocks.add((node.start_point.row + 1, node.end_point.row + 1))
        elif group == "definition" and kind not in ("local", "class") and "name" in captures:
            bare = c_family or ecmascript
            member = _member(kind, captures, scopes, module_name, spec.name, plain, bare=bare, package=package)
            if member is not None:
                extra.append(member)
    hints.extend(_untyped(bindings, hints))
    kept = _without_local_reads(refs.values(), hints, symbols)
    ordered = tuple(sorted((_as_call(r) for r in kept), key=lambda r: (r.line, r.column)))
    if blocks:
        symbols = [s for s in symbols if not (s.kind == "class" and _is_block(s, blocks))]
    return FileFacts(tuple(symbols + extra), ordered, tuple(imports), tuple(hints))


def _is_block(symbol: Symbol, blocks: set[tuple[int, int]]) -> bool:
    """Whether a class symbol is a block's unit (which starts at the block, or at an attribute above it)."""
    return any(end == symbol.end_line and symbol.start_line <= start for start, end in blocks)


def _without_local_reads(refs: Iterable[RefSite], hints: list[TypeHint], symbols: list[Symbol]) -> list[RefSite]:
    """The references minus reads of a function's own parameters and variables: they can only
    mean those locals, answer no graph question, and are a third of all references."""
    by_name = {s.qualified_name: s for s in symbols}
    bound: set[tuple[str | None, str]] = {
        (h.scope, h.variable) for h in hints if h.kind in LOCAL_HINT_KINDS and h.scope is not None
    }
    defined = {(s.parent, s.name) for s in symbols}
    top = {h.variable for h in hints if h.kind in LOCAL_HINT_KINDS and h.scope is None}
    kept = []
    for ref in refs:
        bare = ref.kind in LOCAL_READ_KINDS and not ref.receiver
        if bare and _is_local(ref.scope, ref.name, by_name, bound, defined):
            continue
        if ref.kind == "maybe_call" and ref.scope is None and ref.name in top:
            continue  # a variable of top-level code (a spec's blocks)
        kept.append(ref)
    return kept


def _as_call(ref: RefSite) -> RefSite:
    """A bare name no local binds is a call (Ruby's `save` is `self.save()`)."""
    return replace(ref, kind="call") if ref.kind == "maybe_call" else ref


def _same(text: str) -> str:
    return text


def _super(captures: dict[str, list[Node]], scopes: _ScopeMap) -> RefSite | None:
    """A bare `super`: a call of the enclosing method's own name, through the base class."""
    node = captures["name"][0]
    line = node.start_point.row + 1
    scope = scopes.scope(line)
    if scope is None or scope.kind != "method":
        return None
    return RefSite(scope.name, "call", line, node.start_point.column, scope.qualified_name, "super")


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
    for unit in units:
        class_like = unit.kind == "module" and unit.start_line in classes and unit.qualified_name != module_name
        if (unit.kind not in DEFINITION_KINDS and not class_like) or unit.part > 1:
            continue
        end = unit.end_line
        if unit.part == 1:  # a split unit: the symbol spans every part
            end = max(u.end_line for u in units if u.qualified_name == unit.qualified_name and u.kind == unit.kind)
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
        for start, end, qualified in namespaces:  # outermost first: inner blocks overwrite
            stand_in = Symbol("namespace", qualified.rsplit(".", 1)[-1], qualified, start, end)
            for line in range(start, min(end, line_count + 1) + 1):
                self.at[line] = stand_in
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
        if group in ("import", "binding"):
            return group, ""
    return None


def _ref(
    kind: str, captures: dict[str, list[Node]], scopes: _ScopeMap, ecmascript: bool = False,
    rewrite: Rewriter | None = None,
) -> RefSite:
    name = captures["name"][0]
    line = name.start_point.row + 1
    scope = scopes.scope(line)
    receiver = " ".join(_text(captures["receiver"][0]).split()) if "receiver" in captures else ""
    if ecmascript and receiver:
        receiver = _ecmascript_expression(receiver)
    elif rewrite is not None and receiver:
        receiver = rewrite(captures["receiver"][0], receiver, False)
    return RefSite(_text(name), kind, line, name.start_point.column, scope.qualified_name if scope else None, receiver)


def _hint(
    kind: str, captures: dict[str, list[Node]], scopes: _ScopeMap, ecmascript: bool = False,
    rewrite: Rewriter | None = None, plain: Callable[[str], str] = _same,
) -> TypeHint:
    variable = plain(_text(captures["variable"][0]))
    if kind == "attribute_literal":
        kind = "attribute"
        type_name = "literal"
    else:
        type_node = captures["type"][0]
        type_name = " ".join(_text(type_node).split())
        calls = ("call", "call_expression")
        function = type_node.child_by_field_name("function") if type_node.type in calls else None
        if function is not None and len(type_name) > MAX_CALL_TEXT:  # `x = f(<long arguments>)`: f()
            type_name = " ".join(_text(function).split()) + "()"
        constructor = type_node.child_by_field_name("constructor") if type_node.type == "new_expression" else None
        if constructor is not None:  # `new Foo(...)`: a call of the class, `Foo()`
            type_name = " ".join(_text(constructor).split()) + "()"
        elif ecmascript and kind in ("assign", "alias", "attribute", "attribute_alias"):
            type_name = _ecmascript_expression(type_name)
        elif ecmascript:
            type_name = _ecmascript_type(type_name)
        elif rewrite is not None:
            type_name = rewrite(
                type_node, type_name, kind not in ("assign", "alias", "element", "attribute", "attribute_alias")
            )
        if kind == "literal":
            type_name = "literal"
        elif kind not in ("element", "enter", "caught", "assign", "attribute"):  # a string annotation: `x: "Foo"`
            type_name = type_name.strip("\"' ")
    line = captures["variable"][0].start_point.row + 1
    if kind.startswith("attribute"):  # kept in the method it is written in, where `T` and `y` mean something
        owner = _text(captures["object"][0]) if "object" in captures else "this" if ecmascript else "self"
        scope = scopes.scope(line) if scopes.enclosing_class(line) is not None else None
        return TypeHint(scope.qualified_name if scope else None, f"{owner}.{variable}", type_name, line, kind)
    scope = scopes.scope(line)
    return TypeHint(scope.qualified_name if scope else None, variable, type_name, line, kind)


def _ecmascript_expression(text: str) -> str:
    """A JavaScript expression as the binder reads expressions: `new Foo().bar` -> `Foo().bar`,
    `a?.b!.c` -> `a.b.c`."""
    text = _NEW.sub("", text).replace("?.", ".").replace("!.", ".")
    return text


def _ecmascript_type(text: str) -> str:
    """A TypeScript type as the binder reads types: `Array<Foo>` -> `Array[Foo]`, `Foo[]` ->
    `Array[Foo]`; function types are left as they are (the binder reads nothing of them)."""
    if "=>" in text:
        return text
    return _ARRAY_TYPE.sub(r"Array[\1]", text.replace("<", "[").replace(">", "]"))


def _bindings(statement: Node, target: Node, scopes: _ScopeMap) -> list[tuple[str | None, str, int, bool]]:
    """(scope, variable, line, assigned None) of each name a binding statement binds; `obj.x`
    targets are recorded as `obj.x` in the enclosing class."""
    right = statement.child_by_field_name("right") if statement.type == "assignment" else None
    is_none = right is not None and right.type == "none"
    found: list[tuple[str | None, str, int, bool]] = []
    for node in _target_names(target):
        line = node.start_point.row + 1
        if node.type == "attribute":
            obj, attr = node.child_by_field_name("object"), node.child_by_field_name("attribute")
            if obj is None or attr is None or obj.type != "identifier":
                continue
            method = scopes.scope(line)
            if method is not None and scopes.enclosing_class(line) is not None:
                found.append((method.qualified_name, f"{_text(obj)}.{_text(attr)}", line, is_none))
            continue
        scope = scopes.scope(line)
        found.append((scope.qualified_name if scope else None, _text(node), line, is_none))
    return found


def _target_names(node: Node) -> list[Node]:
    """The identifiers (and `obj.attr` nodes) a target binds."""
    # (a type parameter too; PHP's `$x` is a `name` in a `variable_name`)
    if node.type in ("identifier", "attribute", "type_identifier", "implicit_parameter", "name"):
        return [node]
    if node.type in PARAMETER_LISTS:
        names = []
        for child in node.named_children:
            if child.type in ("default_parameter", "typed_default_parameter"):
                name = child.child_by_field_name("name")
                names.extend([name] if name is not None and name.type == "identifier" else [])
            elif child.type == "typed_parameter":
                names.extend(_target_names(child.named_children[0]) if child.named_children else [])
            elif child.type in ("identifier", "list_splat_pattern", "dictionary_splat_pattern"):
                names.extend(_target_names(child) if child.type != "identifier" else [child])
        return names
    if node.type in TARGET_CONTAINERS or node.type == "dictionary_splat_pattern":
        return [name for child in node.named_children for name in _target_names(child)]
    return []


def _untyped(bindings: list[tuple[str | None, str, int, bool]], hints: list[TypeHint]) -> list[TypeHint]:
    """A `local` (or `attribute`) hint for each variable bound without type evidence, once per
    scope and variable: "?" when its value is unknown, "None" when it was assigned None."""
    typed = {(h.scope, h.variable, h.line) for h in hints if h.kind != "returns"}
    seen: set[tuple[str | None, str, str]] = set()
    found = []
    for scope, variable, line, is_none in sorted(bindings, key=lambda binding: binding[2]):
        if (scope, variable, line) in typed:
            continue
        type_name = "None" if is_none else "?"
        if (scope, variable, type_name) in seen:
            continue
        seen.add((scope, variable, type_name))
        kind = "attribute" if "." in variable else "local"
        found.append(TypeHint(scope, variable, type_name, line, kind))
    return found


def _local_definitions(
    matches: list[dict[str, list[Node]]], units: _ScopeMap, module_name: str
) -> list[Symbol]:
    """Symbols of the classes and functions defined inside functions (units stop at a function),
    each named inside the definition around it: `mod.outer.inner`, `mod.test.Local.method`."""
    nodes = sorted(
        {(c["definition.local"][0].start_byte, _text(c["name"][0])): c["definition.local"][0] for c in matches}.items()
    )
    stack: list[tuple[Node, Symbol]] = []
    found = []
    for (_, name), node in nodes:
        if not _inside_function(node):
            continue  # a unit already
        while stack and stack[-1][0].end_byte <= node.start_byte:
            stack.pop()
        line = node.start_point.row + 1
        if stack:
            parent = stack[-1][1].qualified_name
        else:
            owner = units.scope(line)
            parent = owner.qualified_name if owner else module_name
        around = _nearest_definition(node)
        kind = "class" if node.type == "class_definition" else "function"
        if kind == "function" and around is not None and around.type == "class_definition":
            kind = "method"
        signature = " ".join(_text(node).split("\n", 1)[0].split()).rstrip(":")
        symbol = Symbol(kind, name, f"{parent}.{name}", line, node.end_point.row + 1, parent, signature)
        found.append(symbol)
        stack.append((node, symbol))
    return found


def _member(
    kind: str, captures: dict[str, list[Node]], scopes: _ScopeMap, module_name: str, language: str = "",
    plain: Callable[[str], str] = _same, bare: bool = False, package: str = "",
) -> Symbol | None:
    """A module constant (a package's, where the file's top level is qualified by its package) or a
    class field. `bare`: the language's top-level names are not qualified by their file (C, C++: a
    macro `MAX` is `MAX`, in a namespace `ns.MAX`; JavaScript and TypeScript, like their functions)."""
    name = plain(_text(captures["name"][0]))
    node = captures[f"definition.{kind}"][0]
    line = node.start_point.row + 1
    functions = OTHER_FUNCTION_NODES | LANGUAGE_FUNCTION_NODES.get(language, frozenset())
    classes = OTHER_CLASS_NODES | LANGUAGE_CLASS_NODES.get(language, frozenset())
    around = _nearest_definition(node, functions | classes)
    if around is not None and around.type in ("function_definition", *functions):
        return None  # a local variable
    owner = scopes.enclosing_class(line) if around is not None else None
    if around is not None and owner is None:
        return None
    if around is not None and around.type in classes and scopes.scope(line) is not owner:
        return None  # in a type declared inside a function body, which is no symbol
    if kind == "field" and owner is None and bare:
        return None  # a C field no struct holds: a struct body the parser could not read (macros in it)
    around_scope = scopes.scope(line)
    namespace = around_scope.qualified_name if around_scope is not None and around_scope.kind == "namespace" else None
    parent = owner.qualified_name if owner else namespace or package or module_name
    qualified = name if bare and parent == module_name else f"{parent}.{name}"
    signature = " ".join(_text(node).split())[:160]
    return Symbol("field" if owner else "constant", name, qualified, line, node.end_point.row + 1, parent, signature)


def _prototype_parameter(group: str, kind: str, captures: dict[str, list[Node]]) -> bool:
    """Whether a parameter's hint or binding belongs to a declaration without a body, not a function."""
    if kind != "parameter" and group != "binding":
        return False
    node = captures[f"{group}.{kind}" if kind else group][0]
    if node.type not in ("parameter_declaration", "optional_parameter_declaration"):
        return False
    current = node.parent
    while current is not None and current.type not in DEF_NODE_TYPES | OTHER_FUNCTION_NODES:
        if current.type in _PROTOTYPE_NODES:
            return True
        current = current.parent
    return False


def _namespace_spans(root: Node) -> list[tuple[int, int, str]]:
    """(first line, last line, dotted name) of each named namespace block, outermost first;
    `namespace a::b {` and blocks inside blocks are qualified by the ones around them."""
    found: list[tuple[int, int, str]] = []
    pending: list[tuple[Node, str]] = [(root, "")]
    while pending:
        node, prefix = pending.pop(0)
        for child in node.named_children:
            if child.type == "namespace_definition":
                name = child.child_by_field_name("name")
                body = child.child_by_field_name("body")
                written = "".join(_text(name).split()).replace("::", ".") if name is not None else ""
                inner = f"{prefix}.{written}".strip(".") if written else prefix
                if written:
                    found.append((child.start_point.row + 1, child.end_point.row + 1, inner))
                if body is not None:
                    pending.append((body, inner))
            elif child.type in _NAMESPACE_HOLDERS:
                pending.append((child, prefix))
    return found


def _nearest_definition(node: Node, others: frozenset[str] = OTHER_FUNCTION_NODES | OTHER_CLASS_NODES) -> Node | None:
    """The class or function definition around a node, if any."""
    current = node.parent
    while current is not None and current.type not in DEF_NODE_TYPES | others:
        current = current.parent
    return current


def _inside_function(node: Node) -> bool:
    current = node.parent
    while current is not None and current.type != "function_definition":
        current = current.parent
    return current is not None


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", errors="replace")
