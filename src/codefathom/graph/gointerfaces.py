"""Go's implicit interfaces: which methods a type has because some interface asks for them.

A Go type satisfies an interface by having all of its methods, with no word saying so; the
methods are then called through the interface (by `fmt`, `io`, `net/http`, or the project's own
code), never by name. The standard library's interfaces are data (`go_interfaces.txt`); the
project's are read from their declarations, embedded interfaces included.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from pathlib import Path

from codefathom.parse.grammars import parser_for
from codefathom.parse.languages import LanguageSpec, language_for

__all__ = ["Interfaces", "interface_members", "standard_interfaces"]

STANDARD_FILE = Path(__file__).with_name("go_interfaces.txt")


@functools.cache
def standard_interfaces(path: Path = STANDARD_FILE) -> dict[str, frozenset[str]]:
    """Interface name as Go code writes it (`io.Writer`, `error`) -> its methods."""
    table: dict[str, frozenset[str]] = {}
    for line in path.read_text("utf-8").splitlines():
        words = line.split("#", 1)[0].split()
        if len(words) >= 2:
            table[words[0]] = frozenset(words[1:])
    return table


def interface_members(source: str) -> tuple[frozenset[str], tuple[str, ...]]:
    """(method names, embedded type names as written) of the interface types declared in `source`."""
    text = source if source.lstrip().startswith("package") else "package p\n" + source
    tree = parser_for(_go()).parse(text.encode("utf-8"))
    methods: set[str] = set()
    embedded: list[str] = []
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type == "method_elem":
            name = node.child_by_field_name("name") or next(
                (c for c in node.children if c.type == "field_identifier"), None
            )
            if name is not None and name.text is not None:
                methods.add(name.text.decode("utf-8"))
            continue
        if node.type == "type_elem":
            written = (node.text or b"").decode("utf-8").strip()
            if written and all(c.isalnum() or c in "._" for c in written):  # not a union or constraint
                embedded.append(written)
            continue
        stack.extend(node.children)
    return frozenset(methods), tuple(embedded)


def _go() -> LanguageSpec:
    spec = language_for("x.go")
    assert isinstance(spec, LanguageSpec)
    return spec


class Interfaces:
    """The method sets of the project's interfaces and the standard ones, embedding resolved."""

    def __init__(self, declared: Iterable[tuple[str, str, str]]) -> None:
        """`declared`: (package, name, source) of each interface the project declares."""
        self._own: dict[str, tuple[frozenset[str], tuple[str, ...]]] = {}
        for package, name, source in declared:
            methods, embedded = interface_members(source)
            qualified = f"{package}.{name}" if package else name
            if qualified in self._own:  # namesakes (other packages, other builds): each keeps its own set
                qualified = f"{qualified}#{len(self._own)}"
            self._own[qualified] = (methods, embedded)
        self._resolved: dict[str, frozenset[str]] = {}
        self._all: list[tuple[str, frozenset[str]]] | None = None

    def method_sets(self) -> list[tuple[str, frozenset[str]]]:
        """(interface, every method it asks for) of every interface known, the smallest first."""
        if self._all is None:
            found = [(name, self._methods_of(name, set())) for name in self._own]
            found += [(name, methods) for name, methods in standard_interfaces().items() if name not in self._own]
            self._all = sorted((item for item in found if item[1]), key=lambda item: (len(item[1]), item[0]))
        return self._all

    def satisfied(self, method: str, type_methods: frozenset[str]) -> str | None:
        """The first interface asking for `method` whose every method the type has, if any."""
        for name, methods in self.method_sets():
            if method in methods and methods <= type_methods:
                return name
        return None

    def _methods_of(self, name: str, seen: set[str]) -> frozenset[str]:
        if name in self._resolved:
            return self._resolved[name]
        seen.add(name)
        own, embedded = self._own.get(name, (frozenset(), ()))
        methods = set(own)
        package = name.rsplit(".", 1)[0] if "." in name else ""
        for written in embedded:
            methods |= self._embedded(written, package, seen)
        self._resolved[name] = frozenset(methods)
        return self._resolved[name]

    def _embedded(self, written: str, package: str, seen: set[str]) -> frozenset[str]:
        """The methods of an interface named inside another: the project's (same package first), else
        a standard one."""
        qualified = written if "." in written else f"{package}.{written}"
        if qualified in self._own:
            return self._methods_of(qualified, seen) if qualified not in seen else frozenset()
        return standard_interfaces().get(written, frozenset())
