"""The binding ladder: each reference walks from the most local meaning of its name to the most
global one, and the first step that finds a definition decides, with that step's confidence.

    bare name   enclosing functions (their nested definitions, imports, locals; a class body only
                for code written directly in it) -> the file's top level -> its imports -> `*`
                imports -> builtin -> same directory -> unique in project
    member      the receiver is evaluated as an expression (`self.repo`, `models.Order`,
                `make_user()`, `Style.parse(x).copy`) to a module, a class, an instance of a class,
                a builtin or an external value; the member is then looked up on it (module top level,
                the class's MRO, then C# extension methods). A receiver nothing is known of falls back
                to a method name the project defines once, never to a method name builtin types also have.
Labels: exact (>= 0.9), high (>= 0.7), likely (>= 0.4), possible; unbound names keep a count of
the definitions they could mean; a name bound by the enclosing function (a parameter, a local
variable) is `local`.

What is evidence of a type: an annotation (variable, parameter, attribute, return type), a
constructor or a call whose return type is declared (`x = Foo()`, `x = make()`), an alias
(`x = y`, `self.x = param`) and literals. A variable assigned in several ways with different or
unknown types has no type; nothing is guessed from the flow of control (no `isinstance` narrowing).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache

from codefathom.graph.modules import (
    ImportTarget,
    compiled,
    implicit_import,
    member_of_module,
    namespace_members,
    namespace_of,
    namespace_path,
    nearest_definition,
    package_members,
    same_package,
)
from codefathom.graph.signatures import callback_parameter, parameter_range, parameter_types
from codefathom.graph.specs import GraphSpec, spec_for
from codefathom.graphsource import Binding, GraphLookup, RefRow, SymbolRow
from codefathom.model import ARGUMENT_SEPARATOR, LOCAL_HINT_KINDS

__all__ = ["Binder", "label_for"]

CLASS_KINDS = frozenset({"class"})
CALLABLE_KINDS = frozenset({"function", "method", "class"})
FUNCTION_KINDS = frozenset({"function", "method"})
VARIABLE_KINDS = frozenset({"constant", "field"})
TYPE_REF_KINDS = frozenset({"type", "inherit"})  # references that name a type
MAX_MRO = 12
MAX_TYPE_DEPTH = 8  # nested evaluations (a chain of typed attributes and return types)
DECORATOR_LINES = 3  # a decorator this close to a definition's first line is written outside it
LOCAL_HINTS = LOCAL_HINT_KINDS  # hint kinds that make a name local to the scope they are written in
DECLARED_HINTS = frozenset({"annotation", "parameter", "attribute_annotation"})

# Confidences of each kind of evidence.
SELF = 0.95  # `self.m()`: the enclosing class
SUPER = 0.9
DEFINED = 0.95  # defined in the scope or file, or imported from where it is defined
REEXPORTED = 0.9
CLASS_MEMBER = 0.9  # `Foo.m()`: the class is known, the member may be overridden by a subclass
VARIABLE = 0.8  # `x = Foo(); x.m()`, `x: Foo`
ATTRIBUTE = 0.85  # `self.x = Foo(); self.x.m()`
RETURNED = 0.8  # `make().m()` with `def make() -> Foo`
HOP = 0.9  # each further attribute of an attribute
CONDITIONAL = 0.6  # a name both defined and imported at the top level (`try: import` / `except: def`)


def label_for(confidence: float) -> str:
    if confidence >= 0.9:
        return "exact"
    if confidence >= 0.7:
        return "high"
    if confidence >= 0.4:
        return "likely"
    return "possible"


@dataclass(frozen=True, slots=True)
class _Found:
    target: SymbolRow | None
    confidence: float
    label: str  # a bound label, or unbound | external | builtin | local
    candidates: int = 0
    where: str | None = None  # for `local`: the scope that binds the name


_UNBOUND = _Found(None, 0.0, "unbound")
_EXTERNAL = _Found(None, 0.0, "external")
_BUILTIN = _Found(None, 0.0, "builtin")


def _bound(target: SymbolRow, confidence: float) -> _Found:
    return _Found(target, confidence, label_for(confidence))


@dataclass(frozen=True, slots=True)
class _Value:
    """What an expression evaluates to, as far as binding needs to know."""

    kind: str  # symbol (a module, class or function itself) | instance (of a class) | bound (a method
    #            of an instance) | super | namespace (a package without a file) | builtin | external
    symbol: SymbolRow | None = None
    confidence: float = 0.0
    name: str = ""  # a builtin's name, a namespace's dotted path
    element: _Value | None = None  # of a typed container: what iterating it gives (`List[Foo]`)
    item: _Value | None = None  # what subscripting it gives (the values of a `Dict[str, Foo]`)
    method: str = ""  # a method of a builtin container, not called yet (`d.get`)


_BUILTIN_VALUE = _Value("builtin")
_Evidence = tuple[str | None, str, str, int]  # scope written in, type as written, hint kind, line
_EXTERNAL_VALUE = _Value("external")


class Binder:
    """Binds references using a GraphLookup; caches per file what every reference there shares."""

    def __init__(self, lookup: GraphLookup) -> None:
        self.lookup = lookup
        self._imports: dict[int, dict[str | None, dict[str, ImportTarget]]] = {}  # file -> scope -> alias
        self._stars: dict[int, list[ImportTarget]] = {}
        self._namespaces: dict[int, set[str]] = {}  # `import a.b` where `a` has no file of its own
        self._attributes: dict[int, dict[str, dict[str, list[_Evidence]]]] = {}  # file -> class -> attribute
        self._names: dict[tuple[int, str | None, str], _Found] = {}
        self._mro: dict[int, list[SymbolRow]] = {}
        self._incomplete: set[int] = set()  # classes with a base outside the project
        self._after_unknown: dict[int, set[int]] = {}  # class -> classes of its MRO after such a base
        self._rows: dict[int, SymbolRow | None] = {}
        self._spans: dict[int, list[tuple[int, int, str, str]]] | None = None
        self._scope_rows: dict[tuple[int, str], SymbolRow | None] = {}
        self._active: set[tuple[object, ...]] = set()  # evaluations in progress: cycles say nothing
        self._extends: dict[int, SymbolRow | None] = {}  # extension function -> the class it extends
        self._arities: dict[int, tuple[int, int | None] | None] = {}  # function -> arguments it takes
        self._overloads: dict[tuple[int, int], SymbolRow | None] = {}  # (bound, arguments) -> overload taking them
        self._parameters: dict[int, list[str] | None] = {}  # function -> its parameters' types as written

    def forget(self) -> None:
        """Let go of what is cached per scope of a file (the largest caches, and the least shared
        between files): binding a project a batch of files at a time, each batch starts without the
        last one's, so they do not grow with the project. Answers do not change, only their cost."""
        self._names.clear()
        self._scope_rows.clear()

    def bind(self, ref: RefRow) -> Binding:
        spec = spec_for(self.lookup.language_of(ref.file_id))
        scope = self._decorator_scope(ref) if ref.kind == "decorator" else ref.scope
        found = self._member(ref, scope, spec) if ref.receiver else self._name(ref.file_id, scope, ref.name, spec)
        if found.label == "local" and spec.declared_before_use and ref.kind in ("call", *TYPE_REF_KINDS):
            found = self._declared_later(ref, found, spec)
        if ref.kind == "decorator" and spec.attribute_suffix and found.target is None:  # `[Foo]`: FooAttribute
            named = replace(ref, name=ref.name + spec.attribute_suffix)
            suffixed = self._member(named, scope, spec) if ref.receiver else self._name(
                ref.file_id, scope, named.name, spec)
            found = suffixed if suffixed.target is not None else found
        if spec.types_apart and not ref.receiver and found.target is not None and found.target.kind not in CLASS_KINDS \
                and (ref.kind in TYPE_REF_KINDS or ref.kind == "call" and found.target.kind in VARIABLE_KINDS):
            # `Color Color { get; }`: a written type, or `new Color()`, is the type, not the property
            again = self._name(ref.file_id, self._outside_classes(ref.file_id, scope), ref.name, spec)
            typed = again.target is not None and again.target.kind in CLASS_KINDS
            found = again if ref.kind in TYPE_REF_KINDS or typed else found
        if ref.kind == "call" and spec.separate_namespaces and found.target is not None \
                and found.target.kind in VARIABLE_KINDS:  # a field and a method share the name: the method
            method = self._namesake(found.target, FUNCTION_KINDS)
            found = _Found(method, found.confidence, found.label) if method is not None else found
        if ref.arity >= 0 and found.target is not None and found.target.kind in FUNCTION_KINDS:
            found = self._overload(found, found.target, ref.arity)
            if ref.arguments and found.target is not None:
                found = self._typed_overload(found, found.target, ref, spec)
        target = found.target.id if found.target else None
        label = found.label
        if ref.kind == "read" and target is None and not found.candidates and label == "unbound":
            label = "local"  # a value read by a name no definition has: a parameter or a local
        return Binding(ref.id, target, round(found.confidence, 3), label, found.candidates)

    def _declared_later(self, ref: RefRow, found: _Found, spec: GraphSpec) -> _Found:
        """A name called (or written as a type) on the line that first declares a local of that name
        means what the name means outside the local's scope."""
        lines = [line for _, kind, line in self._hints_at(ref.file_id, found.where, ref.name) if kind in LOCAL_HINTS]
        if not lines or min(lines) < ref.line or found.where is None:
            return found
        return self._name(ref.file_id, found.where.rpartition(".")[0] or None, ref.name, spec)

    def _overload(self, found: _Found, chosen: SymbolRow, arity: int) -> _Found:
        """Of the overloads of the method a call was bound to, one taking `arity` arguments: in its
        class (the last such, as for names), else in a base class (`dst.position()` on a ByteBuffer
        is Buffer's `position()`, not ByteBuffer's `position(int)`). Where no overload's parameters
        can be read as taking that many, the binding stands."""
        if self._takes(chosen, arity) is not False or chosen.parent is None:
            return found
        key = (chosen.id, arity)
        if key not in self._overloads:
            self._overloads[key] = self._overload_taking(chosen, arity)
        other = self._overloads[key]
        return found if other is None else _Found(other, found.confidence, found.label, found.candidates)

    def _overload_taking(self, chosen: SymbolRow, arity: int) -> SymbolRow | None:
        assert chosen.parent is not None
        written = self._written_in(chosen.parent, chosen.file_id, chosen.name)
        namesakes = [s for s in written if s.kind in FUNCTION_KINDS]
        owners = [s for s in self.lookup.by_qualified(chosen.parent) if s.kind in CLASS_KINDS]
        bases = self.mro(owners[0])[1:] if owners else []
        for candidates in (namesakes, *(
            [s for s in self.lookup.members(base.qualified_name, chosen.name) if s.kind in FUNCTION_KINDS]
            for base in bases
        )):
            fitting = [s for s in candidates if self._takes(s, arity)]
            if fitting:
                return _last(fitting)
        return None

    def _typed_overload(self, found: _Found, chosen: SymbolRow, ref: RefRow, spec: GraphSpec) -> _Found:
        """Of the overloads in the class taking as many arguments, the one whose parameter types the
        arguments' types (as written, or of the variables passed) fit best; the binding stands on a
        tie or when nothing is known of the arguments."""
        if chosen.parent is None:
            return found
        candidates = [
            s for s in self._written_in(chosen.parent, chosen.file_id, chosen.name)
            if s.kind in FUNCTION_KINDS and self._takes(s, ref.arity)
        ]
        if len(candidates) < 2:
            return found
        arguments = [self._argument_type(token, ref, spec) for token in ref.arguments.split(ARGUMENT_SEPARATOR)]
        if not any(arguments):
            return found
        scored = []
        for candidate in candidates:
            written = self._parameter_types(candidate)
            if written is None or len(written) < len(arguments) and not (written and written[-1].endswith("...")):
                continue
            total: int | None = 0
            for argument, parameter in zip(arguments, written, strict=False):
                fit = _fits(argument, parameter, self) if argument is not None else 0
                total = None if fit is None or total is None else total + fit
            if total is not None:
                scored.append((total, candidate))
        if not scored:
            return found
        best = max(total for total, _ in scored)
        top = [candidate for total, candidate in scored if total == best]
        if chosen in top or len(top) != 1:
            return found
        return _Found(top[0], found.confidence, found.label, found.candidates)

    def _argument_type(self, token: str, ref: RefRow, spec: GraphSpec) -> tuple[str, SymbolRow | None] | None:
        """(type name, its class where the project has it) of an argument, None when unknown."""
        if token == "?" or not token:
            return None
        if not token.startswith("="):
            return token, None
        value = self._evaluate(ref.file_id, ref.scope, token[1:], spec, ref.line)
        if value is None:
            return None
        return _type_name(value)

    def _parameter_types(self, function: SymbolRow) -> list[str] | None:
        if function.id not in self._parameters:
            self._parameters[function.id] = parameter_types(self.lookup.signature(function.id), function.name)
        return self._parameters[function.id]

    def _takes(self, function: SymbolRow, arity: int) -> bool | None:
        """Whether a function takes `arity` arguments by its signature (None: cannot tell)."""
        if function.id not in self._arities:
            self._arities[function.id] = parameter_range(self.lookup.signature(function.id), function.name)
        known = self._arities[function.id]
        if known is None:
            return None
        fewest, most = known
        return fewest <= arity and (most is None or arity <= most)

    def _outside_classes(self, file_id: int, scope: str | None) -> str | None:
        """The scope around the classes and functions a scope is in: a namespace, or the module."""
        current = scope
        while (row := self._scope_row(file_id, current)) is not None and row.kind in CALLABLE_KINDS:
            current = row.parent
        return current if row is None else None

    def _decorator_scope(self, ref: RefRow) -> str | None:
        """A decorator is evaluated outside the definition it decorates, though a class's or
        function's lines start with its decorators (a definition inside a function starts at
        `def`, so its decorators are scoped outside it already)."""
        row = self._scope_row(ref.file_id, ref.scope)
        if row is None or not row.start_line <= ref.line < row.start_line + DECORATOR_LINES:
            return ref.scope
        spans = self._scope_spans(ref.file_id)
        if any(ref.line < span[0] <= ref.line + DECORATOR_LINES for span in spans if span[0] > row.start_line):
            return ref.scope  # it decorates a definition inside this one
        return row.parent

    # -- imports -----------------------------------------------------------------------------

    def imports(self, file_id: int) -> dict[str | None, dict[str, ImportTarget]]:
        """Scope (None: module level) -> local name -> what the file's imports bind it to. An
        import inside a function binds the name in that function only."""
        if file_id not in self._imports:
            system = spec_for(self.lookup.language_of(file_id)).module_system
            spans = self._scope_spans(file_id)
            table: dict[str | None, dict[str, ImportTarget]] = {}
            stars = []
            namespaces = set()
            for row in self.lookup.imports_of(file_id):
                # rebind() resolved and stored every import that a change could have moved.
                target = ImportTarget(row.target_file_id, row.target_symbol_id, row.external, row.binds_module)
                if row.alias == "*":
                    stars.append(target)
                    continue
                if system == "ecmascript" and not row.module:
                    continue  # `export { a as b }`: a name for importers; the file itself calls it `a`
                if system == "python" and row.name is None and "." in row.module \
                        and row.alias == row.module.split(".")[0]:
                    # `import a.b` binds `a`, the package
                    head = self.lookup.module_file(row.alias)
                    if head is None and not target.external:
                        namespaces.add(row.alias)
                    target = ImportTarget(head, None, target.external and head is None, True)
                scope = _innermost(spans, row.line)
                table.setdefault(scope, {})[row.alias] = target
            self._imports[file_id] = table
            self._stars[file_id] = stars
            self._namespaces[file_id] = namespaces
        return self._imports[file_id]

    def _scope_spans(self, file_id: int) -> list[tuple[int, int, str, str]]:
        """(start, end, qualified name, kind) of the definitions references take their scope from,
        read for every file at once (a binding run visits most files of the ones it binds)."""
        if self._spans is None:
            self._spans = {}
            for owner, start, end, qualified, kind in self.lookup.scope_spans():
                self._spans.setdefault(owner, []).append((start, end, qualified, kind))
            for spans in self._spans.values():
                spans.sort(key=lambda span: (span[0], -span[1]))
        return self._spans.get(file_id, [])

    def _import_found(self, target: ImportTarget) -> _Found:
        if target.candidates:
            return _Found(None, 0.0, "unbound", target.candidates)
        if target.symbol_id is not None:
            symbol = self._row(target.symbol_id)
            return _bound(symbol, target.confidence or DEFINED) if symbol else _UNBOUND
        if target.module and target.file_id is not None:
            module = self.lookup.module_of(target.file_id)
            return _bound(module, DEFINED) if module else _UNBOUND
        return _EXTERNAL if target.external else _UNBOUND

    def _row(self, symbol_id: int) -> SymbolRow | None:
        if symbol_id not in self._rows:
            self._rows[symbol_id] = self.lookup.symbol(symbol_id)
        return self._rows[symbol_id]

    # -- bare names --------------------------------------------------------------------------

    def _name(self, file_id: int, scope: str | None, name: str, spec: GraphSpec) -> _Found:
        key = (file_id, scope, name)
        if key not in self._names:
            self._names[key] = self._name_uncached(file_id, scope, name, spec)
        return self._names[key]

    def _name_uncached(self, file_id: int, scope: str | None, name: str, spec: GraphSpec) -> _Found:
        lookup = self.lookup
        module = lookup.module_of(file_id)
        module_name = module.qualified_name if module else ""
        imports = self.imports(file_id)
        # 1. enclosing definitions: what they define, import or bind; a class body is seen only
        #    by code written directly in it, not by the methods inside it (unless the language
        #    says methods see their class's members: Java)
        current, innermost = scope, True
        beyond_class = False  # a member may come from an enclosing class's base outside the project
        past_class = False  # a class around the scope has been looked in
        while current and current != module_name:
            row = self._scope_row(file_id, current)
            if row is None:
                elsewhere = self._class_elsewhere(current, spec)
                if elsewhere is not None:  # C++ `void Foo::bar() {}`: Foo's members, then Foo's namespace
                    member = self._in_class(elsewhere, name, DEFINED) if spec.members_in_scope else None
                    if member is not None and member.target is not None and not _constructor(member.target):
                        return member
                    current, innermost = current.rpartition(".")[0], False
                    continue
                if lookup.by_qualified(current):
                    break  # a type whose definition is in another file (a Go method's receiver)
                # no definition at all: an inline module (Rust `mod tests { }`) or a package name
                # owns the functions and types written in it, not methods (an impl of a foreign type)
                local = [
                    s for s in lookup.members(current, name) if s.kind != "method" and (s.file_id == file_id or (
                        spec.open_namespaces and lookup.language_of(s.file_id) == lookup.language_of(file_id)))
                ]  # (a C# namespace is open to every file declaring it or a namespace inside it)
                if local and spec.qualified_namespaces:  # C++: several files may define the name
                    return self._import_found(nearest_definition(lookup, file_id, local))
                if local:
                    return _bound(_last(local), DEFINED)
                current, innermost = current.rpartition(".")[0], False
                continue
            if row.kind in CLASS_KINDS and past_class and not spec.lexical_methods and not name[:1].isupper():
                pass  # Ruby: only constants are lexical; a method is self's, not an enclosing class's
            elif row.kind in CLASS_KINDS and not spec.class_scope:
                pass  # Rust: a type's items are reached through `Self::` and `self.` only
            elif not innermost and row.kind in CLASS_KINDS and spec.members_in_scope:
                member = self._in_class(row, name, DEFINED)
                if member is not None and member.target is not None and not _constructor(member.target):
                    return member
                if self._binds(file_id, current, name):  # a type parameter of the class
                    return _Found(None, 0.0, "local", where=current)
                beyond_class = beyond_class or self._not_in_class(row).label == "external"
            elif innermost or row.kind not in CLASS_KINDS:  # (a constructor never stands for its class)
                local = [
                    s for s in lookup.members(current, name)
                    if self._written_with(s, file_id, row, spec) and not _constructor(s)
                ]
                if local and row.kind in FUNCTION_KINDS and self._binds(file_id, current, name):
                    return _Found(_last(local), CONDITIONAL, label_for(CONDITIONAL))  # also assigned there
                if local:
                    return _bound(_last(local), DEFINED)
                imported = imports.get(current, {}).get(name)
                if imported is not None:
                    return self._import_found(imported)
                if (row.kind in FUNCTION_KINDS or spec.members_in_scope) and self._binds(file_id, current, name):
                    return _Found(None, 0.0, "local", where=current)  # (Java: a class's type parameter too)
                extended = self._extended(row) if spec.extension_this else None
                member = self._in_class(extended, name, DEFINED) if extended is not None else None
                if member is not None and member.target is not None:  # Kotlin: `fun Order.f() = total()`
                    return member
            past_class = past_class or row.kind in CLASS_KINDS
            current, innermost = row.parent, False
        # 2. the file's own top level, 3. what the file imports under that name
        top = [s for s in lookup.members(module_name, name) if s.file_id == file_id and compiled(lookup, s)]
        imported = imports.get(None, {}).get(name)
        if not top:  # a package spanning files (Go, Java): this file's, then the others' unless imported
            package = package_members(lookup, file_id, name)
            top = [s for s in package if s.file_id == file_id] or (package if imported is None else [])
        if top and imported is not None and imported.symbol_id in {s.id for s in top}:
            imported = None  # the module importing its own definition (`if __name__ == "__main__":`)
        if top and imported is not None:  # `try: from x import f` / `except ImportError: def f()`
            found = self._import_found(imported)
            if _last(top).kind not in VARIABLE_KINDS:
                return _Found(_last(top), CONDITIONAL, label_for(CONDITIONAL))
            if found.target is None:  # the assignment is the fallback (`f = None`)
                return found
            return _Found(found.target, CONDITIONAL, label_for(CONDITIONAL))
        if top:
            return _bound(_last(top), DEFINED)
        if imported is not None:
            return self._import_found(imported)
        # 4. what a `*` import brings
        external_star = False
        for star in self._stars.get(file_id, []):
            if star.external or star.file_id is None:
                external_star = True
                continue
            if star.symbol_id is not None:  # `import static a.B.*`, `use Shape::*`: a class's members
                cls = self._row(star.symbol_id)
                member = self._in_class(cls, name, REEXPORTED) if cls is not None and cls.kind in CLASS_KINDS else None
                if member is not None and member.target is not None:
                    return member
                continue
            star_module = lookup.module_of(star.file_id)
            if star_module is None:
                continue
            target = member_of_module(lookup, star_module.qualified_name, star.file_id, name)
            if target is not None:
                found = self._import_found(target)
                if found.target is not None:
                    return _Found(found.target, REEXPORTED, label_for(REEXPORTED))
                if found.label == "external":
                    return found
        if scope is None and self._binds(file_id, None, name):  # a variable of top-level code, not a constant
            return _Found(None, 0.0, "local", where=None)
        # 5. what the module system reaches without an import (Rust: `crate`, `super`, crates),
        #    a builtin the project does not redefine
        implicit = implicit_import(lookup, file_id, name)
        if implicit is not None:
            return self._import_found(implicit)
        if name in spec.builtins:
            return _BUILTIN
        if external_star or beyond_class or spec.unknown_external:
            return _EXTERNAL
        if not spec.guess_by_name:
            return _UNBOUND
        # 6. the same directory, then 7. the whole project, top-level definitions only
        everywhere = [s for s in lookup.by_name(name) if s.kind in CALLABLE_KINDS and self._top_level(s)]
        if not everywhere:
            return _UNBOUND
        directory = lookup.path_of(file_id).rpartition("/")[0]
        near = [s for s in everywhere if lookup.path_of(s.file_id).rpartition("/")[0] == directory]
        if len(near) == 1:
            return _bound(near[0], 0.6)
        if len(everywhere) == 1:
            return _bound(everywhere[0], 0.5)
        return _Found(None, 0.0, "unbound", len(everywhere))

    def _written_with(self, member: SymbolRow, file_id: int, scope: SymbolRow, spec: GraphSpec) -> bool:
        """Whether a member of a scope is seen from a file: written in it, or in another part of a class
        written in parts (a C# partial class, a reopened Ruby class or module)."""
        return member.file_id == file_id or (
            scope.kind in CLASS_KINDS and spec.partial_classes and same_package(self.lookup, member.file_id, file_id)
        )

    def _scope_row(self, file_id: int, qualified: str | None) -> SymbolRow | None:
        if not qualified:
            return None
        key = (file_id, qualified)
        if key not in self._scope_rows:
            rows = [s for s in self.lookup.by_qualified(qualified) if s.file_id == file_id]
            self._scope_rows[key] = rows[0] if rows else None
        return self._scope_rows[key]

    def _binds(self, file_id: int, scope: str | None, name: str) -> bool:
        """Whether the scope binds the name: a parameter, an assignment, a loop or `as` target."""
        return any(kind in LOCAL_HINTS for _, kind, _ in self._hints_at(file_id, scope, name))

    def _top_level(self, symbol: SymbolRow) -> bool:
        module = self.lookup.module_of(symbol.file_id)
        return module is not None and symbol.parent == module.qualified_name

    # -- members -----------------------------------------------------------------------------

    def _member(self, ref: RefRow, scope: str | None, spec: GraphSpec) -> _Found:
        value = self._evaluate(ref.file_id, scope, ref.receiver, spec, ref.line)
        if value is None:
            return self._unique_method(ref.name, spec)
        return self._member_of(value, ref.name, spec, ref.file_id)

    def _member_of(self, value: _Value, name: str, spec: GraphSpec, file_id: int | None = None) -> _Found:
        """`value.name`, for a reference written in `file_id` (which of a namespace's definitions it sees)."""
        if value.kind == "builtin":
            return _BUILTIN
        if value.kind == "external":
            return _EXTERNAL
        symbol = value.symbol
        if symbol is None and value.kind == "namespace" and spec.qualified_namespaces:  # C++ `ns::f`
            members = namespace_members(self.lookup, value.name, name)
            if not members:
                return _UNBOUND
            if file_id is None:
                return _bound(_last(members), min(value.confidence, DEFINED))
            return self._import_found(nearest_definition(self.lookup, file_id, members))
        if symbol is None:  # a namespace: its classes and functions by qualified name (modules as `pkg.mod`)
            named = self._qualified(f"{value.name}.{name}", CALLABLE_KINDS)
            return _bound(named, min(value.confidence, DEFINED)) if named is not None else _UNBOUND
        if value.kind == "symbol" and symbol.kind == "module":
            target = member_of_module(self.lookup, symbol.qualified_name, symbol.file_id, name)
            if target is None:
                return _UNBOUND
            meant = self._import_found(target)
            if meant.target is not None:
                direct = target.symbol_id is not None and meant.target.file_id == symbol.file_id
                confidence = min(value.confidence, DEFINED if direct else REEXPORTED)
                return _Found(meant.target, confidence, label_for(confidence))
            return meant
        if value.kind == "symbol" and symbol.kind in CLASS_KINDS:
            return self._in_class(symbol, name, min(CLASS_MEMBER, value.confidence)) or self._not_in_class(symbol)
        if value.kind == "super":
            return self._in_class(symbol, name, min(SUPER, value.confidence), skip=1) or self._not_in_class(symbol)
        if value.kind == "instance":
            member = self._in_class(symbol, name, value.confidence)
            if member is not None and (member.target is None or member.target.kind in VARIABLE_KINDS):
                return member  # a class attribute holding a callable: `highlighter = ReprHighlighter()`
            if not spec.separate_namespaces and self._set_on_instance(symbol, name, spec):
                return _UNBOUND  # `self.name = ...` holds a callable: not a definition we can name
            if member is None and name in spec.universal_methods:
                return _BUILTIN  # `x.let { }`, `x.use { }`: the library's, on every object
            return member or self._extension(symbol, name, value.confidence, spec) or self._not_in_class(symbol)
        if value.kind == "bound":  # `obj.prop.m()`: a property, typed by its return annotation
            result = self._returns(symbol, value.confidence, spec)
            return self._member_of(result, name, spec) if result is not None else _UNBOUND
        return _UNBOUND

    def _qualified(self, qualified: str, kinds: frozenset[str]) -> SymbolRow | None:
        """The one definition of one of `kinds` with this qualified name, if exactly one."""
        found = [s for s in self.lookup.by_qualified(qualified) if s.kind in kinds]
        return found[0] if len(found) == 1 else None

    def _not_in_class(self, cls: SymbolRow) -> _Found:
        """A member the class and its known bases do not define: inherited from a base outside
        the project, or set dynamically."""
        self.mro(cls)
        return _EXTERNAL if any(c.id in self._incomplete for c in self.mro(cls)) else _UNBOUND

    def _unique_method(self, name: str, spec: GraphSpec) -> _Found:
        """No evidence of the receiver's type: bind only a method name the project defines once,
        and never one builtin types also have (`items`, `join`, `copy`)."""
        methods = [s for s in self.lookup.by_name(name) if s.kind == "method"]
        if len(methods) == 1 and name not in spec.common_methods:
            return _bound(methods[0], 0.35)
        return _Found(None, 0.0, "unbound", len(methods))

    def _extension(self, cls: SymbolRow, name: str, confidence: float, spec: GraphSpec) -> _Found | None:
        """A method the class does not define, called on an instance: an extension method of that
        name whose `this` parameter is the class or a base (C#: `static X F(this Foo f)`; Kotlin:
        `fun Foo.f()`), when exactly one method or function (its overloads counted once) is."""
        if not spec.extension_methods:
            return None
        order = {c.qualified_name for c in self.mro(cls)}
        found: dict[str, SymbolRow] = {}
        for method in self.lookup.by_name(name):  # (a Kotlin extension is mostly a top-level function)
            if method.kind not in FUNCTION_KINDS or method.qualified_name in found:
                continue
            for type_name, kind, _ in self._hints_at(method.file_id, method.qualified_name, method.name):
                extended = self._type_value(method.file_id, method.parent, type_name, spec) \
                    if kind == "extension" else None
                if extended is not None and extended.symbol is not None and extended.kind == "instance" \
                        and extended.symbol.qualified_name in order:
                    found[method.qualified_name] = method
        if len(found) != 1:
            return None
        return _bound(next(iter(found.values())), min(confidence, VARIABLE))

    # -- classes -----------------------------------------------------------------------------

    def _enclosing_class(self, file_id: int, scope: str | None) -> SymbolRow | None:
        """The class `this` means in a scope: the one around it, or an extension function's receiver."""
        current = scope
        method = False
        extension_this = spec_for(self.lookup.language_of(file_id)).extension_this
        for _ in range(8):
            row = self._scope_row(file_id, current)
            if row is None:
                if not (method and current):
                    return None
                return self._class_elsewhere(current, spec_for(self.lookup.language_of(file_id))) \
                    or self._written_elsewhere(file_id, current)
            if row.kind in CLASS_KINDS:
                return row
            extended = self._extended(row) if extension_this else None
            if extended is not None:
                return extended
            current, method = row.parent, row.kind == "method"
        return None

    def _extended(self, function: SymbolRow) -> SymbolRow | None:
        """The project class an extension function extends (`fun Order.label()`), if it is one."""
        if function.kind not in FUNCTION_KINDS:
            return None
        if function.id not in self._extends:
            self._extends[function.id] = None
            spec = spec_for(self.lookup.language_of(function.file_id))
            for type_name, kind, _ in self._hints_at(function.file_id, function.qualified_name, function.name):
                value = self._type_value(function.file_id, function.parent, type_name, spec) \
                    if kind == "extension" else None
                if value is not None and value.kind == "instance" and value.symbol is not None:
                    self._extends[function.id] = value.symbol
                    break
        return self._extends[function.id]

    def _method_owner(self, file_id: int, scope: str | None) -> str:
        """The name of the class a method is written for when no class of the file is it (a
        Rust impl of a type from elsewhere: `HashMap` in `impl Trait for HashMap<K, V>`)."""
        row = self._scope_row(file_id, scope)
        if row is None or row.kind != "method" or not row.parent:
            return ""
        return row.parent.rpartition(".")[2] if self._scope_row(file_id, row.parent) is None else ""

    def _class_elsewhere(self, qualified: str, spec: GraphSpec) -> SymbolRow | None:
        """The class a method defined outside it belongs to, by the class's qualified name, in
        languages that define methods out of line (C++ `void ns::Foo::bar() {}` in foo.cpp)."""
        if not spec.out_of_line_methods:
            return None
        classes = [s for s in self.lookup.by_qualified(qualified) if s.kind in CLASS_KINDS]
        return min(classes, key=lambda s: (self.lookup.path_of(s.file_id), s.start_line)) if classes else None

    def _written_elsewhere(self, file_id: int, qualified: str) -> SymbolRow | None:
        """The class a method belongs to when its class is not defined in the method's file (a
        Rust impl of a type imported from another module): the class its name means there."""
        module = self.lookup.module_of(file_id)
        if module is None or qualified.rpartition(".")[0] != module.qualified_name:
            return None
        spec = spec_for(self.lookup.language_of(file_id))
        found = self._name(file_id, None, qualified.rpartition(".")[2], spec)
        return found.target if found.target is not None and found.target.kind in CLASS_KINDS else None

    def _own_member(self, cls: SymbolRow, name: str, confidence: float) -> _Found | None:
        found = self._written_in(cls.qualified_name, cls.file_id, name)
        own = [s for s in found if s.file_id == cls.file_id]  # the part of the class that was named first
        return _bound(_last(own or found), confidence) if found else None

    def _written_in(self, owner: str, file_id: int, name: str) -> list[SymbolRow]:
        """The members named `name` of the class or namespace `owner` defined in `file_id`: in that
        file, or another file the language lets the class span (a Go package, a C# partial class)."""
        return [
            s for s in self.lookup.members(owner, name)
            if s.file_id == file_id or same_package(self.lookup, s.file_id, file_id)
        ]

    def _in_class(self, cls: SymbolRow, name: str, confidence: float, skip: int = 0) -> _Found | None:
        """The member as the class (or, from `skip` on, its bases) defines it. Found in a class that
        comes after a base outside the project, it may be that base's instead: likely at most."""
        order = self.mro(cls)
        uncertain = self._after_unknown.get(cls.id, set())
        for owner in order[skip:]:
            found = self._own_member(owner, name, confidence)
            if found is not None and found.target is not None and owner.id in uncertain:
                return _Found(found.target, min(confidence, CONDITIONAL), label_for(min(confidence, CONDITIONAL)))
            if found is not None:
                return found
        return None

    def mro(self, cls: SymbolRow) -> list[SymbolRow]:
        """The class and its bases, depth first, left to right, each once."""
        if cls.id in self._mro:
            return self._mro[cls.id]
        self._mro[cls.id] = [cls]  # a class that names itself as a base stops here
        order: list[SymbolRow] = []
        pending: list[SymbolRow | None] = [cls]  # None: a base outside the project
        seen: set[int] = set()
        after_unknown: set[int] = set()
        unknown_seen = False
        ordered = spec_for(self.lookup.language_of(cls.file_id)).ordered_bases
        while pending and len(order) < MAX_MRO:
            current = pending.pop(0)
            if current is None:
                unknown_seen = True
                continue
            if current.id in seen:
                continue
            seen.add(current.id)
            order.append(current)
            if unknown_seen and ordered:
                after_unknown.add(current.id)
            bases: list[SymbolRow | None] = []
            spec = spec_for(self.lookup.language_of(current.file_id))
            for part, receiver, base in self._bases_of(current, spec):
                written = f"{receiver}.{base}" if receiver else base
                value = self._evaluate(part.file_id, part.parent, written, spec)
                if value is not None and value.kind == "symbol" and value.symbol is not None \
                        and value.symbol.kind in CLASS_KINDS and value.confidence >= 0.4:
                    bases.append(value.symbol)
                elif value is not None and value.kind == "symbol" and value.symbol is not None \
                        and value.symbol.kind == "interface":
                    continue  # `implements I`: an interface has no implementation to inherit
                elif not (value is not None and value.kind == "builtin" and value.name == "object"):
                    self._incomplete.add(current.id)
                    bases.append(None)
            pending = bases + pending
        self._mro[cls.id] = order
        self._after_unknown[cls.id] = after_unknown
        return order

    def _bases_of(self, cls: SymbolRow, spec: GraphSpec) -> list[tuple[SymbolRow, str, str]]:
        """(the part naming it, receiver, name) of each base a class names; a partial class's bases
        are those of all its parts, each read in its own file."""
        parts = [cls]
        if spec.partial_classes:
            parts += [
                s for s in self.lookup.by_qualified(cls.qualified_name)
                if s.id != cls.id and s.kind in CLASS_KINDS and same_package(self.lookup, s.file_id, cls.file_id)
            ]
        return [(part, receiver, base) for part in parts for receiver, base in self.lookup.bases_of(part)]

    # -- values ------------------------------------------------------------------------------

    def _evaluate(
        self, file_id: int, scope: str | None, text: str, spec: GraphSpec, line: int | None = None
    ) -> _Value | None:
        """What an expression written in `scope` (at `line`, when known) evaluates to; None when
        unknown."""
        key = ("expression", file_id, scope, text, line)
        if key in self._active or len(self._active) > MAX_TYPE_DEPTH:
            return None  # `x = x.copy()`: a value defined through itself is unknown
        self._active.add(key)
        try:
            return self._evaluate_uncached(file_id, scope, text, spec, line)
        finally:
            self._active.discard(key)

    def _evaluate_uncached(
        self, file_id: int, scope: str | None, text: str, spec: GraphSpec, line: int | None
    ) -> _Value | None:
        parsed = _parse_expression(text)
        if parsed is None:
            return None
        (head_kind, head), trailers = parsed
        value: _Value | None
        if head_kind == "literal":
            return _BUILTIN_VALUE
        if head_kind == "super":
            owner = self._enclosing_class(file_id, scope)
            value = _Value("super", owner, SUPER) if owner is not None else None
        elif head == spec.super_receiver and self._enclosing_class(file_id, scope) is not None:  # `super.m()`
            value = _Value("super", self._enclosing_class(file_id, scope), SUPER)
        elif head in spec.self_names and self._enclosing_class(file_id, scope) is not None:
            owner = self._enclosing_class(file_id, scope)
            value = _Value("symbol" if head in spec.class_self_names else "instance", owner, SELF)
        elif head in spec.self_names and self._method_owner(file_id, scope):  # a Rust impl for `Vec<T>`
            value = self._type_value(file_id, None, self._method_owner(file_id, scope), spec)
            value = value if value is not None and value.kind in ("builtin", "external") else None
        else:
            value = self._name_value(file_id, scope, head, spec, line)
            if spec.types_apart and trailers and trailers[0][0] == "call" and value is not None \
                    and value.kind == "instance" and value.symbol is not None and value.symbol.name == head:
                # `Color Color { get; }`: `new Color()` (read `Color()`) calls the type, not the property
                named = self._name(file_id, self._outside_classes(file_id, scope), head, spec)
                if named.target is not None and named.target.kind in CLASS_KINDS:
                    value = _Value("symbol", named.target, named.confidence)
        start = 0
        if spec.full_type_names and head_kind == "name" and (value is None or value.kind == "external"):
            value, start = self._full_name(head, trailers, value)  # `javax.crypto.interfaces.PBEKey(key)`
        previous = head if start == 0 else trailers[start - 1][1]
        for index in range(start, len(trailers)):
            trailer_kind, content = trailers[index]
            if value is None:
                return None
            if trailer_kind == "attr":
                called = spec.separate_namespaces and index + 1 < len(trailers) and trailers[index + 1][0] == "call"
                value = self._attribute(value, content, spec, called)
            elif trailer_kind == "call" and previous in spec.cast_functions and value.kind == "external":
                arguments = _split_top(content, ",")  # `cast(Foo, x)`: a Foo
                value = self._type_value(file_id, scope, arguments[0], spec) if len(arguments) == 2 else None
                value = _capped(value, VARIABLE)  # declared, like an annotation
            elif trailer_kind == "call":
                value = self._call(value, spec)
            elif index + 1 < len(trailers) and trailers[index + 1][0] == "call" and _callable(value, spec):
                value = self._applied(file_id, scope, value, content, spec)  # `listOf[Order]()`, `Box[T]()`
            else:
                value = self._item(value, content, spec)
            previous = content if trailer_kind == "attr" else ""
        return value

    def _full_name(
        self, head: str, trailers: tuple[tuple[str, str], ...], value: _Value | None
    ) -> tuple[_Value | None, int]:
        """A class written with its package (`java.util.Objects.hash(x)`), as (its value, the
        number of trailers its name took); `value` and 0 when no project class has such a name."""
        qualified = head
        for index, (trailer_kind, content) in enumerate(trailers):
            if trailer_kind != "attr":
                break
            qualified = f"{qualified}.{content}"
            named = self._qualified(qualified, CLASS_KINDS)
            if named is not None:
                return _Value("symbol", named, DEFINED), index + 1
        return value, 0

    def _applied(self, file_id: int, scope: str | None, value: _Value, arguments: str, spec: GraphSpec) -> _Value:
        """A callable given type arguments (`listOf<Order>()`, read `listOf[Order]()`): a library
        factory builds the container they type; a class or function is the same callable."""
        factory = spec.generic_factories.get(value.name) if value.kind == "builtin" and not value.method else None
        if factory is None:
            return value
        return self._container(file_id, scope, factory, _split_top(arguments, ","), spec)

    def _name_value(
        self, file_id: int, scope: str | None, name: str, spec: GraphSpec, line: int | None = None
    ) -> _Value | None:
        found = self._name(file_id, scope, name, spec)
        if found.label == "local":  # in its own scope, only what was assigned before counts
            return self._variable_value(file_id, found.where, name, spec, line if found.where == scope else None)
        if found.target is None:
            if found.label == "builtin":
                return _Value("builtin", name=name)
            if name in self._namespaces.get(file_id, ()):
                return _Value("namespace", None, DEFINED, name)
            namespace = namespace_path(self.lookup, file_id, scope, name) if spec.qualified_namespaces else None
            if namespace is not None:  # C++ `ns::f`
                return _Value("namespace", None, DEFINED, namespace)
            space = namespace_of(self.lookup, file_id, name) if found.label == "unbound" else None
            if space:  # `Model\Order`: a namespace, written relative to the file's or from the root
                return _Value("namespace", None, DEFINED, space)
            return _EXTERNAL_VALUE if found.label == "external" else None
        if spec.separate_namespaces and found.target.kind in FUNCTION_KINDS:  # a value is the field of that name
            field = self._namesake(found.target, VARIABLE_KINDS)
            return self._symbol_value(field, found.confidence, spec) if field is not None else None
        return self._symbol_value(found.target, found.confidence, spec)

    def _namesake(self, symbol: SymbolRow, kinds: frozenset[str]) -> SymbolRow | None:
        """A member of the same class, of one of `kinds`, with the same name (Java's field `items`
        and method `items()`)."""
        if symbol.parent is None:
            return None
        found = [s for s in self.lookup.members(symbol.parent, symbol.name) if s.kind in kinds]
        return min(found, key=lambda s: s.start_line) if found else None

    def _symbol_value(self, symbol: SymbolRow, confidence: float, spec: GraphSpec) -> _Value | None:
        if symbol.kind in VARIABLE_KINDS:  # a module constant or class field: its type
            module = self.lookup.module_of(symbol.file_id)
            top = module is not None and symbol.parent == module.qualified_name
            # (a Kotlin top-level property is its package's, written at the file's top level)
            top = top or (symbol.kind == "constant" and self._scope_row(symbol.file_id, symbol.parent) is None)
            level = None if top else symbol.parent
            value = self._variable_value(symbol.file_id, level, symbol.name, spec)
            return _capped(value, confidence)
        return _Value("symbol", symbol, confidence)

    def _variable_value(
        self, file_id: int, level: str | None, name: str, spec: GraphSpec, before: int | None = None
    ) -> _Value | None:
        """The value a variable of `level` (a function, a class body, None for module level)
        holds, from every way it is assigned there (before line `before`, when given: the value
        is read there; parameters always count). A loop that assigns after the use is not seen."""
        key = ("variable", file_id, level, name, before)
        if key in self._active or len(self._active) > MAX_TYPE_DEPTH:
            return None
        self._active.add(key)
        try:
            hints = self._hints_at(file_id, level, name)
            narrowed = [(type_name, line) for type_name, kind, line in hints
                        if kind == "narrowed" and before is not None and _covers(type_name, line, before)]
            if narrowed:  # read where a test narrowed it (the innermost test first)
                site, line = max(narrowed, key=lambda item: item[1])
                value = self._narrowed(file_id, level, site, spec, line)
                if value is not None:
                    return _capped(value, VARIABLE)
            evidence = [
                (level, type_name, kind, line)
                for type_name, kind, line in hints
                # a comprehension's `for` clause is written after the use, on the same line
                if before is None or (line < before and kind != "callback") or kind == "parameter"
                or (line == before and kind == "element") or (kind == "callback" and _covers(type_name, line, before))
            ]
            return _capped(self._from_evidence(file_id, evidence, spec), VARIABLE)
        finally:
            self._active.discard(key)

    def _from_evidence(self, file_id: int, evidence: list[_Evidence], spec: GraphSpec) -> _Value | None:
        """One value from all the hints of one variable: a declared type wins; otherwise every
        assignment must agree, and one of unknown type makes the whole unknown."""
        value: _Value | None
        declared = [(scope, type_name) for scope, type_name, kind, _ in evidence if kind in DECLARED_HINTS]
        for scope, type_name in declared:
            value = self._type_value(file_id, scope, type_name, spec)
            if value is not None:
                return value
        if declared:
            return None
        values: list[_Value] = []
        for scope, type_name, kind, line in evidence:
            if type_name == "None":
                continue  # `x = None` first, the real value later
            if type_name == "?":
                return None  # bound without evidence: a loop variable, an unpacked tuple, ...
            if kind in ("literal",) or type_name == "literal":
                value = _BUILTIN_VALUE
            elif kind in ("assign", "attribute"):  # `x = f(...)`
                value = self._evaluate(file_id, scope, type_name, spec, line)
            elif kind in ("alias", "attribute_alias"):
                value = self._evaluate(file_id, scope, type_name, spec, line)
            elif kind == "element":  # `for x in xs`
                value = self._element(self._evaluate(file_id, scope, type_name, spec, line), spec)
            elif kind == "item":  # Go's `for _, x := range xs`: a slice's element, a map's value
                ranged = self._evaluate(file_id, scope, type_name, spec, line)
                value = self._item(ranged, "", spec) if ranged is not None else None
            elif kind == "enter":  # `with cm as x`: what `cm.__enter__()` returns
                value = self._entered(self._evaluate(file_id, scope, type_name, spec, line), spec)
            elif kind == "callback":  # `operate((source, subscriber) => ...)`: as `operate` types it
                value = self._callback(file_id, scope, type_name, spec, line)
            elif kind == "caught":  # `except E as x`: an E (of a tuple of classes, nothing known)
                value = self._evaluate(file_id, scope, type_name, spec, line)
                value = _Value("instance", value.symbol, value.confidence) if value is not None \
                    and value.kind == "symbol" and value.symbol is not None and value.symbol.kind in CLASS_KINDS \
                    else value if value is not None and value.kind in ("builtin", "external") else None
            else:
                continue
            if value is None:
                return None
            values.append(value)
        return _agreed(values)

    def _narrowed(self, file_id: int, scope: str | None, site: str, spec: GraphSpec, line: int) -> _Value | None:
        """What a test says a variable is where it holds (`test#how#last line`): an instance of the
        class of `x instanceof Foo`, or of the type a guard's `x is Foo` names."""
        test, how, _ = site.rsplit("#", 2)
        head, _, last = test.rpartition(".")
        if head:  # `models.Foo`, `Predicate.isString`
            owner = self._evaluate(file_id, scope, head, spec, line)
            found = self._member_of(owner, last, spec, file_id) if owner is not None else _UNBOUND
        else:
            found = self._name(file_id, scope, test, spec)
        symbol = found.target
        if symbol is None:
            return None
        if how == "instanceof":
            return _Value("instance", symbol, found.confidence) if symbol.kind in CLASS_KINDS else None
        if symbol.kind in FUNCTION_KINDS:
            level: str | None = symbol.qualified_name
        elif symbol.kind in VARIABLE_KINDS:  # `export var isMap = make() as (x: any) => x is Map`
            module = self.lookup.module_of(symbol.file_id)
            top = module is not None and symbol.parent == module.qualified_name
            level = None if top or self._scope_row(symbol.file_id, symbol.parent) is None else symbol.parent
        else:
            return None
        for written, kind, _ in self._hints_at(symbol.file_id, level, symbol.name):
            if kind == "guards":
                return _capped(self._type_value(symbol.file_id, level, written, spec), found.confidence)
        return None

    def _callback(self, file_id: int, scope: str | None, site: str, spec: GraphSpec, line: int) -> _Value | None:
        """A parameter of a function passed as an argument (`callee#argument#parameter`, see the
        `callback` hint): an instance of what the called function's (or constructor's) signature
        says that function receives there."""
        callee, argument, parameter, _ = site.rsplit("#", 3)
        value = self._evaluate(file_id, scope, callee, spec, line)
        if value is None or value.symbol is None:
            return None
        function: SymbolRow | None = value.symbol
        if value.kind == "symbol" and value.symbol.kind in CLASS_KINDS:  # `new Observable(cb)`
            owners = self.mro(value.symbol)
            constructors = (self.lookup.members(owner.qualified_name, "constructor") for owner in owners)
            function = next((c for found in constructors for c in found), None)
        elif value.kind not in ("symbol", "bound") or value.symbol.kind not in FUNCTION_KINDS:
            return None
        if function is None:
            return None
        written = callback_parameter(self.lookup.signature(function.id), int(argument), int(parameter))
        if written is None:
            return None
        return _capped(self._type_value(function.file_id, function.qualified_name, written, spec), value.confidence)

    def _type_value(self, file_id: int, scope: str | None, written: str, spec: GraphSpec) -> _Value | None:
        """An instance of the type an annotation names (`Foo`, `"models.Foo"`, `Optional[Foo]`);
        `Type[Foo]` is the class itself."""
        key = ("type", file_id, scope, written)
        if key in self._active or len(self._active) > MAX_TYPE_DEPTH:
            return None
        self._active.add(key)
        try:
            return self._type_value_uncached(file_id, scope, written, spec)
        finally:
            self._active.discard(key)

    def _type_value_uncached(self, file_id: int, scope: str | None, written: str, spec: GraphSpec) -> _Value | None:
        text = _unwrap(written)
        bare, arguments = _go_type(text) if spec.module_system == "go" else _generic(text)
        if bare.rsplit(".", 1)[-1] in ("Type", "type") and len(arguments) == 1:
            inner = self._type_value(file_id, scope, arguments[0], spec)
            if inner is not None and inner.kind == "instance":
                return _Value("symbol", inner.symbol, inner.confidence)
            return inner if inner is not None and inner.kind in ("builtin", "external") else None
        if not bare:
            return None
        if bare in spec.primitive_types or self._typing_name(file_id, scope, bare, spec):
            return self._container(file_id, scope, bare, arguments, spec)
        if spec.type_namesakes:
            named_type = self._type_namesake(file_id, scope, bare, spec)
            if named_type is not None:
                return named_type
        if "." not in bare:  # a type variable or an alias: `T = TypeVar("T")`, `Renderable = Union[...]`
            named = self._name(file_id, scope, bare, spec).target
            if named is not None and named.kind in VARIABLE_KINDS and not spec.types_apart:
                return None
            if named is not None and named.kind not in CLASS_KINDS and spec.types_apart:
                scope = self._outside_classes(file_id, scope)  # `Color Color { get; }`: the type Color
        value = self._evaluate(file_id, scope, bare, spec)
        if value is None:
            return None
        if value.kind == "symbol" and value.symbol is not None and value.symbol.kind in CLASS_KINDS:
            return _Value("instance", value.symbol, value.confidence)
        return value if value.kind in ("builtin", "external") else None

    def _type_namesake(self, file_id: int, scope: str | None, bare: str, spec: GraphSpec) -> _Value | None:
        """An instance of the class or interface a written type names when a value of the same
        name, in the same file, would be found first (`interface Clock` and `const Clock`; `Scope.Scope`
        through `import * as Scope`)."""
        head, _, last = bare.rpartition(".")
        if not head:
            found = self._name(file_id, scope, bare, spec)
            target, confidence = found.target, found.confidence
        else:
            module = self._evaluate(file_id, scope, head, spec)
            if module is None or module.kind != "symbol" or module.symbol is None or module.symbol.kind != "module":
                return None
            member = member_of_module(self.lookup, module.symbol.qualified_name, module.symbol.file_id, last)
            target = self._import_found(member).target if member is not None else None
            confidence = module.confidence
        if target is None or target.kind not in VARIABLE_KINDS or target.parent is None:
            return None
        types = [
            s for s in self.lookup.members(target.parent, target.name)
            if s.kind in CLASS_KINDS and s.file_id == target.file_id
        ]
        return _Value("instance", _last(types), confidence) if types else None

    def _typing_name(self, file_id: int, scope: str | None, bare: str, spec: GraphSpec) -> bool:
        """`t.List`, `typing.Optional`, `cabc.Iterable`: a builtin type reached through a module
        outside the project."""
        head, _, plain = bare.rpartition(".")
        if not head or plain not in spec.primitive_types:
            return False
        value = self._evaluate(file_id, scope, head, spec)
        return value is not None and value.kind == "external"

    def _container(
        self, file_id: int, scope: str | None, bare: str, arguments: list[str], spec: GraphSpec
    ) -> _Value:
        """A builtin type, with what iterating and subscripting it give when its arguments say."""
        element = item = None
        plain = bare.rsplit(".", 1)[-1]
        if plain in spec.sequence_types and arguments:
            element = item = self._type_value(file_id, scope, arguments[0], spec)
        elif plain in spec.mapping_types and len(arguments) == 2:
            element = self._type_value(file_id, scope, arguments[0], spec)
            item = self._type_value(file_id, scope, arguments[1], spec)
        elif plain in ("Tuple", "tuple") and len(arguments) == 2 and arguments[1] == "...":
            element = item = self._type_value(file_id, scope, arguments[0], spec)
        return _Value("builtin", name=plain, element=element, item=item)

    def _attribute(self, value: _Value, name: str, spec: GraphSpec, called: bool = False) -> _Value | None:
        """`value.name`; `called`: it is called next, and the language keeps methods apart from
        fields (`x.items()` is the method even when a field `items` exists)."""
        if value.kind == "builtin" and (value.element or value.item):
            return _Value("builtin", name=value.name, element=value.element, item=value.item, method=name)
        if value.kind in ("builtin", "external"):
            return value
        symbol = value.symbol
        if (value.kind == "namespace" or symbol is None) and spec.qualified_namespaces:  # C++ `ns::Foo`
            members = namespace_members(self.lookup, value.name, name)
            if members:
                return self._symbol_value(_last(members), value.confidence, spec)
            return _Value("namespace", None, value.confidence, f"{value.name}.{name}")
        if value.kind == "namespace" or symbol is None:
            path = f"{value.name}.{name}"
            cls = self._qualified(path, CLASS_KINDS)
            if cls is not None:  # `App.Model.Order`: a class of a namespace
                return _Value("symbol", cls, value.confidence)
            file_id = self.lookup.module_file(path)
            module = self.lookup.module_of(file_id) if file_id is not None else None
            if module is not None:
                return _Value("symbol", module, value.confidence)
            return _Value("namespace", None, value.confidence, path)
        if value.kind == "symbol" and symbol.kind == "module":
            target = member_of_module(self.lookup, symbol.qualified_name, symbol.file_id, name)
            if target is None:
                file_id = self.lookup.module_file(f"{symbol.qualified_name}.{name}")
                module = self.lookup.module_of(file_id) if file_id is not None else None
                return _Value("symbol", module, value.confidence) if module else None
            meant = self._import_found(target)
            if meant.target is not None:
                return self._symbol_value(meant.target, min(value.confidence, meant.confidence), spec)
            return _EXTERNAL_VALUE if meant.label == "external" else None
        if value.kind == "symbol" and symbol.kind in CLASS_KINDS:
            member = self._in_class(symbol, name, min(CLASS_MEMBER, value.confidence))
            if member is None or member.target is None:
                return _EXTERNAL_VALUE if self._not_in_class(symbol).label == "external" else None
            return self._symbol_value(member.target, member.confidence, spec)
        if value.kind == "instance":
            assigned, attribute = self._attribute_value(symbol, name, value.confidence, spec)
            if assigned and not called:
                return attribute
            member = self._in_class(symbol, name, value.confidence) or self._extension(
                symbol, name, value.confidence, spec)
            if member is None or member.target is None:
                return _EXTERNAL_VALUE if self._not_in_class(symbol).label == "external" else None
            chosen = member.target
            if called and chosen.kind in VARIABLE_KINDS:
                chosen = self._namesake(chosen, FUNCTION_KINDS) or chosen
            if chosen.kind in FUNCTION_KINDS:
                return _Value("bound", chosen, member.confidence)
            return self._symbol_value(chosen, member.confidence, spec)
        if value.kind == "bound":  # a property
            result = self._returns(symbol, value.confidence, spec)
            return self._attribute(result, name, spec) if result is not None else None
        if value.kind == "super":
            own = self._in_class(symbol, name, value.confidence, skip=1)
            if own is None or own.target is None:
                return None
            if own.target.kind in FUNCTION_KINDS:
                return _Value("bound", own.target, own.confidence)
            return self._symbol_value(own.target, own.confidence, spec)
        return None

    def _item(self, value: _Value, index: str, spec: GraphSpec) -> _Value | None:
        """`value[index]`: an item of a typed container, a slice of it, or `__getitem__`'s result."""
        if value.kind == "external":
            return value
        if value.kind == "builtin":
            if _is_slice(index):
                return value
            if value.item is not None:
                return value.item
            return _BUILTIN_VALUE if not value.name or value.name in ("str", "bytes", "bytearray") else None
        if value.kind == "instance" and value.symbol is not None:
            method = self._in_class(value.symbol, "__getitem__", value.confidence)
            if method is not None and method.target is not None:
                return self._returns(method.target, value.confidence, spec)
        return None

    def _element(self, value: _Value | None, spec: GraphSpec) -> _Value | None:
        """What iterating over a value gives: a typed container's element, `__iter__`'s."""
        if value is None:
            return None
        if value.kind == "builtin":
            return value.element
        if value.kind == "instance" and value.symbol is not None:
            method = self._in_class(value.symbol, "__iter__", value.confidence)
            if method is not None and method.target is not None:
                return self._element(self._returns(method.target, value.confidence, spec), spec)
        return value if value.kind == "external" else None

    def _entered(self, value: _Value | None, spec: GraphSpec) -> _Value | None:
        if value is None or value.kind != "instance" or value.symbol is None:
            return value if value is not None and value.kind == "external" else None
        method = self._in_class(value.symbol, "__enter__", value.confidence)
        if method is None or method.target is None:
            return None
        return self._returns(method.target, value.confidence, spec)

    def _call(self, value: _Value, spec: GraphSpec) -> _Value | None:
        """`value(...)`."""
        if value.kind == "external":
            return value
        if value.kind == "builtin" and value.method:
            return _container_method(value, spec)
        if value.kind == "builtin" and (value.element or value.item):
            return value  # a typed container built by a factory (`listOf<Order>()`)
        if value.kind == "builtin":
            return _BUILTIN_VALUE if value.name in spec.builtin_constructors or not value.name else None
        symbol = value.symbol
        if symbol is None:
            return None
        if value.kind == "symbol" and symbol.kind in CLASS_KINDS:
            return _Value("instance", symbol, value.confidence)
        if value.kind in ("symbol", "bound") and symbol.kind in FUNCTION_KINDS:
            return self._returns(symbol, value.confidence, spec)
        return None

    def _returns(self, function: SymbolRow, confidence: float, spec: GraphSpec) -> _Value | None:
        """What calling a function gives, from its return annotation."""
        for type_name, kind, _ in self._hints_at(function.file_id, function.qualified_name, function.name):
            if kind != "returns":
                continue
            if _generic(_unwrap(type_name))[0] == "Self" and function.kind == "method":
                owner = self._scope_row(function.file_id, function.parent)
                return _Value("instance", owner, min(confidence, RETURNED)) if owner else None
            value = self._type_value(function.file_id, function.parent, type_name, spec)
            return _capped(value, min(confidence, RETURNED))
        return None

    def _attribute_value(
        self, cls: SymbolRow, name: str, confidence: float, spec: GraphSpec
    ) -> tuple[bool, _Value | None]:
        """Whether the class (or a base) assigns `name` on its instances or in its body, and the
        value it holds then, from every such assignment."""
        for owner in self.mro(cls):
            evidence = self._attribute_evidence(owner, spec).get(name)
            if evidence:
                key = ("attribute", owner.id, name)
                if key in self._active or len(self._active) > MAX_TYPE_DEPTH:
                    return True, None
                self._active.add(key)
                try:
                    value = self._from_evidence(owner.file_id, evidence, spec)
                finally:
                    self._active.discard(key)
                return True, _capped(value, min(ATTRIBUTE, confidence * HOP if confidence < SELF else ATTRIBUTE))
        return False, None

    def _set_on_instance(self, cls: SymbolRow, name: str, spec: GraphSpec) -> bool:
        """Whether a method of the class (or of a base) assigns `self.name`."""
        return any(
            scope != owner.qualified_name
            for owner in self.mro(cls)
            for scope, _, _, _ in self._attribute_evidence(owner, spec).get(name, [])
        )

    def _attribute_evidence(self, cls: SymbolRow, spec: GraphSpec) -> dict[str, list[_Evidence]]:
        """Attribute name -> (scope written in, type, hint kind, line) of each `self.x = ...` in
        the class's methods, and of each assignment in its body."""
        if cls.file_id not in self._attributes:
            self._attributes[cls.file_id] = self._attributes_of_file(cls.file_id, spec)
        return self._attributes[cls.file_id].get(cls.qualified_name, {})

    def _attributes_of_file(self, file_id: int, spec: GraphSpec) -> dict[str, dict[str, list[_Evidence]]]:
        classes = {qualified for _, _, qualified, kind in self._scope_spans(file_id) if kind in CLASS_KINDS}
        tables: dict[str, dict[str, list[_Evidence]]] = {}
        for (scope, variable), hints in self._file_hints(file_id).items():
            if scope is None:
                continue
            owner, _, attribute = variable.partition(".")
            if not attribute:
                if scope in classes:  # the class body: `x: Foo`, `x = 0`
                    kept = [(scope, type_name, kind, line) for type_name, kind, line in hints if kind in LOCAL_HINTS]
                    tables.setdefault(scope, {}).setdefault(variable, []).extend(kept)
                continue
            if "." in attribute or owner not in spec.self_names:
                continue
            if scope in classes:
                cls = scope
            else:
                row = self._scope_row(file_id, scope)
                if row is None or row.parent not in classes:
                    continue
                cls = row.parent
            table = tables.setdefault(cls, {}).setdefault(attribute, [])
            table.extend((scope, type_name, kind, line) for type_name, kind, line in hints)
        return tables

    # -- hints -------------------------------------------------------------------------------

    def _file_hints(self, file_id: int) -> dict[tuple[str | None, str], list[tuple[str, str, int]]]:
        """(scope, variable) -> (type, kind, line) of each hint of the file."""
        return self.lookup.hint_table(file_id)

    def _hints_at(self, file_id: int, scope: str | None, variable: str) -> list[tuple[str, str, int]]:
        return self._file_hints(file_id).get((scope, variable), [])


