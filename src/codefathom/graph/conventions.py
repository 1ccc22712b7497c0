"""A codebase's conventions, learned from its own code: how it names things, raises and wraps errors,
logs, tests, imports, formats, and which libraries it uses for HTTP, databases, configuration and
command lines; each with its share and two examples, and the places that break a dominant one.

Naming and formatting are read the same way for every language; what errors, logging, tests and
libraries look like in a language is data (conventions.toml): signals a line, an import or a path
shows, counted per line or per file.
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "Source", "Name", "Import", "Place", "Choice", "Convention", "find_conventions", "naming_style", "group_of",
    "rules_of", "DOMINANT",
]

RULES_FILE = Path(__file__).with_name("conventions.toml")
DOMINANT = 0.75  # a choice this common is the convention, and the others break it
MIN_CASES = 4  # fewer cases say nothing about a convention
KEPT_PLACES = 200  # places kept per choice (the count goes on): examples and outliers come from them


@dataclass(frozen=True)
class Source:
    """One indexed file: its text and whether it is a test (`role` from search/roles.py)."""

    path: str
    language: str
    role: str
    text: str


@dataclass(frozen=True)
class Name:
    """A definition's name (from the index's symbols): kind is class, function, method, constant or field."""

    path: str
    line: int
    kind: str
    name: str
    language: str


@dataclass(frozen=True)
class Import:
    path: str
    line: int
    module: str
    level: int  # dots of a relative Python import
    internal: bool  # the import names a file of the project
    language: str


@dataclass(frozen=True)
class Place:
    path: str
    line: int
    text: str = ""  # the name, or what the line shows

    def __str__(self) -> str:
        return f"{self.path}:{self.line}" + (f" {self.text}" if self.text else "")


@dataclass
class Choice:
    label: str
    count: int = 0
    places: list[Place] = field(default_factory=list)  # the first KEPT_PLACES, by path

    def add(self, place: Place) -> None:
        self.count += 1
        if len(self.places) < KEPT_PLACES:
            self.places.append(place)

    def examples(self, n: int = 2) -> list[Place]:
        """`n` places from different files where it can."""
        chosen: list[Place] = []
        for place in self.places:
            if all(place.path != c.path for c in chosen):
                chosen.append(place)
            if len(chosen) == n:
                return chosen
        return chosen + [p for p in self.places if p not in chosen][: n - len(chosen)]


@dataclass
class Convention:
    language: str  # the group reported: python, go, typescript (with tsx), ...
    topic: str  # naming, errors, logging, tests, imports, formatting, libraries
    aspect: str  # functions, raise, logger, framework, indent, http, ...
    unit: str  # what is counted: definitions, lines, files, imports
    choices: list[Choice]  # most common first
    value: str = ""  # a measured figure instead of choices (the line length)

    @property
    def total(self) -> int:
        return sum(c.count for c in self.choices)

    def share(self, choice: Choice) -> float:
        return choice.count / self.total if self.total else 0.0

    @property
    def dominant(self) -> Choice | None:
        """The convention, when one choice holds DOMINANT of enough cases."""
        if not self.choices or self.total < MIN_CASES or self.share(self.choices[0]) < DOMINANT:
            return None
        return self.choices[0]

    def outliers(self) -> list[tuple[str, Place]]:
        """(choice, place) of every kept place that breaks the dominant choice, by path and line."""
        if self.dominant is None:
            return []
        found = [(c.label, p) for c in self.choices[1:] for p in c.places]
        return sorted(found, key=lambda item: (item[1].path, item[1].line))

    @property
    def outlier_count(self) -> int:
        return 0 if self.dominant is None else sum(c.count for c in self.choices[1:])


# -- the rules, read once ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Signal:
    label: str
    line: re.Pattern[str] | None = None
    module: str = ""
    path: re.Pattern[str] | None = None


@dataclass(frozen=True)
class Aspect:
    topic: str
    name: str
    signals: tuple[Signal, ...]
    per: str = "line"  # line | file
    first: bool = False
    files: str = "code"  # code | tests


@dataclass(frozen=True)
class Rules:
    languages: tuple[str, ...] = ()
    comment: str = ""
    masks: re.Pattern[str] | None = None  # blocks blanked before lines are read (docstrings, block comments)
    quotes: bool = False
    semicolons: bool = False
    builtin_errors: frozenset[str] = frozenset()
    naming_merge: dict[str, str] = field(default_factory=dict)
    aspects: tuple[Aspect, ...] = ()
    imports: dict[str, str] = field(default_factory=dict)  # relative / absolute -> label
    libraries: dict[str, dict[str, str]] = field(default_factory=dict)  # category -> module or line: -> label
    # A field whose line this matches is a constant of its class (`MAX_RETRIES = 3` in a Python class
    # body, a Java `static final`), named as constants are, not as fields.
    constant_fields: re.Pattern[str] | None = None


@functools.lru_cache(maxsize=1)
def _table() -> tuple[dict[str, Rules], dict[str, str]]:
    data = tomllib.loads(RULES_FILE.read_text("utf-8"))
    by_language: dict[str, Rules] = {}
    for spec in data["rules"].values():
        aspects = tuple(
            Aspect(a["topic"], a["name"], tuple(_signal(s) for s in a["signals"]), a.get("per", "line"),
                   a.get("first", False), a.get("files", "code"))
            for a in spec.get("aspect", ())
        )
        rules = Rules(
            tuple(spec["languages"]), spec.get("comment", ""),
            re.compile("|".join(spec["masks"])) if spec.get("masks") else None,
            spec.get("quotes", False), spec.get("semicolons", False),
            frozenset(spec.get("builtin_errors", ())), dict(spec.get("naming_merge", {})), aspects,
            dict(spec.get("imports", {})), {k: dict(v) for k, v in spec.get("libraries", {}).items()},
            re.compile(spec["constant_fields"]) if spec.get("constant_fields") else None,
        )
        for language in rules.languages:
            by_language[language] = rules
    return by_language, dict(data.get("groups", {}))


def _signal(spec: dict[str, str]) -> Signal:
    if "error" in spec:
        return Signal("", line=re.compile(spec["error"]))
    return Signal(
        spec["label"], line=re.compile(spec["line"]) if "line" in spec else None, module=spec.get("module", ""),
        path=re.compile(spec["path"]) if "path" in spec else None,
    )


def rules_of(language: str) -> Rules:
    """A language's rules; naming and formatting only for a language the table does not know."""
    return _table()[0].get(language, Rules())


