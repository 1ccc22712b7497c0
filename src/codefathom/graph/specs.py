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
    module_system: str  # how imports name files: "python" | "ecmascript" | "" (not resolved yet)
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
    class_self_names: frozenset[str] = frozenset()  # self names that mean the class itself (`cls`), not an instance


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

_ECMASCRIPT_BUILTINS = frozenset(
    """
    console Object Array Promise JSON Math Number String Boolean Symbol BigInt Date RegExp Error TypeError
    RangeError SyntaxError ReferenceError Map Set WeakMap WeakSet WeakRef Proxy Reflect Intl ArrayBuffer
    DataView Uint8Array Int8Array Uint16Array Int16Array Uint32Array Int32Array Float32Array Float64Array
    globalThis window document navigator location history localStorage sessionStorage self fetch Request
    Response Headers URL URLSearchParams AbortController Event EventTarget CustomEvent Blob File FormData
    TextEncoder TextDecoder setTimeout clearTimeout setInterval clearInterval queueMicrotask structuredClone
    requestAnimationFrame parseInt parseFloat isNaN isFinite encodeURIComponent decodeURIComponent encodeURI
    decodeURI require module exports process Buffer __dirname __filename global undefined NaN Infinity
    eval alert arguments
    """.split()
)
_ECMASCRIPT_SEQUENCES = frozenset(
    "Array ReadonlyArray Set ReadonlySet Iterable Iterator AsyncIterable Generator".split()
)
_ECMASCRIPT_MAPPINGS = frozenset("Map ReadonlyMap Record WeakMap".split())
_ECMASCRIPT_PRIMITIVES = frozenset(
    """
    string number boolean bigint symbol any unknown never void object null undefined literal String Number
    Boolean Object Function Promise RegExp Date Error Partial Required Readonly Pick Omit
    """.split()
) | _ECMASCRIPT_SEQUENCES | _ECMASCRIPT_MAPPINGS
# Methods of arrays, strings, maps, sets, promises and objects: never guessed on an unknown receiver.
_ECMASCRIPT_COMMON_METHODS = frozenset(
    """
    at concat copyWithin entries every fill filter find findIndex findLast findLastIndex flat flatMap forEach
    includes indexOf join keys lastIndexOf map pop push reduce reduceRight reverse shift slice some sort splice
    toString unshift values charAt charCodeAt codePointAt endsWith localeCompare match matchAll normalize padEnd
    padStart repeat replace replaceAll search split startsWith substring toLowerCase toUpperCase trim trimEnd
    trimStart clear delete get has set add then catch finally toFixed toISOString getTime valueOf hasOwnProperty
    bind call apply test exec emit on off once addEventListener removeEventListener dispatchEvent json text
    """.split()
)
_ECMASCRIPT = GraphSpec(
    self_names=frozenset({"this"}),
    builtins=_ECMASCRIPT_BUILTINS,
    primitive_types=_ECMASCRIPT_PRIMITIVES,
    module_system="ecmascript",
    super_receiver="super",
    common_methods=_ECMASCRIPT_COMMON_METHODS,
    builtin_constructors=frozenset("String Number Boolean Array Object Symbol BigInt parseInt parseFloat".split()),
    sequence_types=_ECMASCRIPT_SEQUENCES,
    mapping_types=_ECMASCRIPT_MAPPINGS,
)

_GO_BUILTINS = frozenset(
    """
    append cap clear close complex copy delete imag len make max min new panic print println real recover
    nil true false iota
    """.split()
)
_GO_PRIMITIVES = frozenset(
    """
    bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string uint uint8
    uint16 uint32 uint64 uintptr any comparable literal
    """.split()
)
# Methods of the standard library's everyday types (error, io, sync, fmt.Stringer, context, sort):
# an unknown receiver calling one is not guessed to be the project's only method of that name.
_GO_COMMON_METHODS = frozenset(
    """
    Error String Close Read Write ReadFrom WriteTo Seek Flush Lock Unlock RLock RUnlock Wait Done Add Err
    Value Deadline Len Less Swap Unwrap Is As Format Scan Next Bytes Text Reset Sum Load Store Delete
    Range Do Get Set Del Header
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
        class_self_names=frozenset({"cls"}),
    ),
    "javascript": _ECMASCRIPT,
    "typescript": _ECMASCRIPT,
    "tsx": _ECMASCRIPT,
    "go": GraphSpec(
        self_names=frozenset(),  # a receiver is a named parameter, typed by its own hint
        builtins=_GO_BUILTINS | _GO_PRIMITIVES,
        primitive_types=_GO_PRIMITIVES,
        module_system="go",
        common_methods=_GO_COMMON_METHODS,
        builtin_constructors=_GO_BUILTINS | _GO_PRIMITIVES,
    ),
}

_DEFAULT = GraphSpec(frozenset({"this", "self"}), frozenset(), frozenset(), "")


def spec_for(language: str) -> GraphSpec:
    return GRAPH_SPECS.get(language, _DEFAULT)