# -- helpers ---------------------------------------------------------------------------------


def _last(symbols: list[SymbolRow]) -> SymbolRow:
    """Of several definitions of one name in one scope, the last (an `@overload` stub comes first)."""
    return max(symbols, key=lambda s: s.start_line)


def _constructor(symbol: SymbolRow) -> bool:
    """A Java constructor: a method named like its class, never what the class's name means."""
    return symbol.kind == "method" and symbol.parent is not None and symbol.parent.rsplit(".", 1)[-1] == symbol.name


def _innermost(spans: list[tuple[int, int, str, str]], line: int) -> str | None:
    found = None
    for start, end, qualified, _ in spans:
        if start > line:
            break
        if line <= end:
            found = qualified
    return found


def _callable(value: _Value | None, spec: GraphSpec) -> bool:
    """Whether type arguments may be applied to a value: a class, a function, a method, a factory."""
    if value is None:
        return False
    if value.kind == "builtin":
        return not value.method and value.name in spec.generic_factories
    return value.kind in ("symbol", "bound") and value.symbol is not None and value.symbol.kind in CALLABLE_KINDS


_PRIMITIVES = ("byte", "short", "char", "int", "long", "float", "double", "boolean")
# What a primitive widens to (JLS 5.1.2), and its box.
_WIDER = {
    "byte": {"short", "int", "long", "float", "double"}, "short": {"int", "long", "float", "double"},
    "char": {"int", "long", "float", "double"}, "int": {"long", "float", "double"}, "long": {"float", "double"},
    "float": {"double"}, "double": set(), "boolean": set(),
}
_BOXES = {
    "byte": "Byte", "short": "Short", "char": "Character", "int": "Integer", "long": "Long", "float": "Float",
    "double": "Double", "boolean": "Boolean",
}
_ANY_OBJECT = ("Object", "Serializable", "Comparable")