def group_of(language: str) -> str:
    """The language a file is reported under (tsx with typescript)."""
    return _table()[1].get(language, language)


# -- naming ------------------------------------------------------------------------------------------

_STYLES = (
    ("UPPER_CASE", re.compile(r"[A-Z][A-Z0-9]*(_[A-Z0-9]+)+")),
    ("UPPERWORD", re.compile(r"[A-Z][A-Z0-9]+")),  # one word in capitals: a constant, or an initialism
    ("snake_case", re.compile(r"[a-z][a-z0-9]*(_[a-z0-9]+)+")),
    ("kebab-case", re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)+")),
    ("camelCase", re.compile(r"[a-z][a-z0-9]*([A-Z][a-z0-9]*)+")),
    ("PascalCase", re.compile(r"[A-Z][a-z0-9]+([A-Z][a-z0-9]*)*|[A-Z]+[a-z][A-Za-z0-9]*")),
)
NAMED_KINDS = {"class": "classes", "function": "functions", "method": "methods", "constant": "constants",
               "field": "fields"}
# What a style the table does not merge counts as, by kind: a word in capitals is a constant's
# UPPER_CASE, and says nothing of a class or function (`API`, `URL`: an initialism in any style).
_UPPERWORD = {"constant": "UPPER_CASE", "field": "UPPER_CASE"}


