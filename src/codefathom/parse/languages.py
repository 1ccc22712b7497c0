"""The table of languages: file extensions, grammar, query file and the few facts a query cannot say.

A language is supported iff it has a row here and its query files in `queries/` (`<name>.scm` by default).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

__all__ = ["LanguageSpec", "LANGUAGES", "language_for", "MARKDOWN", "TEXT"]

MARKDOWN = "markdown"
TEXT = "text"


@dataclass(frozen=True)
class LanguageSpec:
    name: str
    extensions: tuple[str, ...]
    grammar_module: str  # the pip-installed grammar wheel's module
    grammar_function: str = "language"
    filenames: tuple[str, ...] = ()  # extensionless files such as Rakefile
    # How a definition's doc is written: "docstring" (first string in the body) or "comments"
    # (the comments directly above it).
    doc_style: str = "comments"
    # Parent node types that belong to a definition (decorators, export keywords).
    wrappers: tuple[str, ...] = ()
    # How names are qualified beyond their enclosing definitions: "path" derives a module path from
    # the file path, "package" uses the query's @package capture, "" leaves them as they are.
    qualifier: str = ""
    path_roots: tuple[str, ...] = ()  # leading directories a module path does not include
    index_names: tuple[str, ...] = ()  # file stems that stand for their directory (__init__, mod)
    # Query files (without .scm) joined into this language's query; empty means just `<name>.scm`.
    queries: tuple[str, ...] = ()

    @property
    def query_files(self) -> tuple[str, ...]:
        return self.queries or (self.name,)


# `export`, `declare` and a bare `namespace X {}` statement belong to the definition they wrap.
_TS_WRAPPERS = ("export_statement", "ambient_declaration", "expression_statement")

LANGUAGES: tuple[LanguageSpec, ...] = (
    LanguageSpec(
        "python", (".py", ".pyi", ".pyw"), "tree_sitter_python",
        doc_style="docstring", wrappers=("decorated_definition",), qualifier="path",
        path_roots=("src", "lib"), index_names=("__init__",),
    ),
    LanguageSpec(
        "javascript", (".js", ".mjs", ".cjs", ".jsx"), "tree_sitter_javascript",
        wrappers=("export_statement",), queries=("javascript", "ecmascript"),
    ),
    LanguageSpec(
        "typescript", (".ts", ".mts", ".cts"), "tree_sitter_typescript", "language_typescript",
        wrappers=_TS_WRAPPERS, queries=("typescript", "ecmascript"),
    ),
    LanguageSpec(
        "tsx", (".tsx",), "tree_sitter_typescript", "language_tsx",
        wrappers=_TS_WRAPPERS, queries=("typescript", "ecmascript"),
    ),
    LanguageSpec("go", (".go",), "tree_sitter_go", qualifier="package"),
    LanguageSpec("java", (".java",), "tree_sitter_java", qualifier="package"),
    LanguageSpec(
        "rust", (".rs",), "tree_sitter_rust", qualifier="path",
        path_roots=("src",), index_names=("mod", "lib", "main"),
    ),
    LanguageSpec("c", (".c", ".h"), "tree_sitter_c", wrappers=("type_definition",), queries=("c", "cfamily")),
    LanguageSpec(
        "cpp", (".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++", ".ipp", ".tpp"),
        "tree_sitter_cpp", wrappers=("template_declaration", "type_definition"), queries=("cpp", "cfamily"),
    ),
    LanguageSpec("csharp", (".cs",), "tree_sitter_c_sharp", qualifier="package"),
    LanguageSpec(
        "ruby", (".rb", ".rake", ".gemspec", ".ru"), "tree_sitter_ruby",
        filenames=("Rakefile", "Gemfile", "Guardfile", "Vagrantfile"),
    ),
    LanguageSpec("php", (".php", ".phtml"), "tree_sitter_php", "language_php", qualifier="package"),
    LanguageSpec(
        "kotlin", (".kt", ".kts"), "tree_sitter_kotlin", wrappers=("annotated_expression",), qualifier="package",
    ),
    LanguageSpec("scala", (".scala", ".sc"), "tree_sitter_scala", qualifier="package"),
    LanguageSpec("swift", (".swift",), "tree_sitter_swift"),
    LanguageSpec("bash", (".sh", ".bash"), "tree_sitter_bash"),
)

_BY_EXTENSION = {ext: spec for spec in LANGUAGES for ext in spec.extensions}
_BY_NAME = {spec.name: spec for spec in LANGUAGES}
# An extension two languages share, told apart by what the text says: a `.h` header that declares a
# class, a namespace or a template, or names `std::`, is C++ (C has none of these).
_DIALECTS: dict[str, tuple[str, re.Pattern[str]]] = {
    ".h": (
        "cpp",
        re.compile(
            r"^\s*(?:template\s*<|namespace\s+\w*\s*\{|using\s+namespace\s|class\s+\w+[^;()]*\{"
            r"|(?:public|private|protected)\s*:)|\bstd::",
            re.MULTILINE,
        ),
    ),
}
_BY_FILENAME = {name: spec for spec in LANGUAGES for name in spec.filenames}
_MARKDOWN_EXTENSIONS = (".md", ".markdown", ".mdx")
# A script without an extension (`bin/deploy`) says what runs it on its first line:
# `#!/bin/bash`, `#!/usr/bin/env -S python3 -u`. Interpreter (version digits dropped) -> language.
_INTERPRETERS = {
    "bash": "bash", "sh": "bash", "dash": "bash", "ksh": "bash", "zsh": "bash", "python": "python",
    "node": "javascript", "nodejs": "javascript", "deno": "typescript", "ruby": "ruby", "php": "php",
}
_SHEBANG = re.compile(r"#!\s*(\S+)(?:[ \t]+(.*))?")


def language_for(path: str, text: str | None = None) -> LanguageSpec | str:
    """The spec of the grammar that parses `path` (its text, when given, settles an extension two
    languages share), else MARKDOWN or TEXT."""
    pure = PurePosixPath(path)
    spec = _BY_FILENAME.get(pure.name) or _BY_EXTENSION.get(pure.suffix.lower())
    dialect = _DIALECTS.get(pure.suffix.lower())
    if spec is not None and dialect is not None and text is not None and dialect[1].search(text):
        return _BY_NAME[dialect[0]]
    if spec is not None:
        return spec
    if pure.suffix.lower() in _MARKDOWN_EXTENSIONS:
        return MARKDOWN
    if not pure.suffix and text is not None and text.startswith("#!"):
        return _by_shebang(text.split("\n", 1)[0]) or TEXT
    return TEXT


def _by_shebang(line: str) -> LanguageSpec | None:
    found = _SHEBANG.match(line)
    if found is None:
        return None
    program, rest = PurePosixPath(found.group(1)).name, (found.group(2) or "").split()
    if program == "env":  # `env [-S] [VAR=x] python3`: the first word that is not an option or setting
        program = next((word for word in rest if not word.startswith("-") and "=" not in word), "")
    name = _INTERPRETERS.get(program.rstrip("0123456789.").lower())
    return _BY_NAME.get(name) if name else None