def _type_name(value: _Value | None) -> tuple[str, SymbolRow | None] | None:
    """The type a value has, as a parameter would write it (`Order`, `int`, `byte[]`)."""
    if value is None:
        return None
    if value.kind == "instance" and value.symbol is not None:
        return value.symbol.name, value.symbol
    if value.kind == "builtin" and value.name == "Array":  # `byte[] b` is read `Array[byte]`
        element = _type_name(value.element)
        return (f"{element[0]}[]", None) if element is not None else None
    if value.kind == "builtin" and value.name:
        return value.name, None
    return None


def _fits(argument: tuple[str, SymbolRow | None], parameter: str, binder: Binder) -> int | None:
    """How well an argument of a type fits a parameter (3 the same type, 2 a subclass or a box, 1
    widening or Object, 0 cannot tell); None when it cannot be passed there."""
    name, cls = argument
    parameter = parameter.removesuffix("...")
    if name == parameter:
        return 3
    if name == "null":
        return None if parameter in _PRIMITIVES else 1
    if name in _PRIMITIVES:
        if parameter in _PRIMITIVES:
            return 1 if parameter in _WIDER[name] else None
        return 2 if _BOXES[name] == parameter else 1 if parameter in (*_ANY_OBJECT, "Number") else None
    if parameter in _PRIMITIVES:
        return 2 if _BOXES[parameter] == name else None if name in _BOXES.values() or cls is not None else 0
    if name.endswith("[]") or parameter.endswith("[]"):
        if name.endswith("[]") and parameter.endswith("[]"):
            element, wanted = name[:-2], parameter[:-2]
            return None if (element in _PRIMITIVES or wanted in _PRIMITIVES) and element != wanted else 0
        return 1 if parameter in ("Object", "Cloneable", "Serializable") else None if name.endswith("[]") else 0
    if parameter == "Object":
        return 1
    if cls is not None and any(base.name == parameter for base in binder.mro(cls)[1:]):
        return 2
    return 0