def naming_style(name: str) -> str | None:
    """snake_case, camelCase, PascalCase, UPPER_CASE, UPPERWORD (one word in capitals) or kebab-case;
    None for a name several of them write alike (`get`, `T`) or none does (`get_Value`). Leading and
    trailing underscores (private markers) are not part of the style."""
    core = name.strip("_$")
    if not core or core.isdigit():
        return None
    for style, pattern in _STYLES:
        if pattern.fullmatch(core):
            return style
    return None


def _naming(names: Iterable[Name], sources: Sequence[Source]) -> list[Convention]:
    counted: dict[tuple[str, str], dict[str, Choice]] = defaultdict(dict)
    texts = {source.path: source for source in sources}
    lines: dict[str, list[str]] = {}
    for item in names:
        if item.kind not in NAMED_KINDS or (item.name.startswith("__") and item.name.endswith("__")):
            continue
        kind = item.kind
        constant = rules_of(item.language).constant_fields
        if kind == "field" and constant is not None and item.path in texts:
            if item.path not in lines:
                lines[item.path] = code_lines(texts[item.path])
            written = lines[item.path]
            if 0 < item.line <= len(written) and constant.search(written[item.line - 1]):
                kind = "constant"
        style = _style_of(item.name, kind, item.language)
        if style is None:
            continue
        choices = counted[(group_of(item.language), NAMED_KINDS[kind])]
        choices.setdefault(style, Choice(style)).add(Place(item.path, item.line, item.name))
    for source in sources:
        stem = source.path.rsplit("/", 1)[-1].split(".", 1)[0]
        style = _style_of(stem, "file", source.language)
        if style is not None:
            choices = counted[(group_of(source.language), "files")]
            choices.setdefault(style, Choice(style)).add(Place(source.path, 1, source.path.rsplit("/", 1)[-1]))
    return [_convention(language, "naming", aspect, "definitions" if aspect != "files" else "files", choices)
            for (language, aspect), choices in counted.items()]


def _style_of(name: str, kind: str, language: str) -> str | None:
    style = naming_style(name)
    if style is None:
        return None
    merged = rules_of(language).naming_merge.get(style)
    if merged is None and style == "UPPERWORD":
        return _UPPERWORD.get(kind)
    return merged or style


def _convention(language: str, topic: str, aspect: str, unit: str, choices: dict[str, Choice]) -> Convention:
    ordered = sorted(choices.values(), key=lambda c: (-c.count, c.label))
    return Convention(language, topic, aspect, unit, ordered)


# -- signals: errors, logging, tests -------------------------------------------------------------------


def code_lines(source: Source) -> list[str]:
    """The file's lines with its masks (docstrings, block comments) blanked, numbered as in the file."""
    masks = rules_of(source.language).masks
    text = source.text if masks is None else masks.sub(lambda m: "\n" * m.group().count("\n"), source.text)
    return text.splitlines()


def _comment_line(line: str, comment: str) -> bool:
    stripped = line.lstrip()
    return bool(comment) and stripped.startswith(comment) or stripped.startswith(("*", "/*"))


def _signals(
    sources: Sequence[Source], imports: dict[str, list[Import]], classes: set[str], include_tests: bool
) -> list[Convention]:
    counted: dict[tuple[str, str, str, str], dict[str, Choice]] = defaultdict(dict)
    for source in sources:
        rules = rules_of(source.language)
        if not rules.aspects:
            continue
        language = group_of(source.language)
        lines = code_lines(source)
        modules = imports.get(source.path, [])
        for aspect in rules.aspects:
            if (source.role != "test") if aspect.files == "tests" else (source.role == "test" and not include_tests):
                continue
            choices = counted[(language, aspect.topic, aspect.name, aspect.per)]
            if aspect.per == "file":
                for label, place in _file_signals(aspect, source, lines, modules, rules.comment):
                    choices.setdefault(label, Choice(label)).add(place)
                continue
            for number, line in enumerate(lines, 1):
                if _comment_line(line, rules.comment):
                    continue
                for signal in aspect.signals:
                    label = _line_signal(signal, line, rules, classes)
                    if label:
                        choices.setdefault(label, Choice(label)).add(Place(source.path, number, line.strip()[:80]))
                        if aspect.first:
                            break
    return [
        _convention(language, topic, aspect, "files" if per == "file" else "lines", choices)
        for (language, topic, aspect, per), choices in counted.items() if choices
    ]


