"""Recall of `codefathom duplicates` on clones planted in a real project, and what else it reports.

    python bench/duplicates.py                          # urllib3 2.2.3 (the quality lab's copy), 40 clones
    python bench/duplicates.py --corpus PATH --clones 60 --seed 2 --similarity 0.8
    python bench/duplicates.py --corpus bench/.corpora/quality/src/cobra-1.6.1 --language go
    python bench/duplicates.py --corpus bench/.corpora/quality/src/gson-9835b6f --language java

A copy of the corpus gets `--clones` copies of its own functions (8+ lines and at least the verb's
floor of 40 tokens, `--min-tokens`; picked with a fixed seed)
in new files, each one changed as a person copying code would: every name renamed consistently
(Python's tokenizer, so the copy still parses), every number and string changed, and in every
second copy one line of the body deleted and one added. Then the copy is indexed and
`duplicates --limit 0` asked: a planted clone is found when it shares a group with its original.
Printed: recall by kind of change, the groups that hold no planted clone (the project's own
duplicates, to be judged by reading them), and the time the verb took.

Other languages (`--language go | java | typescript | javascript`): the functions and methods come
from codefathom's own parser, names are renamed and literals changed by a small tokenizer (a word
that is not one of the language's keywords is a name), the copy is written beside its original (Go:
in its package; Java: in a class of its own; a TypeScript or JavaScript method: in a class), and the
edited half has one body line replaced by a declaration.
"""

from __future__ import annotations

import argparse
import ast
import io
import keyword
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tokenize
from pathlib import Path

from codefathom.graph.clones import tokens

BENCH = Path(__file__).resolve().parent
DEFAULT = BENCH / ".corpora" / "quality" / "src" / "urllib3-2.2.3"


def functions(root: Path) -> list[tuple[Path, ast.FunctionDef, str]]:
    found = []
    for path in sorted(root.rglob("*.py")):
        if "test" in path.parts or path.name.startswith("test_"):
            continue
        source = path.read_text("utf-8", errors="replace")
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        lines = source.splitlines()
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.end_lineno and node.end_lineno - node.lineno >= 8:
                text = "\n".join(lines[node.lineno - 1 : node.end_lineno])
                indent = len(text) - len(text.lstrip())
                found.append((path, node, "\n".join(line[indent:] for line in text.splitlines())))
    return found


def disguise(text: str, number: int, edit: bool, rng: random.Random) -> str:
    """The function with every name renamed, every literal changed and, when `edit`, one body line
    dropped and one added."""
    names: dict[str, str] = {}
    out = []
    for token in tokenize.generate_tokens(io.StringIO(text + "\n").readline):
        kind, value = token.type, token.string
        if kind == tokenize.NAME and not keyword.iskeyword(value) and value not in ("self", "cls"):
            value = names.setdefault(value, f"v{number}_{len(names)}")
        elif kind == tokenize.NUMBER and value.isdigit():
            value = str(int(value) + 7)
        elif kind == tokenize.STRING and not value.startswith(('"""', "'''", 'f"', "f'", 'b"', "b'")):
            value = repr(f"planted {number} {len(value)}")
        out.append((kind, value))
    changed = tokenize.untokenize(out)
    if edit:
        lines = changed.splitlines()
        candidates = [i for i in range(2, len(lines) - 1) if lines[i].strip()]
        rng.shuffle(candidates)
        for drop in candidates:  # the first line whose replacement still parses (a whole statement)
            indent = lines[drop][: len(lines[drop]) - len(lines[drop].lstrip())]
            edited = "\n".join([*lines[:drop], f"{indent}planted_{number} = len(str({number}))", *lines[drop + 1:]])
            try:
                ast.parse(edited)
            except SyntaxError:
                continue
            changed = edited
            break
    ast.parse(changed)  # still Python
    return changed