def _covers(site: str, line: int, read: int) -> bool:
    """Whether a read on line `read` is inside the function whose parameter a `callback` hint of
    line `line` types (its site ends with the function's last line)."""
    return line <= read <= int(site.rpartition("#")[2])


def _capped(value: _Value | None, confidence: float) -> _Value | None:
    if value is None or value.kind in ("builtin", "external") or value.confidence <= confidence:
        return value
    return _Value(value.kind, value.symbol, confidence, value.name)


def _agreed(values: list[_Value]) -> _Value | None:
    """The one value several assignments agree on."""
    if not values:
        return None
    first = values[0]
    for other in values[1:]:
        same_symbol = (first.symbol.id if first.symbol else None) == (other.symbol.id if other.symbol else None)
        if other.kind != first.kind or not same_symbol:
            if first.kind == other.kind == "builtin":
                continue
            return None
    return min(values, key=lambda v: v.confidence)


def _container_method(value: _Value, spec: GraphSpec) -> _Value | None:
    """The result of calling a method of a typed builtin container (`d.get(k)`, `xs.pop()`)."""
    mapping = value.name in spec.mapping_types
    if not mapping and value.method in spec.element_methods:  # `list.get(0)`, `opt.unwrap()`
        return value.element
    if not mapping and value.method in spec.iter_methods:  # `v.iter()`: the same elements
        return _Value("builtin", name=value.name, element=value.element, item=value.item)
    if value.method in ("get", "pop", "setdefault"):
        return value.item if mapping else value.element if value.method == "pop" else _BUILTIN_VALUE
    if value.method == "copy":
        return _Value("builtin", name=value.name, element=value.element, item=value.item)
    if value.method == "values" and mapping:
        return _Value("builtin", name="list", element=value.item)
    if value.method == "keys" and mapping:
        return _Value("builtin", name="list", element=value.element)
    return _BUILTIN_VALUE