def _line_signal(signal: Signal, line: str, rules: Rules, classes: set[str]) -> str:
    if signal.line is None:
        return ""
    match = signal.line.search(line)
    if match is None:
        return ""
    if signal.label:
        return signal.label
    raised = match.group("error").rsplit(".", 1)[-1]
    if raised in rules.builtin_errors:
        return "builtin exceptions"
    if raised in classes:
        return "own exception classes"
    if not raised[:1].isupper():
        return "a variable (re-raised)"
    return "library exception classes"


def _file_signals(
    aspect: Aspect, source: Source, lines: list[str], modules: list[Import], comment: str
) -> list[tuple[str, Place]]:
    """(label, first place) of each signal the file shows (only the first that matches with `first`).
    An import counts for the signal naming the longest module it is in (`log/slog` is not `log`)."""
    claimed: dict[Signal, Import] = {}
    for item in modules:
        owners = [s for s in aspect.signals if s.module and (
            item.module == s.module or item.module.startswith((s.module + "/", s.module + ".")))]
        if owners:
            owner = max(owners, key=lambda s: len(s.module))
            claimed.setdefault(owner, item)
    found: list[tuple[str, Place]] = []
    for signal in aspect.signals:
        if any(label == signal.label for label, _ in found):
            continue
        place = None
        if signal.path is not None and signal.path.search(source.path):
            place = Place(source.path, 1, source.path.rsplit("/", 1)[-1])
        elif signal.module:
            hit = claimed.get(signal)
            place = Place(source.path, hit.line, f"import {hit.module}") if hit else None
        elif signal.line is not None:
            number = next((n for n, text in enumerate(lines, 1)
                           if signal.line.search(text) and not _comment_line(text, comment)), 0)
            place = Place(source.path, number, lines[number - 1].strip()[:80]) if number else None
        if place is not None:
            found.append((signal.label, place))
            if aspect.first:
                break
    return found


# -- imports and libraries ----------------------------------------------------------------------------


def _imports(imports: dict[str, list[Import]], sources: Sequence[Source]) -> list[Convention]:
    counted: dict[str, dict[str, Choice]] = defaultdict(dict)
    for source in sources:
        labels = rules_of(source.language).imports
        if not labels:
            continue
        seen: set[int] = set()
        for item in imports.get(source.path, ()):
            if item.line in seen or not (item.internal or item.level):
                continue
            seen.add(item.line)
            relative = item.level > 0 or item.module.startswith(".")
            label = labels["relative" if relative else "absolute"]
            counted[group_of(source.language)].setdefault(label, Choice(label)).add(
                Place(source.path, item.line, item.module if not item.level else "." * item.level + item.module))
    return [_convention(language, "imports", "project modules", "imports", choices)
            for language, choices in counted.items()]


def _libraries(imports: dict[str, list[Import]], sources: Sequence[Source]) -> list[Convention]:
    """The libraries each file imports, by category; the project's own packages are not libraries
    (Django's `django.db` inside Django, cobra inside cobra), even where an import stayed unresolved."""
    own = {i.module for items in imports.values() for i in items if i.internal and not i.level}
    counted: dict[tuple[str, str], dict[str, Choice]] = defaultdict(dict)
    for source in sources:
        rules = rules_of(source.language)
        for category, table in rules.libraries.items():
            seen: set[str] = set()
            for key, label in table.items():
                if label in seen or _is_own(key, own):
                    continue
                place = _library_place(key, source, imports.get(source.path, ()))
                if place is not None:
                    seen.add(label)
                    counted[(group_of(source.language), category)].setdefault(label, Choice(label)).add(place)
    return [_convention(language, "libraries", category, "files", choices)
            for (language, category), choices in counted.items()]


