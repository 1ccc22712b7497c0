"""What binding must know of each language, as data: receiver names, builtins, primitive types.

A language without a row binds bare names only by the language-agnostic steps of the ladder.
"""

from __future__ import annotations

import builtins
import collections
import datetime
import io
import pathlib
import re
import threading
from dataclasses import dataclass

__all__ = ["GraphSpec", "GRAPH_SPECS", "spec_for"]


@dataclass(frozen=True)
class GraphSpec:
    self_names: frozenset[str]  # receivers that mean "this object"
    builtins: frozenset[str]  # names that are never the project's, unless it defines them
    # Types whose members are never guessed: `x: str` then `x.find()` is str.find, not ours.
    primitive_types: frozenset[str]  # "literal": assigned a literal value
    module_system: str  # how imports name files: "python" | "" (not resolved yet)
    super_receiver: str = ""  # the receiver that means "the same object, as its base class"
    # Method names of builtin and common library types: a receiver of unknown type calling one
    # of these is never bound to the project's only method of that name (`x.items()`).
    common_methods: frozenset[str] = frozenset()
    # Builtins whose call gives a builtin value (`str(x).strip()`), unlike `type(x)` or `next(it)`.
    builtin_constructors: frozenset[str] = frozenset()
    # Generic containers: iterating or subscripting `List[Foo]` gives a Foo; a `Dict[K, V]` gives
    # K when iterated and V when subscripted.
    sequence_types: frozenset[str] = frozenset()
    mapping_types: frozenset[str] = frozenset()
    cast_functions: frozenset[str] = frozenset()  # `cast(Foo, x)` is a Foo, when `cast` is not the project's


_PYTHON_PRIMITIVES = frozenset(
    """
    str int float bool bytes bytearray complex list dict set frozenset tuple object type None
    List Dict Set FrozenSet Tuple Sequence Mapping MutableMapping Iterable Iterator Any Callable
    Optional Union literal MutableSequence Collection AbstractSet MutableSet Deque deque Generator AsyncIterator
    AsyncIterable AsyncGenerator Reversible OrderedDict DefaultDict defaultdict
    """.split()
)

_PYTHON_COMMON_TYPES: tuple[type, ...] = (
    str, bytes, bytearray, list, dict, set, frozenset, tuple, int, float, complex, memoryview, re.Pattern,
    re.Match, io.TextIOWrapper, io.BytesIO, io.StringIO, threading.Thread, threading.Event, type(threading.Lock()),
    collections.OrderedDict, collections.deque, collections.Counter, pathlib.Path, datetime.datetime,
)
_PYTHON_COMMON_METHODS = frozenset(
    name for kind in _PYTHON_COMMON_TYPES for name in dir(kind) if not name.startswith("_")
)
_PYTHON_BUILTIN_CONSTRUCTORS = frozenset(
    """
    str bytes bytearray list dict set frozenset tuple int float complex bool len repr ascii format sorted
    enumerate zip map filter range reversed open hex oct bin chr ord abs round hash id isinstance issubclass
    callable hasattr divmod pow sum any all memoryview
    """.split()
)

GRAPH_SPECS: dict[str, GraphSpec] = {
    "python": GraphSpec(
        self_names=frozenset({"self", "cls"}),
        builtins=frozenset(dir(builtins)),
        primitive_types=_PYTHON_PRIMITIVES,
        module_system="python",
        super_receiver="super()",
        common_methods=_PYTHON_COMMON_METHODS,
        builtin_constructors=_PYTHON_BUILTIN_CONSTRUCTORS,
        sequence_types=frozenset(
            """
            List list Sequence MutableSequence Iterable Iterator Collection Set set FrozenSet frozenset
            AbstractSet MutableSet Deque deque Generator AsyncIterator AsyncIterable AsyncGenerator Reversible
            """.split()
        ),
        mapping_types=frozenset("Dict dict Mapping MutableMapping OrderedDict DefaultDict defaultdict".split()),
        cast_functions=frozenset({"cast"}),
    ),
}

_DEFAULT = GraphSpec(frozenset({"this", "self"}), frozenset(), frozenset(), "")


def spec_for(language: str) -> GraphSpec:
    return GRAPH_SPECS.get(language, _DEFAULT)
