"""The binding ladder: each reference walks from the most local meaning of its name to the most
global one, and the first step that finds a definition decides, with that step's confidence.

    bare name   scope -> same file -> imports -> builtin -> same directory -> unique in project
    member      self/cls -> typed attribute -> module alias -> typed variable -> class -> unique method
Labels: exact (>= 0.9), high (>= 0.7), likely (>= 0.4), possible; unbound names keep a count of
the definitions they could mean.
"""

from __future__ import annotations

from dataclasses import dataclass

from codefathom.graph.modules import ImportTarget, resolve_import
from codefathom.graph.specs import GraphSpec, spec_for
from codefathom.store.graph import Binding, GraphLookup, RefRow, SymbolRow

__all__ = ["Binder", "label_for"]

CLASS_KINDS = frozenset({"class"})
CALLABLE_KINDS = frozenset({"function", "method", "class"})
MAX_MRO = 12
MAX_TYPE_DEPTH = 8  # nested type resolutions (a chain of typed attributes and return types)


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


_UNBOUND = _Found(None, 0.0, "unbound")
_EXTERNAL = _Found(None, 0.0, "external")
_BUILTIN = _Found(None, 0.0, "builtin")


def _bound(target: SymbolRow, confidence: float) -> _Found:
    return _Found(target, confidence, label_for(confidence))