def _is_own(key: str, own: set[str]) -> bool:
    return not key.startswith("line:") and any(
        module == key or module.startswith((key + ".", key + "/")) for module in own)


def _library_place(key: str, source: Source, imports: Iterable[Import]) -> Place | None:
    if key.startswith("line:"):
        pattern = _pattern(key[5:])
        number = next((n for n, text in enumerate(code_lines(source), 1) if pattern.search(text)), 0)
        return Place(source.path, number, "") if number else None
    for item in imports:
        if not item.internal and not item.level and (
            item.module == key or item.module.startswith((key + ".", key + "/"))
        ):
            return Place(source.path, item.line, item.module)
    return None


@functools.lru_cache(maxsize=256)
def _pattern(text: str) -> re.Pattern[str]:
    return re.compile(text)


# -- formatting ---------------------------------------------------------------------------------------

_STRING = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')
_STATEMENT_END = re.compile(r"[\w)\]'\"`]\s*;?\s*$")
_TEMPLATE = re.compile(r"`[^`]*`")
_STATEMENTS = ("import ", "export ", "return ", "const ", "let ", "var ", "throw ")


def _formatting(sources: Sequence[Source]) -> list[Convention]:
    counted: dict[tuple[str, str], dict[str, Choice]] = defaultdict(dict)
    longest: dict[str, list[tuple[int, Place]]] = defaultdict(list)  # every code line's width
    files_longest: dict[str, list[int]] = defaultdict(list)  # each file's longest code line
    for source in sources:
        language = group_of(source.language)
        rules = rules_of(source.language)
        lines = code_lines(source)
        if not lines:
            continue
        indent = _indent(lines)
        if indent is not None:
            label, number = indent
            counted[(language, "indent")].setdefault(label, Choice(label)).add(Place(source.path, number))
        if rules.quotes:
            quote = _quotes(lines, rules.comment)
            if quote is not None:
                label, number = quote
                counted[(language, "quotes")].setdefault(label, Choice(label)).add(Place(source.path, number))
        if rules.semicolons:
            semi = _semicolons(lines, rules.comment)
            if semi is not None:
                label, number = semi
                counted[(language, "semicolons")].setdefault(label, Choice(label)).add(Place(source.path, number))
        # Comments and URLs run long in code kept to any limit (formatters leave them): the limit is
        # what the code itself keeps to.
        code = [(len(_code_part(line, rules.comment)), n) for n, line in enumerate(lines, 1)
                if line.strip() and "://" not in line and not _comment_line(line, rules.comment)]
        longest[language].extend((width, Place(source.path, n)) for width, n in code)
        files_longest[language].append(max((width for width, _ in code), default=0))
    found = [_convention(language, "formatting", aspect, "files", choices)
             for (language, aspect), choices in counted.items()]
    for language, widths in longest.items():
        # A limit a formatter keeps shows as the width 99 % of lines stay within (black's 88, a
        # printWidth of 100); long strings it cannot split make the rest.
        limit = _percentile([width for width, _ in widths], 0.99)
        within = Choice(f"lines up to {limit} characters")
        beyond = Choice(f"longer than {limit}")
        for width, place in sorted(widths, key=lambda item: -item[0]):
            (within if width <= limit else beyond).add(place)
        files_p95 = _percentile(files_longest[language], 0.95)
        found.append(Convention(language, "formatting", "line length", "lines", [within, beyond] if beyond.count
                                else [within], value=f"p99 of lines {limit}, p95 of each file's longest {files_p95}"))
    return found


def _percentile(values: list[int], share: float) -> int:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0


def _code_part(line: str, comment: str) -> str:
    """The line without a comment after its code (`x = 1  # why`), as far as a plain split can tell."""
    return (line.split(f" {comment} ", 1)[0] if comment else line).rstrip()


