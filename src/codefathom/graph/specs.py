"""What binding must know of each language, as data: receiver names, builtins, primitive types.

A language without a row binds bare names only by the language-agnostic steps of the ladder.
"""

from __future__ import annotations

import builtins
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


_PYTHON_PRIMITIVES = frozenset(
    """
    str int float bool bytes bytearray complex list dict set frozenset tuple object type None
    List Dict Set FrozenSet Tuple Sequence Mapping MutableMapping Iterable Iterator Any Callable
    Optional Union literal
    """.split()
)

GRAPH_SPECS: dict[str, GraphSpec] = {
    "python": GraphSpec(
        self_names=frozenset({"self", "cls"}),
        builtins=frozenset(dir(builtins)),
        primitive_types=_PYTHON_PRIMITIVES,
        module_system="python",
        super_receiver="super()",
    ),
}

_DEFAULT = GraphSpec(frozenset({"this", "self"}), frozenset(), frozenset(), "")


def spec_for(language: str) -> GraphSpec:
    return GRAPH_SPECS.get(language, _DEFAULT)