KEYWORDS = {
    "go": """break case chan const continue default defer else fallthrough for func go goto if import interface
        map package range return select struct switch type var nil true false""",
    "java": """abstract assert boolean break byte case catch char class const continue default do double else enum
        extends final finally float for goto if implements import instanceof int interface long native new
        package private protected public return short static strictfp super switch synchronized this throw
        throws transient try void volatile while var null true false""",
    "typescript": """break case catch class const continue debugger default delete do else enum export extends false
        finally for function if import in instanceof new null return super switch this throw true try typeof
        var void while with let static yield async await of as implements interface package private
        protected public readonly type declare get set undefined""",
}
KEYWORDS["javascript"] = KEYWORDS["typescript"]
EXTENSIONS = {"go": ".go", "java": ".java", "typescript": ".ts", "javascript": ".js"}
EDIT_LINE = {"go": "planted{n} := {n}", "java": "int planted{n} = {n};", "typescript": "const planted{n} = {n};",
             "javascript": "const planted{n} = {n};"}
_TOKEN = re.compile(
    r"""//[^\n]*|/\*.*?\*/"""  # comments, kept as they are
    r"""|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|`[^`]*`"""  # strings
    r"""|[A-Za-z_$][\w$]*|\d+|\s+|.""",
    re.S,
)


def units_of(root: Path, language: str) -> list[tuple[Path, int, str, str]]:
    """(file, first line, kind, text) of each function or method of 8-80 lines outside tests."""
    from codefathom.parse import parse
    from codefathom.search.roles import path_role

    found = []
    for path in sorted(root.rglob(f"*{EXTENSIONS[language]}")):
        relative = path.relative_to(root).as_posix()
        if path_role(relative) != "source" or relative.endswith(".d.ts"):
            continue
        text = path.read_text("utf-8", errors="replace")
        lines = text.splitlines()
        for unit in parse(relative, text).units:
            size = unit.end_line - unit.start_line
            if unit.kind in ("function", "method") and 8 <= size <= 80 and unit.part <= 1:
                found.append((path, unit.start_line, unit.kind, "\n".join(lines[unit.start_line - 1 : unit.end_line])))
    return found


def disguise_any(text: str, language: str, number: int, edit: bool, rng: random.Random) -> str:
    """The code with every name renamed, every number and string changed, and, when `edit`, one body
    line replaced by a declaration."""
    keywords = set(KEYWORDS[language].split())
    names: dict[str, str] = {}
    out = []
    for token in _TOKEN.findall(text):
        if re.fullmatch(r"[A-Za-z_$][\w$]*", token) and token not in keywords:
            token = names.setdefault(token, f"v{number}_{len(names)}")
        elif token.isdigit():
            token = str(int(token) + 7)
        elif token[:1] in "\"'" and len(token) >= 2:
            token = f'"planted {number} {len(token)}"'
        out.append(token)
    changed = "".join(out)
    if edit:
        lines = changed.splitlines()
        candidates = [i for i in range(2, len(lines) - 2) if lines[i].strip().endswith((";", ")")) or language == "go"
                      and lines[i].strip() and not lines[i].strip().endswith(("{", "}", ","))]
        if candidates:
            drop = rng.choice(candidates)
            indent = lines[drop][: len(lines[drop]) - len(lines[drop].lstrip())]
            lines[drop] = indent + EDIT_LINE[language].format(n=number)
            changed = "\n".join(lines)
    return changed


