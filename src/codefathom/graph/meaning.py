"""What a name means to a module system's global step (C and C++ definitions, shell functions):
the record `modules.implicit_import` turns into an import target."""

from __future__ import annotations

from dataclasses import dataclass

from codefathom.graphsource import SymbolRow

__all__ = ["Meaning"]


@dataclass(frozen=True, slots=True)
class Meaning:
    """A definition and the confidence of it, or the number of definitions the name could mean."""

    symbol: SymbolRow | None
    confidence: float = 0.0
    candidates: int = 0