def _is_slice(index: str) -> bool:
    depth = 0
    for char in index:
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == ":" and depth == 0:
            return True
    return False


def _unwrap(written: str) -> str:
    """The type an annotation means, without quotes and the wrappers that do not change it:
    `Optional[Foo]`, `"Foo"`, `Foo | None`, `Annotated[Foo, ...]`, `Final[Foo]` -> Foo."""
    text = written.strip().strip("\"'").strip()
    for _ in range(4):
        bare, arguments = _generic(text)
        plain = bare.rsplit(".", 1)[-1]
        if plain in ("Optional", "Annotated", "Final", "ClassVar") and arguments:
            text = arguments[0]
        elif plain == "Union" and arguments:
            kept = [a for a in arguments if a not in _NONE_TYPES]
            text = kept[0] if len(kept) == 1 else ""
        elif "|" in _top_level(text):
            kept = [p.strip() for p in _split_top(text, "|") if p.strip() not in _NONE_TYPES]
            text = kept[0] if len(kept) == 1 else ""
        else:
            break
        text = text.strip().strip("\"'").strip()
    return text


_NONE_TYPES = ("None", "", "null", "undefined")  # `Foo | None`, `Foo | null`


def _go_type(text: str) -> tuple[str, list[str]]:
    """A Go type as `_generic` gives others: `*Foo` -> Foo, `[]*Foo` and `chan Foo` -> ("[]", ["Foo"]),
    `map[string]Foo` -> ("map", ["string", "Foo"]); `List[T]` (generic) as `_generic` reads it.
    "[]" and "map" cannot name a Go type, so no type of the project is taken for them."""
    text = text.strip().lstrip("*").strip()
    if text.startswith("["):  # a slice or an array: `[]T`, `[4]T`, `[...]T`
        close = text.find("]")
        return ("[]", [text[close + 1 :].lstrip("*").strip()]) if close > 0 or text.startswith("[]") else ("", [])
    if text.startswith(("chan ", "<-chan ", "chan<- ")):
        return "[]", [text.split(" ", 1)[1].lstrip("*").strip()]
    if text.startswith("map["):
        depth = 0
        for position, char in enumerate(text):
            depth += char == "["
            depth -= char == "]"
            if char == "]" and depth == 0:
                return "map", [text[4:position].strip(), text[position + 1 :].lstrip("*").strip()]
        return "", []
    return _generic(text)