class Binder:
    """Binds references using a GraphLookup; caches per file what every reference there shares."""

    def __init__(self, lookup: GraphLookup) -> None:
        self.lookup = lookup
        self._aliases: dict[int, dict[str, ImportTarget]] = {}
        self._import_modules: dict[int, dict[str, str]] = {}
        self._names: dict[tuple[int, str | None, str], _Found] = {}
        self._mro: dict[int, list[SymbolRow]] = {}
        self._typing: set[tuple[int, str | None, str]] = set()  # variables whose type is being worked out
        self._resolving: set[tuple[int, str | None, str]] = set()  # type expressions being resolved

    def bind(self, ref: RefRow) -> Binding:
        spec = spec_for(self.lookup.language_of(ref.file_id))
        found = self._member(ref, spec) if ref.receiver else self._name(ref.file_id, ref.scope, ref.name, spec)
        target = found.target.id if found.target else None
        label = found.label
        if ref.kind == "read" and target is None and not found.candidates and label == "unbound":
            label = "local"  # a value read by a name no definition has: a parameter or a local
        return Binding(ref.id, target, round(found.confidence, 3), label, found.candidates)

    # -- imports -----------------------------------------------------------------------------

    def aliases(self, file_id: int) -> dict[str, ImportTarget]:
        """Local name -> what the file's imports bind it to."""
        if file_id not in self._aliases:
            system = spec_for(self.lookup.language_of(file_id)).module_system
            table: dict[str, ImportTarget] = {}
            modules: dict[str, str] = {}
            for row in self.lookup.imports_of(file_id):
                if row.alias == "*":
                    continue
                table[row.alias] = resolve_import(self.lookup, row, system)
                if row.name is None:
                    modules[row.alias] = row.module
            self._aliases[file_id] = table
            self._import_modules[file_id] = modules
        return self._aliases[file_id]

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
        # 1. enclosing definitions (nested functions, then the class body when inside one)
        current = scope
        while current and current != module_name:
            local = [s for s in lookup.members(current, name) if s.file_id == file_id]
            if local:
                return _bound(local[0], 0.95)
            parents = lookup.by_qualified(current)
            current = parents[0].parent if parents else None
        # 2. the file's own top level
        top = [s for s in lookup.members(module_name, name) if s.file_id == file_id]
        if top:
            return _bound(top[0], 0.95)
        # 3. what the file imports under that name
        target = self.aliases(file_id).get(name)
        if target is not None:
            return self._import_found(target)
        # 4. a builtin the project does not redefine
        if name in spec.builtins:
            return _BUILTIN
        # 5. the same directory, then 6. the whole project, top-level definitions only
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

    def _import_found(self, target: ImportTarget) -> _Found:
        if target.symbol_id is not None:
            symbol = self._symbol(target.symbol_id)
            return _bound(symbol, 0.95) if symbol else _UNBOUND
        if target.file_id is not None:
            module = self.lookup.module_of(target.file_id)
            return _bound(module, 0.95) if module else _UNBOUND
        return _EXTERNAL if target.external else _UNBOUND

    def _symbol(self, symbol_id: int) -> SymbolRow | None:
        rows = self.lookup._symbols("s.id = ?", (symbol_id,))
        return rows[0] if rows else None

    def _top_level(self, symbol: SymbolRow) -> bool:
        module = self.lookup.module_of(symbol.file_id)
        return module is not None and symbol.parent == module.qualified_name

    # -- members -----------------------------------------------------------------------------

    def _member(self, ref: RefRow, spec: GraphSpec) -> _Found:
        receiver, name = ref.receiver, ref.name
        if spec.super_receiver and receiver == spec.super_receiver:
            owner = self._enclosing_class(ref.scope)
            for base in self.mro(owner)[1:] if owner is not None else []:
                found = self._in_class(base, name, 0.9)
                if found is not None:
                    return found
            return _UNBOUND
        head, _, rest = receiver.partition(".")
        if head in spec.self_names:
            owner = self._enclosing_class(ref.scope)
            if owner is not None and not rest:
                found = self._in_class(owner, name, 0.95)
                if found is not None:
                    return found
            elif owner is not None and "." not in rest:
                typed = self._attribute_type(owner, f"{head}.{rest}", spec)
                if typed == "":
                    return _BUILTIN  # a primitive or collection attribute: never guess its members
                if typed is not None:
                    found = self._in_class(typed, name, 0.85)
                    if found is not None:
                        return found
            return self._unique_method(name, receiver, spec)
        if receiver.isidentifier():
            found = self._through_name(ref, receiver, name, spec)
            if found is not None:
                return found
        else:
            found = self._through_module_path(ref.file_id, receiver, name)
            if found is not None:
                return found
        return self._unique_method(name, receiver, spec)

    def _through_name(self, ref: RefRow, receiver: str, name: str, spec: GraphSpec) -> _Found | None:
        target = self.aliases(ref.file_id).get(receiver)
        if target is not None:
            if target.external:
                return _EXTERNAL
            if target.symbol_id is None and target.file_id is not None:  # `import pkg.mod as m; m.f()`
                module = self.lookup.module_of(target.file_id)
                if module is not None:
                    found = self._top(module, name)
                    return found if found is not None else _UNBOUND
        declared = self._variable_type(ref.file_id, ref.scope, receiver, spec)
        if declared == "":
            return _BUILTIN  # a primitive or collection: never guess its members
        if declared is not None:
            found = self._in_class(declared, name, 0.8)
            if found is not None:
                return found
        meant = self._name(ref.file_id, ref.scope, receiver, spec)
        if meant.target is not None and meant.target.kind in CLASS_KINDS:
            return self._in_class(meant.target, name, min(0.9, meant.confidence))
        if meant.target is not None and meant.target.kind == "module":
            return self._top(meant.target, name)
        if meant.label in ("external", "builtin"):
            return meant
        return None

    def _through_module_path(self, file_id: int, receiver: str, name: str) -> _Found | None:
        """`pkg.mod.f()` after `import pkg.mod`, or `os.path.join()` after `import os`."""
        self.aliases(file_id)
        head = receiver.split(".")[0]
        modules = self._import_modules.get(file_id, {})
        if head not in modules:
            return None
        target = self.aliases(file_id)[head]
        if target.external:
            return _EXTERNAL
        file = self.lookup.module_file(receiver)
        module = self.lookup.module_of(file) if file is not None else None
        if module is None:
            return None
        return self._top(module, name) or _UNBOUND

    def _top(self, module: SymbolRow, name: str) -> _Found | None:
        defined = [s for s in self.lookup.members(module.qualified_name, name) if s.file_id == module.file_id]
        if defined:
            return _bound(defined[0], 0.95)
        target = self.aliases(module.file_id).get(name)  # re-exported by the module
        if target is not None:
            found = self._import_found(target)
            if found.target is not None:
                return _Found(found.target, 0.9, label_for(0.9))
        return None

    def _unique_method(self, name: str, receiver: str, spec: GraphSpec) -> _Found:
        """No evidence of the receiver's type: bind only a method name the project defines once."""
        methods = [s for s in self.lookup.by_name(name) if s.kind == "method"]
        if len(methods) == 1:
            return _bound(methods[0], 0.35)
        return _Found(None, 0.0, "unbound", len(methods))

    # -- types -------------------------------------------------------------------------------

    def _enclosing_class(self, scope: str | None) -> SymbolRow | None:
        current = scope
        for _ in range(8):
            if not current:
                return None
            rows = self.lookup.by_qualified(current)
            if not rows:
                return None
            if rows[0].kind in CLASS_KINDS:
                return rows[0]
            current = rows[0].parent
        return None

    def _in_class(self, cls: SymbolRow, name: str, confidence: float) -> _Found | None:
        for owner in self.mro(cls):
            found = [s for s in self.lookup.members(owner.qualified_name, name) if s.file_id == owner.file_id]
            if found:
                return _bound(found[0], confidence)
        return None

    def mro(self, cls: SymbolRow) -> list[SymbolRow]:
        """The class and its bases, depth first, left to right, each once."""
        if cls.id in self._mro:
            return self._mro[cls.id]
        order: list[SymbolRow] = []
        pending = [cls]
        seen: set[int] = set()
        while pending and len(order) < MAX_MRO:
            current = pending.pop(0)
            if current.id in seen:
                continue
            seen.add(current.id)
            order.append(current)
            bases = []
            for receiver, base in self.lookup.bases_of(current):
                found = self._resolve_type(current.file_id, current.parent, f"{receiver}.{base}" if receiver else base)
                if found is not None:
                    bases.append(found)
            pending = bases + pending
        self._mro[cls.id] = order
        return order

    def _attribute_type(self, owner: SymbolRow, variable: str, spec: GraphSpec) -> SymbolRow | None | str:
        """The class `self.x` holds ("" for a primitive or collection, None when unknown), from
        `self.x = Foo()` / `self.x: Foo` in the class or its bases, or a class-level `x: Foo`."""
        attribute = variable.split(".", 1)[1]
        for cls in self.mro(owner):
            for scope, name, type_name, kind in self.lookup.hints_of(cls.file_id):
                if scope != cls.qualified_name or name not in (variable, attribute):
                    continue
                if name == attribute and kind != "annotation":
                    continue
                if _bare_type(type_name) in spec.primitive_types:
                    return ""
                resolved = self._type_from_hint(cls.file_id, cls.qualified_name, type_name, spec)
                if resolved:
                    return resolved
        return None

    def _variable_type(self, file_id: int, scope: str | None, variable: str, spec: GraphSpec) -> SymbolRow | None | str:
        """The class a variable holds, "" when it holds a primitive or collection, None when unknown."""
        key = (file_id, scope, variable)
        if key in self._typing:  # `x = x.copy()`: a variable typed by itself says nothing
            return None
        self._typing.add(key)
        try:
            return self._variable_type_uncached(file_id, scope, variable, spec)
        finally:
            self._typing.discard(key)

    def _variable_type_uncached(
        self, file_id: int, scope: str | None, variable: str, spec: GraphSpec
    ) -> SymbolRow | None | str:
        chain = []
        current = scope
        while current:
            chain.append(current)
            rows = self.lookup.by_qualified(current)
            current = rows[0].parent if rows else None
        chain.append(None)
        hints = self.lookup.hints_of(file_id)
        for level in chain:
            for hint_scope, name, type_name, kind in hints:
                if kind == "returns" or name != variable or hint_scope != level:
                    continue
                if _bare_type(type_name) in spec.primitive_types:
                    return ""
                resolved = self._type_from_hint(file_id, level, type_name, spec)
                if resolved is not None:
                    return resolved
        return None

    def _type_from_hint(self, file_id: int, scope: str | None, type_name: str, spec: GraphSpec) -> SymbolRow | None:
        """The class a hint names: `Foo`, `models.Foo`, `Optional[Foo]`, or what `make_foo()` returns."""
        bare = _bare_type(type_name)
        if not bare or bare in spec.primitive_types:
            return None
        found = self._resolve_type(file_id, scope, bare)
        if found is None or found.kind in CLASS_KINDS:
            return found
        if found.kind in ("function", "method"):  # x = make_user(): what make_user returns
            for hint_scope, _name, returns, kind in self.lookup.hints_of(found.file_id):
                if kind == "returns" and hint_scope == found.qualified_name:
                    result = self._resolve_type(found.file_id, found.parent, _bare_type(returns))
                    if result is not None and result.kind in CLASS_KINDS:
                        return result
        return None

    def _resolve_type(self, file_id: int, scope: str | None, written: str) -> SymbolRow | None:
        key = (file_id, scope, written)
        if key in self._resolving or len(self._resolving) > MAX_TYPE_DEPTH:
            return None  # `self.x = self.x.copy()`: a type defined through itself is unknown
        self._resolving.add(key)
        try:
            return self._resolve_type_uncached(file_id, scope, written)
        finally:
            self._resolving.discard(key)

    def _resolve_type_uncached(self, file_id: int, scope: str | None, written: str) -> SymbolRow | None:
        spec = spec_for(self.lookup.language_of(file_id))
        if "." in written:
            receiver, _, name = written.rpartition(".")
            ref = RefRow(0, file_id, name, "type", receiver, 0, scope)
            found = self._member(ref, spec)
        else:
            found = self._name(file_id, scope, written, spec)
        return found.target if found.target is not None and found.confidence >= 0.4 else None


def _bare_type(written: str) -> str:
    """`Optional[Foo]` -> Foo, `Foo | None` -> Foo, `list[Foo]` -> list (a collection)."""
    text = written.strip().strip("\"'")
    for wrapper in ("Optional[", "typing.Optional[", "Annotated["):
        if text.startswith(wrapper) and text.endswith("]"):
            text = text[len(wrapper) : -1].split(",")[0]
    if "|" in text:
        parts = [p.strip() for p in text.split("|") if p.strip() not in ("None", "")]
        text = parts[0] if len(parts) == 1 else ""
    return text.split("[", 1)[0].strip()
