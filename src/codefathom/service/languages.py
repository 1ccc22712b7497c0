"""Language names as users type them (`ts`, `c#`, `golang`), mapped to the names the index stores."""

from __future__ import annotations

from collections.abc import Iterable

from codefathom.errors import UsageError
from codefathom.parse import supported_languages
from codefathom.service import arguments

__all__ = ["resolve_languages", "wanted_languages", "LANGUAGE_ALIASES"]

LANGUAGE_ALIASES = {
    "typescript": ("typescript", "tsx"), "ts": ("typescript", "tsx"), "js": ("javascript",),
    "jsx": ("javascript",), "py": ("python",), "c#": ("csharp",), "cs": ("csharp",), "c++": ("cpp",),
    "golang": ("go",), "md": ("markdown",), "sh": ("bash",), "shell": ("bash",), "rs": ("rust",),
    "rb": ("ruby",), "kt": ("kotlin",),
}


def resolve_languages(requested: Iterable[str]) -> tuple[str, ...]:
    known = set(supported_languages()) | {"text"}
    names: list[str] = []
    for language in requested:
        lowered = language.strip().lower()
        expanded = LANGUAGE_ALIASES.get(lowered, (lowered,))
        unknown = [name for name in expanded if name not in known]
        if unknown:
            raise UsageError(f"unknown language {language!r}; known: {', '.join(sorted(known))}")
        names.extend(n for n in expanded if n not in names)
    return tuple(names)


def wanted_languages(languages: object) -> set[str]:
    """The index's names of the languages asked for (one string, comma-separated, or a list; `ts` is
    typescript and tsx); empty: every language."""
    return set(resolve_languages(arguments.names("languages", languages)))