def _indent(lines: list[str]) -> tuple[str, int] | None:
    """The file's indentation: tabs, or the commonest step in spaces between a line and the next
    deeper one; with the line number of an example."""
    steps: dict[str, int] = defaultdict(int)
    first: dict[str, int] = {}
    previous = 0
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        if line.startswith("\t"):
            steps["tabs"] += 1
            first.setdefault("tabs", number)
            continue
        depth = len(line) - len(line.lstrip(" "))
        if depth > previous and depth - previous in (2, 3, 4, 8):
            label = f"{depth - previous} spaces"
            steps[label] += 1
            first.setdefault(label, number)
        previous = depth
    if not steps:
        return None
    label = max(steps, key=lambda key: (steps[key], key))
    return label, first[label]


def _quotes(lines: list[str], comment: str) -> tuple[str, int] | None:
    counts = {"double quotes": 0, "single quotes": 0}
    first: dict[str, int] = {}
    for number, line in enumerate(lines, 1):
        if '"""' in line or "'''" in line or _comment_line(line, comment):
            continue
        for literal in _STRING.findall(_TEMPLATE.sub("``", line)):  # quotes inside `...` are text
            if "'" in literal[1:-1] or '"' in literal[1:-1]:
                continue  # the other quote inside: no choice was made
            label = "double quotes" if literal[0] == '"' else "single quotes"
            counts[label] += 1
            first.setdefault(label, number)
    if not any(counts.values()):
        return None
    label = max(counts, key=lambda key: counts[key])
    return label, first[label]


def _semicolons(lines: list[str], comment: str) -> tuple[str, int] | None:
    with_semi = without = 0
    first: dict[str, int] = {}
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if not stripped or _comment_line(line, comment) or not _STATEMENT_END.search(stripped):
            continue
        if stripped.startswith(_STATEMENTS) or "=" in stripped:
            if stripped.endswith(";"):
                with_semi += 1
                first.setdefault("semicolons", number)
            else:
                without += 1
                first.setdefault("no semicolons", number)
    if with_semi + without < 3:
        return None
    label = "semicolons" if with_semi >= without else "no semicolons"
    return label, first[label]


# -- the whole report ---------------------------------------------------------------------------------

TOPICS = ("naming", "errors", "logging", "tests", "imports", "formatting", "libraries")


def find_conventions(
    sources: Sequence[Source], names: Sequence[Name], imports: Sequence[Import], *, include_tests: bool = False
) -> list[Convention]:
    """Every convention the code shows, by language and topic. `sources` holds test files too: they
    answer the questions about tests, and the others only with `include_tests`."""
    by_file: dict[str, list[Import]] = defaultdict(list)
    for item in imports:
        by_file[item.path].append(item)
    code = [s for s in sources if include_tests or s.role != "test"]
    kept = {s.path for s in code}
    classes = {n.name for n in names if n.kind == "class"}
    found = (
        _naming([n for n in names if n.path in kept], code)
        + _signals(sources, by_file, classes, include_tests)
        + _tests_layout(sources)
        + _imports(by_file, code)
        + _formatting(code)
        + _libraries(by_file, code)
    )
    order = {topic: n for n, topic in enumerate(TOPICS)}
    return sorted(found, key=lambda c: (c.language, order.get(c.topic, len(order)), -c.total, c.aspect))


_TESTS_DIR = re.compile(r"(^|/)(tests?|spec|specs|testing)/")
_DUNDER_TESTS = re.compile(r"(^|/)__tests__/")


def _tests_layout(sources: Sequence[Source]) -> list[Convention]:
    """Where test files live: a tests tree, __tests__ directories, or beside the code they test."""
    counted: dict[str, dict[str, Choice]] = defaultdict(dict)
    for source in sources:
        if source.role != "test" or source.path.rsplit("/", 1)[-1].startswith("conftest."):
            continue
        if _DUNDER_TESTS.search(source.path):
            label = "__tests__ directories"
        elif _TESTS_DIR.search(source.path):
            label = "a separate tests directory"
        else:
            label = "beside the code"
        counted[group_of(source.language)].setdefault(label, Choice(label)).add(Place(source.path, 1))
    return [_convention(language, "tests", "layout", "files", choices) for language, choices in counted.items()]