def _generic(text: str) -> tuple[str, list[str]]:
    """`Dict[str, "Foo"]` -> ("Dict", ["str", "Foo"]); `Foo` -> ("Foo", [])."""
    if "[" not in text:
        return text.strip().strip("\"'"), []
    bare, _, rest = text.partition("[")
    if not rest.endswith("]"):
        return bare.strip(), []
    return bare.strip(), [a.strip().strip("\"'") for a in _split_top(rest[:-1], ",") if a.strip()]


def _top_level(text: str) -> str:
    """The characters of `text` outside any brackets."""
    depth = 0
    kept = []
    for char in text:
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif depth == 0:
            kept.append(char)
    return "".join(kept)


def _split_top(text: str, separator: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for position, char in enumerate(text):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == separator and depth == 0:
            parts.append(text[start:position])
            start = position + 1
    parts.append(text[start:])
    return parts


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
_STRING_PREFIX = re.compile(r"(?i)(?:[rbuf]|rb|br|fr|rf)?[\"']")
_CLOSING = {"(": ")", "[": "]", "{": "}"}


@lru_cache(maxsize=4096)
def _parse_expression(text: str) -> tuple[tuple[str, str], tuple[tuple[str, str], ...]] | None:
    """`a.b(c)[d].e` -> (("name", "a"), [("attr", "b"), ("call", "c"), ("item", "d"), ("attr", "e")]);
    ("literal", "") for a literal head; ("super", args) for `super(...)`. None for anything else
    (operators, comprehensions, lambdas)."""
    text = text.strip()
    parts = text.split(".")
    if all(part.isidentifier() for part in parts):  # the common case: `self.repo`, `os.path`
        return ("name", parts[0]), tuple(("attr", part) for part in parts[1:])
    if not text:
        return None
    if text[0] in "[{" or text[0].isdigit() or _STRING_PREFIX.match(text):
        return ("literal", ""), ()
    match = _IDENTIFIER.match(text)
    if match is None:
        return None
    head: tuple[str, str] = ("name", match.group())
    position = match.end()
    trailers: list[tuple[str, str]] = []
    if match.group() == "super" and text[position : position + 1] == "(":
        end = _matching(text, position)
        if end is None:
            return None
        head, position = ("super", text[position + 1 : end]), end + 1
    while position < len(text):
        char = text[position]
        if char == " ":
            position += 1
        elif char == ".":
            name = _IDENTIFIER.match(text, position + 1)
            if name is None:
                return None
            trailers.append(("attr", name.group()))
            position = name.end()
        elif char in "([":
            end = _matching(text, position)
            if end is None:
                return None
            trailers.append(("call" if char == "(" else "item", text[position + 1 : end]))
            position = end + 1
        else:
            return None
    return head, tuple(trailers)


def _matching(text: str, start: int) -> int | None:
    """The index of the bracket closing the one at `start`, skipping strings."""
    depth = 0
    position = start
    quote = ""
    while position < len(text):
        char = text[position]
        if quote:
            if char == "\\":
                position += 1
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char in _CLOSING:
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return position
        position += 1
    return None
