"""C and C++ attribute-like macros: what hiding them from the parser changes and costs.

    python bench/c_macros.py                          # the lab's C and C++ corpora, as published (not stripped)
    python bench/c_macros.py --dir ~/src/fmt --lang cpp

Per corpus: its C or C++ files parsed by tree-sitter as written and as `parse/hooks/cmacros.py`
gives them to the parser; syntax-error nodes (ERROR and missing), files with any, files that get more
with the macros hidden (there should be none), and the time the hiding and the parse take.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import tree_sitter  # noqa: E402
import tree_sitter_c  # noqa: E402
import tree_sitter_cpp  # noqa: E402
from lab import corpora  # noqa: E402

from codefathom.parse.hooks.cmacros import without_attribute_macros  # noqa: E402

SUFFIXES = {"c": (".c", ".h"), "cpp": (".h", ".hh", ".hpp", ".hxx", ".cc", ".cpp", ".cxx", ".ipp", ".tpp")}
GRAMMARS = {"c": tree_sitter_c, "cpp": tree_sitter_cpp}


def errors(tree: tree_sitter.Tree) -> int:
    count, stack = 0, [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            count += 1
        else:
            stack.extend(node.children)
    return count


def measure(name: str, root: Path, lang: str) -> None:
    parser = tree_sitter.Parser(tree_sitter.Language(GRAMMARS[lang].language()))
    files = [p for p in sorted(root.rglob("*")) if p.is_file() and p.suffix in SUFFIXES[lang]]
    if lang == "cpp":  # Eigen's headers have no suffix (Eigen/Dense)
        files += [p for p in sorted(root.rglob("*")) if p.is_file() and not p.suffix and p.parent.name == "Eigen"]
    before = after = with_before = with_after = worse = 0
    hiding = parsing = 0.0
    for path in files:
        data = path.read_bytes()
        t0 = time.perf_counter()
        hidden = without_attribute_macros(data)
        t1 = time.perf_counter()
        written = errors(parser.parse(data))
        t2 = time.perf_counter()
        seen = errors(parser.parse(hidden))
        hiding, parsing = hiding + t1 - t0, parsing + t2 - t1
        before, after = before + written, after + seen
        with_before, with_after, worse = with_before + (written > 0), with_after + (seen > 0), worse + (seen > written)
    print(f"{name:24} {len(files):5} files  error nodes {before:,} -> {after:,}  files with errors "
          f"{with_before} -> {with_after}  worse {worse}  hiding {hiding:.2f} s, parse {parsing:.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dir", type=Path, help="a directory of C or C++ code instead of the lab's corpora")
    parser.add_argument("--lang", choices=sorted(GRAMMARS), default="cpp")
    args = parser.parse_args()
    if args.dir:
        measure(args.dir.name, args.dir, args.lang)
        return
    for corpus in corpora.CORPORA:
        if corpus.language in ("C", "C++"):
            measure(corpus.id, corpora.ensure_src(corpus), "c" if corpus.language == "C" else "cpp")


if __name__ == "__main__":
    main()