def plant_any(
    root: Path, language: str, clones: int, rng: random.Random, min_tokens: int
) -> dict[str, tuple[str, int, bool]]:
    """Planted copies beside their originals: clone path -> (original path, first line, edited)."""
    picked = rng.sample([u for u in units_of(root, language) if len(tokens(u[3])) >= min_tokens], clones)
    planted = {}
    for number, (path, line, kind, text) in enumerate(picked):
        edit = number % 2 == 1
        body = disguise_any(text, language, number, edit, rng)
        original = path.read_text("utf-8", errors="replace")
        package = re.search(r"^package\s+[\w.]+;?", original, re.M)
        head = (package.group(0) + "\n\n") if package and language in ("go", "java") else ""
        if language == "java" or (kind == "method" and language != "go"):
            body = f"class Planted{number} {{\n{body}\n}}"
        target = path.with_name(f"planted_clone_{number}{EXTENSIONS[language]}")
        target.write_text(head + body + "\n")
        planted[target.relative_to(root).as_posix()] = (path.relative_to(root).as_posix(), line, edit)
    return planted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=DEFAULT)
    parser.add_argument("--clones", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--similarity", default="0.9", help="passed to `duplicates --similarity`")
    parser.add_argument("--min-tokens", type=int, default=40,
                        help="copy only functions of this many tokens or more (the verb's floor: 40; 0: any)")
    parser.add_argument("--language", default="python", choices=["python", *EXTENSIONS],
                        help="the language whose functions are copied (python: the original tokenizer-based copies)")
    args = parser.parse_args()
    if not args.corpus.is_dir():
        raise SystemExit(f"{args.corpus} is missing: `python bench/quality.py fetch` downloads the lab corpora")
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="codefathom-clones-") as tmp:
        root = Path(tmp) / "project"
        shutil.copytree(args.corpus, root, ignore=shutil.ignore_patterns(".git"))
        planted = {}
        if args.language != "python":
            planted = plant_any(root, args.language, args.clones, rng, args.min_tokens)
        else:
            # functions under the verb's floor cannot be found, by design: they are left out
            pool = [f for f in functions(root) if len(tokens(f[2])) >= args.min_tokens]
            for number, (path, node, text) in enumerate(rng.sample(pool, args.clones)):
                edit = number % 2 == 1
                target = root / "planted" / f"clone_{number}.py"
                target.parent.mkdir(exist_ok=True)
                target.write_text(disguise(text, number, edit, rng) + "\n")
                planted[str(target.relative_to(root))] = (str(path.relative_to(root)), node.lineno, edit)
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
        env_home = Path(tmp) / "home"
        run = [sys.executable, "-m", "codefathom"]
        env = {"CODEFATHOM_HOME": str(env_home), "CODEFATHOM_EMBEDDER": "none", "PATH": "/usr/bin:/bin"}
        subprocess.run([*run, "index", str(root), "--quiet"], check=True, env=env)
        started = time.perf_counter()
        ask = ["duplicates", "-p", str(root), "--limit", "0", "--json", "--no-sync", "--similarity", args.similarity]
        result = subprocess.run([*run, *ask],
                                capture_output=True, text=True, env=env)
        seconds = time.perf_counter() - started
    import json

    groups = json.loads(result.stdout)["groups"] if result.stdout else []
    found = {True: 0, False: 0}
    missed = []
    for clone, (original, line, edit) in planted.items():
        for group in groups:
            paths = {(u["path"], u["start_line"]) for u in group["units"]}
            if any(p == clone for p, _ in paths) and any(p == original and s <= line <= s + 2 for p, s in paths):
                found[edit] += 1
                break
        else:
            missed.append(f"{clone} (of {original}:{line}{', edited' if edit else ''})")
    own = [g for g in groups if not any(u["path"] in planted for u in g["units"])]
    half = args.clones // 2
    print(f"corpus {args.corpus.name}, {args.clones} clones planted (seed {args.seed}), similarity {args.similarity},"
          f" duplicates took {seconds:.1f} s")
    print(f"  renamed, literals changed:            {found[False]}/{args.clones - half}")
    print(f"  ... and one line dropped, one added:  {found[True]}/{half}")
    print(f"  recall {sum(found.values()) / args.clones:.2f}; groups without a planted clone: {len(own)}")
    for miss in missed:
        print(f"    missed {miss}")
    for group in own:
        units = ", ".join(f"{u['path']}:{u['start_line']} {u['name'].rsplit('.', 1)[-1]}" for u in group["units"])
        print(f"    {group['copies']} x {group['lines']} lines, {group['similarity']:.2f}: {units}")


if __name__ == "__main__":
    main()
