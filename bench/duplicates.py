"""Recall of `codefathom duplicates` on clones planted in a real project, and what else it reports.

    python bench/duplicates.py                          # urllib3 2.2.3 (the quality lab's copy), 40 clones
    python bench/duplicates.py --corpus PATH --clones 60 --seed 2 --similarity 0.8

A copy of the corpus gets `--clones` copies of its own functions (8+ lines, picked with a fixed seed)
in new files, each one changed as a person copying code would: every name renamed consistently
(Python's tokenizer, so the copy still parses), every number and string changed, and in every
second copy one line of the body deleted and one added. Then the copy is indexed and
`duplicates --limit 0` asked: a planted clone is found when it shares a group with its original.
Printed: recall by kind of change, the groups that hold no planted clone (the project's own
duplicates, to be judged by reading them), and the time the verb took.
"""

from __future__ import annotations

import argparse
import ast
import io
import keyword
import random
import shutil
import subprocess
import sys
import tempfile
import time
import tokenize
from pathlib import Path

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=DEFAULT)
    parser.add_argument("--clones", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--similarity", default="0.9", help="passed to `duplicates --similarity`")
    args = parser.parse_args()
    if not args.corpus.is_dir():
        raise SystemExit(f"{args.corpus} is missing: `python bench/quality.py fetch` downloads the lab corpora")
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="codefathom-clones-") as tmp:
        root = Path(tmp) / "project"
        shutil.copytree(args.corpus, root, ignore=shutil.ignore_patterns(".git"))
        picked = rng.sample(functions(root), args.clones)
        planted = {}
        for number, (path, node, text) in enumerate(picked):
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
    for clone, (original, line, edit) in planted.items():
        for group in groups:
            paths = {(u["path"], u["start_line"]) for u in group["units"]}
            if any(p == clone for p, _ in paths) and any(p == original and s <= line <= s + 2 for p, s in paths):
                found[edit] += 1
                break
    own = [g for g in groups if not any(u["path"].startswith("planted/") for u in g["units"])]
    half = args.clones // 2
    print(f"corpus {args.corpus.name}, {args.clones} clones planted (seed {args.seed}), similarity {args.similarity},"
          f" duplicates took {seconds:.1f} s")
    print(f"  renamed, literals changed:            {found[False]}/{args.clones - half}")
    print(f"  ... and one line dropped, one added:  {found[True]}/{half}")
    print(f"  recall {sum(found.values()) / args.clones:.2f}; groups without a planted clone: {len(own)}")
    for group in own:
        units = ", ".join(f"{u['path']}:{u['start_line']} {u['name'].rsplit('.', 1)[-1]}" for u in group["units"])
        print(f"    {group['copies']} x {group['lines']} lines, {group['similarity']:.2f}: {units}")


if __name__ == "__main__":
    main()
