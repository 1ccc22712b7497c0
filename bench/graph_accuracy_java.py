"""Reference-binding accuracy (Java): codefathom's call bindings checked against javac.

    python bench/graph_accuracy_java.py                        # OpenJDK 17.0.21's java.base
    python bench/graph_accuracy_java.py --limit 20000
    python bench/graph_accuracy_java.py --corpus ~/src/project --classpath 'lib/*' --json /tmp/accuracy-java.json

Needs a JDK (17 here: javac and java on PATH; no network). The oracle is the Java compiler itself:
a small program, ORACLE_JAVA below, written to bench/.corpora/java-oracle/Definitions.java and
compiled with javac on first use (again whenever its text here changed). It runs one `JavacTask`
(javax.tools / com.sun.source.util) over all the corpus's .java files, `parse()` then `analyze()`,
and walks every tree with a `TreePathScanner`: for each method call, `new` and method reference,
`Trees.getElement` gives the method or constructor javac bound it to (for `new Foo() {...}`, the
class Foo) and `Trees.getPath` of that element its declaration in the sources (none: outside). The
job goes to `java -Xmx6g -cp bench/.corpora/java-oracle Definitions job.tsv answers.json` in one
batch; the answers are every call javac sees, keyed by the position of the called name (1-based
line, UTF-16 column: of `foo` in `a.b.foo()` and `A::foo`, of `Foo` in `new a.Foo<>()`), and are
matched to our call refs by file, line and column (a ref with no javac call there, or another
name, is misaligned; javac's calls with no ref of ours are counted by form: `this(...)`,
`super(...)`, an enum constant's constructor call). Attribution errors go to a diagnostic
listener and are counted per file.

The pinned corpus is OpenJDK 17.0.21's `java.base` module (3,102 files; the quality lab's copy,
bench/.corpora/quality/src/jdk-java.base-17.0.21, from the JDK's src.zip in Debian's
openjdk-17-source, fetched by bench/lab/corpora.py when missing). Its sources are the module
java.base, so javac compiles them as that module with `--patch-module java.base=<root>`: the whole module,
module-info.java too, in about half a minute (javac 17.0.15 reports no error). A directory given
with --corpus is compiled the same way when its top module-info.java names a module of the JDK,
else as the unnamed module (module-info.java left out) with --classpath for its libraries. The
corpus is indexed with the real service (`codefathom.service.Codefathom`) into a temporary index
directory, and its `refs`, `symbols` and `files` tables are read read-only from SQLite; every call
ref (`refs.kind = 'call'`, files of language java) is scored, in every file javac compiled.
  oracle in-project  javac bound the call to a method or constructor declared in the corpus's
                     sources (not an implicit member: an enum's values(), a record's accessor, an
                     array's clone(); not a library)
  correct            our target is in the oracle's file, the line of the oracle's declaration
                     (its name) lies in our symbol's [start_line, end_line] and the names agree (a
                     constructor, or the class an anonymous class extends, answers with its
                     class's name: our class symbol or our constructor symbol of that name)
  overload           our target is another declaration of the same name in the same class
                     (qualified names agree, lines do not): Java overloads share a name. It
                     counts as wrong; the precision with overloads accepted is reported beside
  precision (label)  correct / bound refs of that label the oracle answered at all (an answer
                     outside the sources counts against us)
  recall             correct / calls the oracle resolves in-project (exact+high, and any label);
                     also over only the calls whose declaration codefathom has a symbol for, and
                     over those not labelled builtin (the binder takes String, List, Map, Object,
                     ... for the JDK's, outside the project: in java.base they are its own)
The oracle's answers are cached per corpus, JDK version and cache format
(bench/.corpora/<corpus>.javac-<version>.v<format>.json), so a re-run after a change to the binder
only re-indexes (about half a minute); `--no-cache` asks javac again. `--limit N` scores N call
refs spread over the corpus (javac still compiles it all). Mismatches and misses, grouped by
pattern (wrong or missed, label, why wrong, shape of the call, the oracle's category: where the
declaration sits and what it is) with examples, go to the JSON file (--json, default
bench/results/graph-accuracy-java.json).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from accuracy_report import print_lists, scratch_index, share, write_results  # the script directory is on sys.path
from graph_accuracy_ts import BOUND, LABELS, pct, utf16_column  # the script directory is on sys.path
from lab import corpora as lab_corpora
from sdist import spread_sample

BENCH_DIR = Path(__file__).resolve().parent
CORPORA = BENCH_DIR / ".corpora"
ORACLE_DIR = CORPORA / "java-oracle"
RESULTS = BENCH_DIR / "results"

PINNED = {"jdk": "jdk-java.base-17.0.21"}  # name -> the quality lab's corpus
DEFAULT_CORPORA = ("jdk",)
JAVAC_OPTIONS = (
    "-proc:none", "-implicit:none", "-Xlint:none", "-nowarn", "-XDsuppressNotes", "-encoding", "UTF-8",
    "-Xmaxerrs", "1000000",
    "-XDshould-stop.ifError=FLOW",  # attribute every class even after an error (javac stops at once by default)
)
HEAP = "6g"
CACHE_FORMAT = 1
EXAMPLES_PER_PATTERN = 8
TOP_PATTERNS = 40


# ----------------------------------------------------------------------------- corpus


def pinned_corpus(name: str) -> Path:
    """The pristine tree of a pinned corpus of the quality lab, fetched and unpacked on first use."""
    return lab_corpora.ensure_src(lab_corpora.BY_ID[PINNED.get(name, name)])


def java_files(root: Path) -> list[str]:
    """The corpus's .java files, relative to its root (not under .git)."""
    return sorted(
        path.relative_to(root).as_posix() for path in root.rglob("*.java")
        if path.is_file() and ".git" not in path.relative_to(root).parts
    )


def jdk_modules() -> set[str]:
    """The modules of the JDK that runs the oracle: `java --list-modules`."""
    listed = subprocess.run(["java", "--list-modules"], check=True, capture_output=True, text=True).stdout
    return {line.split("@")[0].strip() for line in listed.splitlines() if line.strip()}


def compile_plan(root: Path, classpath: str) -> tuple[list[str], list[str], str]:
    """(javac options, files, what the corpus is compiled as). Sources of a JDK module (a top
    module-info.java naming one) are patched into it; others are the unnamed module."""
    files = java_files(root)
    options = list(JAVAC_OPTIONS)
    info = root / "module-info.java"
    if info.is_file():
        text = re.sub(r"/\*.*?\*/|//[^\n]*", "", info.read_text(encoding="utf-8", errors="replace"), flags=re.S)
        found = re.search(r"\bmodule\s+([\w.]+)\s*\{", text)
        if found and found.group(1) in jdk_modules():
            return [*options, "--patch-module", f"{found.group(1)}={root}"], files, f"module {found.group(1)}"
    if classpath:
        options += ["-classpath", classpath]
    return options, [f for f in files if Path(f).name != "module-info.java"], "the unnamed module"


def java_version() -> str:
    """The version of the JDK the oracle runs in (javac's and java's must agree)."""
    if shutil.which("javac") is None or shutil.which("java") is None:
        raise SystemExit("the oracle is javac: a JDK's javac and java are needed on PATH")
    shown = subprocess.run(["javac", "-version"], check=True, capture_output=True, text=True)
    return (shown.stdout or shown.stderr).split()[-1]


# ----------------------------------------------------------------------------- our side


@dataclass(frozen=True, slots=True)
class Call:
    path: str
    line: int
    col: int  # 0-based byte column of the called name (tree-sitter)
    name: str
    receiver: str
    label: str
    confidence: float
    # path, start, end, name, qualified name, kind, parent (qualified name of the enclosing symbol)
    target: tuple[str, int, int, str, str, str, str] | None


Symbols = dict[str, list[tuple[int, int, str]]]  # path -> (start line, end line, name) of each symbol


def index_calls(root: Path) -> tuple[list[Call], Symbols, dict[str, Any]]:
    """The call refs of the corpus's Java files, every symbol, and index facts."""
    with scratch_index(root, "codefathom-accuracy-java-") as (conn, seconds):
        rows = conn.execute(
            "SELECT f.path, r.line, r.col, r.name, r.receiver, r.label, r.confidence,"
            " tf.path, s.start_line, s.end_line, s.name, s.qualified_name, s.kind, s.parent"
            " FROM refs r JOIN files f ON f.id = r.file_id"
            " LEFT JOIN symbols s ON s.id = r.target_id LEFT JOIN files tf ON tf.id = s.file_id"
            " WHERE r.kind = 'call' AND f.language = 'java' ORDER BY f.path, r.line, r.col"
        ).fetchall()
        statuses = dict(conn.execute("SELECT path, status FROM files WHERE language = 'java'").fetchall())
        symbols: Symbols = defaultdict(list)
        for path, start, end, name in conn.execute(
            "SELECT f.path, s.start_line, s.end_line, s.name FROM symbols s JOIN files f ON f.id = s.file_id"
        ):
            symbols[path].append((start, end, name))
    calls = [
        Call(p, line, col, name, receiver, label, conf,
             (tp, s, e, n, q, k, parent or "") if tp is not None else None)
        for p, line, col, name, receiver, label, conf, tp, s, e, n, q, k, parent in rows
    ]
    not_ok = sorted(path for path, status in statuses.items() if status != "ok")
    return calls, symbols, {"java_files": len(statuses), "files_not_ok": not_ok, "index_seconds": round(seconds, 2)}


# ----------------------------------------------------------------------------- the oracle's side

# The Java side: see its opening comment for the job and the answers.
ORACLE_JAVA = r"""// Written by bench/graph_accuracy_java.py: the declaration javac binds each method call,
// constructor call and method reference of a set of sources to.
//   java -cp DIR Definitions job.tsv answers.json
// job.tsv: `root<TAB>dir`, `option<TAB>javac option` (one a line), `file<TAB>path under root`.
// answers.json: {"javac": version, "declarations": [...], "sites": {path: [[line, column, form,
//   name, declaration], ...]}, "files", "compile_seconds", "errors", "error_files": {path: n},
//   "unlocated"}. A site is a call: the 1-based line and 0-based UTF-16 column of the called name
//   (of `foo` in `a.b.foo(x)` and `a::foo`, of `Foo` in `new a.Foo<>()`), its form (invoke | new |
//   anonymous | ref | this-super | enum-constant), the name, and the index of its declaration, -1
//   when javac bound it to nothing. A declaration: [path under the root or null, 1-based line of
//   its name, element kind, name (a constructor's is its class's), qualified name of the class it
//   is declared in, category, where it is when not in the sources].
import com.sun.source.tree.*;
import com.sun.source.util.*;
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;
import java.util.regex.*;
import javax.lang.model.element.*;
import javax.lang.model.type.TypeKind;
import javax.lang.model.util.Elements;
import javax.tools.*;

public class Definitions {
    static Path root;
    static Trees trees;
    static SourcePositions positions;
    static Elements elements;
    static final Map<CompilationUnitTree, CharSequence> texts = new HashMap<>();
    static final Map<String, Integer> errorsByFile = new TreeMap<>();
    static int errors;
    static int unlocated;
    static final Map<String, Integer> declarationIndex = new HashMap<>();
    static final List<String> declarations = new ArrayList<>();
    static final Map<Element, String> places = new HashMap<>();  // declaration -> its path and line

    public static void main(String[] args) throws IOException {
        long started = System.nanoTime();
        List<String> options = new ArrayList<>();
        List<Path> files = new ArrayList<>();
        for (String line : Files.readAllLines(Paths.get(args[0]), StandardCharsets.UTF_8)) {
            String[] parts = line.split("\t", -1);
            switch (parts[0]) {
                case "root": root = Paths.get(parts[1]).toAbsolutePath().normalize(); break;
                case "option": options.add(parts[1]); break;
                case "file": files.add(root.resolve(parts[1])); break;
                default: throw new IllegalArgumentException("bad job line: " + line);
            }
        }
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        DiagnosticListener<JavaFileObject> listener = diagnostic -> {
            if (diagnostic.getKind() != Diagnostic.Kind.ERROR) return;
            errors++;
            JavaFileObject source = diagnostic.getSource();
            String file = source == null ? null : relative(source);
            errorsByFile.merge(file == null ? "" : file, 1, Integer::sum);
        };
        StandardJavaFileManager manager = compiler.getStandardFileManager(listener, null, StandardCharsets.UTF_8);
        JavacTask task = (JavacTask) compiler.getTask(
            new PrintWriter(new OutputStreamWriter(System.err, StandardCharsets.UTF_8)), manager, listener, options,
            null, manager.getJavaFileObjectsFromPaths(files));
        Iterable<? extends CompilationUnitTree> units = task.parse();
        task.analyze();
        double compileSeconds = (System.nanoTime() - started) / 1e9;
        trees = Trees.instance(task);
        positions = trees.getSourcePositions();
        elements = task.getElements();

        StringBuilder out = new StringBuilder();
        out.append("{\"javac\": ").append(quote(System.getProperty("java.version")));
        out.append(", \"sites\": {");
        int unitCount = 0;
        int siteCount = 0;
        for (CompilationUnitTree unit : units) {
            Scanner scanner = new Scanner(unit);
            if (scanner.file == null) continue;
            scanner.scan(unit, null);
            out.append(unitCount++ == 0 ? "\n" : ",\n").append(quote(scanner.file)).append(": [");
            out.append(String.join(", ", scanner.sites.values())).append("]");
            siteCount += scanner.sites.size();
        }
        out.append("},\n\"declarations\": [").append(String.join(",\n", declarations)).append("]");
        out.append(",\n\"files\": ").append(unitCount);
        out.append(", \"compile_seconds\": ").append(String.format(Locale.ROOT, "%.1f", compileSeconds));
        out.append(", \"errors\": ").append(errors).append(", \"error_files\": {");
        String sep = "";
        for (Map.Entry<String, Integer> entry : errorsByFile.entrySet()) {
            out.append(sep).append(quote(entry.getKey())).append(": ").append(entry.getValue());
            sep = ", ";
        }
        out.append("}, \"unlocated\": ").append(unlocated).append("}\n");
        Files.write(Paths.get(args[1]), out.toString().getBytes(StandardCharsets.UTF_8));
        System.err.printf(Locale.ROOT, "  javac %s: %d files, %d errors, %d calls; %.1fs to attribute, %.1fs in all%n",
                          System.getProperty("java.version"), unitCount, errors, siteCount, compileSeconds,
                          (System.nanoTime() - started) / 1e9);
    }

    static String relative(JavaFileObject source) {
        Path path = Paths.get(source.toUri()).toAbsolutePath().normalize();
        return path.startsWith(root) ? root.relativize(path).toString().replace(File.separatorChar, '/') : null;
    }

    static CharSequence text(CompilationUnitTree unit) {
        return texts.computeIfAbsent(unit, u -> {
            try {
                return u.getSourceFile().getCharContent(true);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    static final class Scanner extends TreePathScanner<Void, Void> {
        final CompilationUnitTree unit;
        final String file;
        final CharSequence text;
        final Map<String, String> sites = new LinkedHashMap<>();  // "line:column" -> its JSON

        Scanner(CompilationUnitTree unit) {
            this.unit = unit;
            this.file = relative(unit.getSourceFile());
            this.text = text(unit);
        }

        void add(String form, String name, long position) {
            if (position < 0) return;
            boolean located = position + name.length() <= text.length()
                && text.subSequence((int) position, (int) position + name.length()).toString().equals(name);
            if (!located && form.equals("this-super")) return;  // the `super()` javac adds to a constructor
            LineMap lines = unit.getLineMap();
            long line = lines.getLineNumber(position);
            long column = position - lines.getStartPosition(line);
            String key = line + ":" + column;
            if (!located) {
                unlocated++;
                if (sites.containsKey(key)) return;
            }
            sites.put(key, "[" + line + ", " + column + ", " + quote(form) + ", " + quote(name) + ", "
                           + declaration(getCurrentPath(), form) + "]");
        }

        @Override
        public Void visitMethodInvocation(MethodInvocationTree node, Void unused) {
            ExpressionTree select = node.getMethodSelect();
            String name = null;
            long position = -1;
            if (select instanceof MemberSelectTree) {
                name = ((MemberSelectTree) select).getIdentifier().toString();
                position = positions.getEndPosition(unit, select) - name.length();
            } else if (select instanceof IdentifierTree) {
                name = ((IdentifierTree) select).getName().toString();
                position = positions.getStartPosition(unit, select);
            }
            if (name != null) {
                add(name.equals("this") || name.equals("super") ? "this-super" : "invoke", name, position);
            }
            return super.visitMethodInvocation(node, unused);
        }

        @Override
        public Void visitNewClass(NewClassTree node, Void unused) {
            Tree type = unwrap(node.getIdentifier());
            String form = node.getClassBody() != null ? "anonymous" : "new";
            TreePath parent = getCurrentPath().getParentPath();
            if (parent.getLeaf() instanceof VariableTree) {
                Element variable = trees.getElement(parent);
                if (variable != null && variable.getKind() == ElementKind.ENUM_CONSTANT) form = "enum-constant";
            }
            if (type instanceof MemberSelectTree) {
                String name = ((MemberSelectTree) type).getIdentifier().toString();
                add(form, name, positions.getEndPosition(unit, type) - name.length());
            } else if (type instanceof IdentifierTree) {
                add(form, ((IdentifierTree) type).getName().toString(), positions.getStartPosition(unit, type));
            }
            return super.visitNewClass(node, unused);
        }

        @Override
        public Void visitMemberReference(MemberReferenceTree node, Void unused) {
            String name = node.getName().toString();
            if (!name.equals("<init>")) add("ref", name, positions.getEndPosition(unit, node) - name.length());
            return super.visitMemberReference(node, unused);
        }
    }

    static Tree unwrap(Tree type) {
        if (type instanceof AnnotatedTypeTree) type = ((AnnotatedTypeTree) type).getUnderlyingType();
        if (type instanceof ParameterizedTypeTree) type = ((ParameterizedTypeTree) type).getType();
        if (type instanceof AnnotatedTypeTree) type = ((AnnotatedTypeTree) type).getUnderlyingType();
        return type;
    }

    static int declaration(TreePath site, String form) {
        String answer = answer(site, form);
        return answer == null ? -1 : declarationIndex.computeIfAbsent(answer, a -> {
            declarations.add(a);
            return declarations.size() - 1;
        });
    }

    static String answer(TreePath site, String form) {
        Element element = trees.getElement(site);
        if (form.equals("anonymous")) {  // `new Foo() {...}` makes a subclass of Foo: Foo stands for it
            element = trees.getElement(new TreePath(site, unwrap(((NewClassTree) site.getLeaf()).getIdentifier())));
        }
        if (element == null || element.asType().getKind() == TypeKind.ERROR) return null;
        String category;
        String name;
        TypeElement owner;
        Element declared = element;
        if (element instanceof TypeElement) {  // an anonymous class's supertype
            owner = (TypeElement) element;
            name = owner.getSimpleName().toString();
            category = "anonymous " + typeKind(owner);
        } else if (element instanceof ExecutableElement && element.getEnclosingElement() instanceof TypeElement) {
            owner = (TypeElement) element.getEnclosingElement();
            Set<Modifier> modifiers = element.getModifiers();
            String ownerKind = typeKind(owner);
            if (element.getKind() == ElementKind.CONSTRUCTOR) {
                name = owner.getSimpleName().toString();
                if (elements.getOrigin(element) == Elements.Origin.MANDATED) {
                    category = "default constructor";
                    declared = owner;  // javac's tree for it has no place of its own
                } else {
                    category = ownerKind.equals("class") ? "constructor" : ownerKind + " constructor";
                }
            } else {
                name = element.getSimpleName().toString();
                if (modifiers.contains(Modifier.STATIC)) {
                    category = ownerKind + " static method";
                } else if (ownerKind.equals("interface")) {
                    category = modifiers.contains(Modifier.DEFAULT) ? "interface default method"
                        : modifiers.contains(Modifier.PRIVATE) ? "interface private method" : "interface method";
                } else if (modifiers.contains(Modifier.ABSTRACT)) {
                    category = "abstract method";
                } else {
                    category = ownerKind + " method";
                }
            }
        } else {
            return null;
        }
        NestingKind nesting = owner.getNestingKind();
        if (nesting == NestingKind.LOCAL || nesting == NestingKind.ANONYMOUS) {
            category = (nesting == NestingKind.LOCAL ? "local-class " : "anonymous-class ") + category;
        }
        String place = places.computeIfAbsent(declared, Definitions::place);
        String where = "";
        if (place.startsWith("null")) {  // array's clone(), enum's values(), record's accessor; or a library's
            TypeElement top = outermost(owner);
            where = name.equals("clone") && owner.getSimpleName().contentEquals("Array") ? "array"
                : trees.getPath(top) != null ? "implicit" : top.getQualifiedName().toString();
        }
        return "[" + place + ", " + quote(element.getKind().toString()) + ", " + quote(name) + ", "
            + quote(owner.getQualifiedName().toString()) + ", " + quote(category) + ", " + quote(where) + "]";
    }

    // `"path", line` of a declaration in the sources, `null, 0` for one elsewhere
    static String place(Element declared) {
        TreePath path = trees.getPath(declared);
        String file = path == null || path.getCompilationUnit().getSourceFile() == null ? null
            : relative(path.getCompilationUnit().getSourceFile());
        return file == null ? "null, 0" : quote(file) + ", " + nameLine(path, declared.getSimpleName().toString());
    }

    static String typeKind(TypeElement type) {
        switch (type.getKind()) {
            case INTERFACE: return "interface";
            case ANNOTATION_TYPE: return "annotation";
            case ENUM: return "enum";
            case RECORD: return "record";
            default: return type.getModifiers().contains(Modifier.ABSTRACT) ? "abstract class" : "class";
        }
    }

    static TypeElement outermost(TypeElement type) {
        while (type.getEnclosingElement() instanceof TypeElement) type = (TypeElement) type.getEnclosingElement();
        return type;
    }

    // The line of a declaration's name: the first `name` after its modifiers, type parameters and
    // result type (the declaration itself starts at its first annotation).
    static long nameLine(TreePath path, String name) {
        CompilationUnitTree unit = path.getCompilationUnit();
        Tree leaf = path.getLeaf();
        long start = positions.getStartPosition(unit, leaf);
        long from = start;
        List<Tree> before = new ArrayList<>();
        if (leaf instanceof MethodTree) {
            MethodTree method = (MethodTree) leaf;
            before.add(method.getModifiers());
            before.addAll(method.getTypeParameters());
            before.add(method.getReturnType());
        } else if (leaf instanceof ClassTree) {
            before.add(((ClassTree) leaf).getModifiers());
        }
        for (Tree tree : before) {
            if (tree != null) from = Math.max(from, positions.getEndPosition(unit, tree));
        }
        Matcher matcher = Pattern.compile("(?<![\\w$])" + Pattern.quote(name) + "(?![\\w$])").matcher(text(unit));
        if (from >= 0 && matcher.find((int) from)) start = matcher.start();
        return unit.getLineMap().getLineNumber(start);
    }

    static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"').toString();
    }
}
"""


def oracle_ready() -> Path:
    """The oracle's directory, with Definitions.java written and compiled (again whenever this
    file's copy of it changed)."""
    ORACLE_DIR.mkdir(parents=True, exist_ok=True)
    source, compiled = ORACLE_DIR / "Definitions.java", ORACLE_DIR / "Definitions.class"
    if not source.exists() or source.read_text(encoding="utf-8") != ORACLE_JAVA or not compiled.exists():
        source.write_text(ORACLE_JAVA, encoding="utf-8")
        compiled.unlink(missing_ok=True)
        print(f"compiling {source} ...", file=sys.stderr)
        subprocess.run(["javac", "-Xlint:none", "-d", str(ORACLE_DIR), str(source)], check=True)
    return ORACLE_DIR


# One answer of the oracle: (path relative to the root or None, line of the declaration's name,
# element kind, name (a constructor's: its class's), qualified name of its class, category, where
# it is when not in the sources (implicit | array | the outermost class), form of the call)
Answer = tuple[str | None, int, str, str, str, str, str, str]
Key = tuple[str, int, int]  # path, line, byte column of the called name


def run_oracle(root: Path, options: list[str], files: list[str], heap: str) -> dict[str, Any]:
    """javac's answers for every call of the corpus (the Java program's answers.json)."""
    directory = oracle_ready()
    with tempfile.TemporaryDirectory(prefix="java-oracle-") as tmp:
        job_file, out_file = Path(tmp) / "job.tsv", Path(tmp) / "answers.json"
        lines = [f"root\t{root}", *(f"option\t{option}" for option in options), *(f"file\t{f}" for f in files)]
        job_file.write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"asking javac about every call in {len(files)} files ...", file=sys.stderr)
        started = time.perf_counter()
        subprocess.run(["java", f"-Xmx{heap}", "-cp", str(directory), "Definitions", str(job_file), str(out_file)],
                       check=True)
        result: dict[str, Any] = json.loads(out_file.read_text(encoding="utf-8"))
    result["oracle_run_seconds"] = round(time.perf_counter() - started, 1)
    return result


def ask_oracle(
    root: Path, calls: list[Call], options: list[str], files: list[str], version: str, cache_file: Path | None,
    heap: str,
) -> tuple[dict[Key, Answer | None], dict[str, Any]]:
    """javac's answer at each call of ours (None: javac bound the call to nothing; no key: javac
    has no call of that name there), from the cache when it has them, and facts of the run."""
    result: dict[str, Any] | None = None
    if cache_file is not None and cache_file.exists():
        result = json.loads(cache_file.read_text(encoding="utf-8"))
        if result.get("format") != CACHE_FORMAT or result.get("javac") != version:
            result = None
    cached = result is not None
    if result is None:
        result = run_oracle(root, options, files, heap)
        if result["javac"] != version:
            raise SystemExit(f"the oracle ran java {result['javac']}, not javac's {version}")
        result["format"] = CACHE_FORMAT
        if cache_file is not None:
            cache_file.parent.mkdir(parents=True, exist_ok=True)
            cache_file.write_text(json.dumps(result, separators=(",", ":")), encoding="utf-8")
    declarations = [tuple(d) for d in result["declarations"]]
    sites: dict[tuple[str, int, int], tuple[str, str, int]] = {
        (path, line, column): (form, name, index)
        for path, rows in result["sites"].items() for line, column, form, name, index in rows
    }
    line_cache: dict[str, list[bytes]] = {}
    oracle: dict[Key, Answer | None] = {}
    seen: set[tuple[str, int, int]] = set()
    misaligned: list[str] = []
    for call in calls:
        lines = line_cache.get(call.path)
        if lines is None:
            lines = line_cache[call.path] = (root / call.path).read_bytes().split(b"\n")
        column = utf16_column(lines[call.line - 1], call.col) if call.line <= len(lines) else call.col
        site = sites.get((call.path, call.line, column))
        if site is None or site[1] != call.name:
            misaligned.append(f"{call.path}:{call.line}:{call.col} {call.name}")
            continue
        seen.add((call.path, call.line, column))
        form, _, index = site
        oracle[(call.path, call.line, call.col)] = (*declarations[index], form) if index >= 0 else None
    unrecorded: dict[str, list[Any]] = {}  # javac's calls we have no ref at, by form: [count, examples...]
    for (path, line, column), (form, name, _) in sorted(sites.items()):
        if (path, line, column) not in seen:
            entry = unrecorded.setdefault(form, [0])
            entry[0] += 1
            if len(entry) <= 5:
                entry.append(f"{path}:{line} {name}")
    meta = {
        "javac": result["javac"], "compiled_as": "", "javac_files": result["files"], "javac_errors": result["errors"],
        "javac_error_files": result["error_files"], "javac_calls": len(sites), "oracle_cached": cached,
        # javac calls whose position does not hold the name (an enum constant's implicit `new`)
        "javac_calls_unlocated": result["unlocated"],
        "javac_attribute_seconds": result["compile_seconds"], "javac_run_seconds": result["oracle_run_seconds"],
        "misaligned_positions": len(misaligned), "misaligned_examples": misaligned[:10],
        "javac_calls_without_ref": dict(sorted(unrecorded.items(), key=lambda item: -item[1][0])),
        "oracle_none": sum(1 for a in oracle.values() if a is None),
    }
    return oracle, meta


def answer_category(answer: Answer) -> str:
    """Where the oracle's declaration sits and what it is, e.g. `interface method`, `constructor`."""
    path, _, _, _, _, category, where, _ = answer
    if path is not None:
        return category
    if where == "array":
        return "array clone"
    return f"implicit {category}" if where == "implicit" else f"library {category}"


# ----------------------------------------------------------------------------- scoring


def shape(receiver: str, form: str) -> str:
    """How the called name is reached: the pattern mismatches are grouped by. A head in capitals
    is a class (`Type.m()`, `Type.f.m()`), one all in capitals a constant (`CONST.m()`)."""
    if form in ("new", "anonymous"):
        written = "new a.Foo()" if receiver else "new Foo()"
        return written[:-2] + "() {...}" if form == "anonymous" else written
    call = "::m" if form == "ref" else ".m()"
    if not receiver:
        return "name()"
    if receiver in ("this", "super"):
        return receiver + call
    parts = receiver.split(".")
    if parts[0] == "this":
        return ("this.f" if len(parts) == 2 else "this.a.b") + call
    if receiver.startswith("("):
        return "(cast)" + call if re.match(r"\(\s*\(", receiver) else "(expr)" + call
    if receiver.startswith('"'):
        return '"literal"' + call
    if any(c in receiver for c in "()"):
        return "call()" + call
    if "[" in receiver:
        return "a[i]" + call
    if not all(part.replace("$", "_").isidentifier() for part in parts):
        return "expr" + call
    head = parts[0]
    if len(parts) == 1:
        if re.fullmatch(r"[A-Z][A-Z0-9_]+", head):
            return "CONST" + call
        return ("Type" if head[0].isupper() else "var") + call
    return ("Type.f" if head[0].isupper() else "a.b") + call


def nameable(answer: Answer, symbols: Symbols) -> bool:
    """codefathom has a symbol for the oracle's declaration: one of that name in its file whose
    lines hold the oracle's line (so a call to it is the binder's to get right)."""
    path, line, _, name = answer[:4]
    return any(start <= line <= end and n == name for start, end, n in symbols.get(path or "", ()))


def verdict(call: Call, answer: Answer | None) -> str:
    """correct | overload (another declaration of the name in the same class) | other-class (the
    same name in another class: an override, an implementation, a namesake) | other-name |
    oracle-outside (the oracle's declaration is not in the sources) | unbound (we have no target)."""
    if call.target is None:
        return "unbound"
    if answer is None or answer[0] is None:
        return "oracle-outside"
    path, start, end, name, qualified, kind, parent = call.target
    apath, aline, akind, aname, owner = answer[:5]
    if name != aname:
        return "other-name"
    if path == apath and start <= aline <= end:
        return "correct"
    if owner and (qualified == f"{owner}.{aname}" and kind != "class" or akind == "CONSTRUCTOR" and parent == owner):
        return "overload"
    return "other-class"


def score(calls: list[Call], oracle: dict[Key, Answer | None], symbols: Symbols) -> dict[str, Any]:
    """Counts per label, precision, recall, recall by the oracle's kind of declaration, and the
    mismatches grouped by pattern."""
    per_label: dict[str, Counter[str]] = {label: Counter() for label in LABELS}
    patterns: dict[str, list[dict[str, Any]]] = defaultdict(list)
    by_category: dict[str, Counter[str]] = defaultdict(Counter)
    wrong_why: dict[str, Counter[str]] = defaultdict(Counter)
    resolvable = 0
    recall: Counter[str] = Counter()
    for call in calls:
        key = (call.path, call.line, call.col)
        answer = oracle.get(key)
        counts = per_label.setdefault(call.label, Counter())
        counts["refs"] += 1
        why = verdict(call, answer)
        ok = why == "correct"
        in_project = answer is not None and answer[0] is not None
        resolvable += in_project
        if in_project:
            counts["oracle_in_project"] += 1
        elif answer is not None:
            counts["oracle_elsewhere"] += 1
        else:
            counts["oracle_none"] += 1
        checked = call.label in BOUND and answer is not None
        if checked:
            counts["checked"] += 1
            counts["correct"] += ok
            counts["overload"] += why == "overload"
        if ok:
            counts["recalled"] += 1
        category = answer_category(answer) if answer is not None else "none"
        if in_project:
            assert answer is not None
            trusted = ok and call.label in ("exact", "high")
            for key_, counted in (("in_project", True), ("recalled_exact_high", trusted), ("recalled_any", ok)):
                by_category[category][key_] += counted
                if nameable(answer, symbols):
                    recall[f"nameable_{key_}"] += counted
                if call.label != "builtin":
                    recall[f"not_builtin_{key_}"] += counted
        wrong = checked and not ok
        missed = in_project and not ok and not wrong
        if wrong:
            wrong_why[call.label][why] += 1
        if wrong or missed:
            assert answer is not None
            head = f"wrong {call.label} {why}" if wrong else f"missed {call.label}"
            pattern = f"{head} {shape(call.receiver, answer[7])} oracle={category}"
            patterns[pattern].append({
                "site": f"{call.path}:{call.line}",
                "call": f"{call.receiver}.{call.name}" if call.receiver else call.name,
                "ours": f"{call.target[4]} ({call.target[5]}, {call.target[0]}:{call.target[1]})"
                if call.target else None,
                "oracle": f"{answer[2].lower()} {answer[4]}.{answer[3]} "
                          + (f"{answer[0]}:{answer[1]}" if answer[0] else answer[6]),
            })
    table = {}
    for label in LABELS:
        c = per_label[label]
        table[label] = {
            "refs": c["refs"], "oracle_in_project": c["oracle_in_project"], "oracle_elsewhere": c["oracle_elsewhere"],
            "oracle_none": c["oracle_none"], "checked": c["checked"], "correct": c["correct"],
            "precision": share(c["correct"], c["checked"]),
            "overload": c["overload"],
            "precision_overload_ok": share(c["correct"] + c["overload"], c["checked"]),
            "recalled": c["recalled"],
        }

    def ratio(labels: tuple[str, ...], tops: tuple[str, ...], bottom: str) -> float | None:
        num = sum(per_label[label][top] for label in labels for top in tops)
        den = sum(per_label[label][bottom] for label in labels)
        return share(num, den)

    recalled_trusted = sum(per_label[label]["recalled"] for label in ("exact", "high"))
    recalled_any = sum(per_label[label]["recalled"] for label in BOUND)
    ordered = sorted(patterns.items(), key=lambda item: -len(item[1]))
    return {
        "calls": len(calls),
        "oracle_in_project": resolvable,
        "labels": table,
        "precision_exact_high": ratio(("exact", "high"), ("correct",), "checked"),
        "precision_bound": ratio(BOUND, ("correct",), "checked"),
        # an overload of the same method in the same class taken for the one javac chose counts as right
        "precision_exact_high_overload_ok": ratio(("exact", "high"), ("correct", "overload"), "checked"),
        "precision_bound_overload_ok": ratio(BOUND, ("correct", "overload"), "checked"),
        "wrong_by_reason": {label: dict(c.most_common()) for label, c in wrong_why.items()},
        "recall_exact_high": share(recalled_trusted, resolvable),
        "recall_any_label": share(recalled_any, resolvable),
        # the same, over the calls whose oracle answer is a declaration codefathom has a symbol for
        "oracle_nameable": recall["nameable_in_project"],
        "recall_exact_high_nameable": share(recall["nameable_recalled_exact_high"], recall["nameable_in_project"]),
        "recall_any_label_nameable": share(recall["nameable_recalled_any"], recall["nameable_in_project"]),
        # the same, leaving out the calls labelled builtin: String, List, Map, Object, ... are the JDK's,
        # builtins to the binder, but in this corpus the project's own
        "oracle_not_builtin": recall["not_builtin_in_project"],
        "recall_exact_high_not_builtin": share(recall["not_builtin_recalled_exact_high"],
                                               recall["not_builtin_in_project"]),
        "recall_any_label_not_builtin": share(recall["not_builtin_recalled_any"], recall["not_builtin_in_project"]),
        "in_project_by_category": dict(sorted(by_category.items(), key=lambda item: -item[1]["in_project"])),
        "patterns": [
            {"pattern": key, "count": len(items), "examples": items[:EXAMPLES_PER_PATTERN]}
            for key, items in ordered[:TOP_PATTERNS]
        ],
    }


def print_report(name: str, info: dict[str, Any], result: dict[str, Any]) -> None:
    errors = info["javac_error_files"]
    print(f"\n{name}: {info['java_files']} Java files ({len(info['files_not_ok'])} not parsed in full),"
          f" {result['calls']} call refs, {result['oracle_in_project']} resolved in-project by the oracle")
    print(f"javac {info['javac']} ({info['compiled_as']}): {info['javac_files']} files, {info['javac_errors']} errors"
          f" in {len(errors)} files, {info['javac_calls']} calls; our calls with no javac call there (misaligned):"
          f" {info['misaligned_positions']}; javac bound nothing at {info['oracle_none']}")
    without = ", ".join(f"{form} {entry[0]}" for form, entry in info["javac_calls_without_ref"].items())
    print(f"javac's calls with no call ref of ours, by form: {without or 'none'}")
    print(f"index {info['index_seconds']}s; oracle {info['oracle_seconds']}s"
          + (f" (cached; javac took {info['javac_run_seconds']}s" if info["oracle_cached"]
             else f" (javac {info['javac_run_seconds']}s") + f", {info['javac_attribute_seconds']}s to attribute)")
    print(f"{'label':10} {'refs':>7} {'javac in':>9} {'javac out':>10} {'none':>6} {'checked':>8}"
          f" {'correct':>8} {'precision':>9} {'overload':>9} {'+overload':>9}")
    for label, row in result["labels"].items():
        print(f"{label:10} {row['refs']:>7} {row['oracle_in_project']:>9} {row['oracle_elsewhere']:>10}"
              f" {row['oracle_none']:>6} {row['checked']:>8} {row['correct']:>8} {pct(row['precision']):>9}"
              f" {row['overload']:>9} {pct(row['precision_overload_ok']):>9}")
    print(f"precision exact+high {pct(result['precision_exact_high'])}, any label {pct(result['precision_bound'])}"
          f" (another overload accepted: {pct(result['precision_exact_high_overload_ok'])},"
          f" {pct(result['precision_bound_overload_ok'])});"
          f" recall exact+high {pct(result['recall_exact_high'])}, any label {pct(result['recall_any_label'])}")
    print(f"over the {result['oracle_nameable']} in-project answers codefathom has a symbol for: recall exact+high"
          f" {pct(result['recall_exact_high_nameable'])}, any label {pct(result['recall_any_label_nameable'])}")
    print(f"over the {result['oracle_not_builtin']} not labelled builtin (the binder's builtins are the JDK's types):"
          f" recall exact+high {pct(result['recall_exact_high_not_builtin'])},"
          f" any label {pct(result['recall_any_label_not_builtin'])}")
    for label, reasons in result["wrong_by_reason"].items():
        print(f"wrong {label}: " + ", ".join(f"{why} {n}" for why, n in reasons.items()))
    print_lists(result, "what the oracle's declaration is", 14, 34, 15)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", action="append",
                        help=f"{', '.join(PINNED)} or a directory (repeatable; default {', '.join(DEFAULT_CORPORA)})")
    parser.add_argument("--limit", type=int, default=0, help="score only N call refs, spread over the corpus")
    parser.add_argument("--json", type=Path, default=RESULTS / "graph-accuracy-java.json", help="where results go")
    parser.add_argument("--no-cache", action="store_true", help="ask the oracle again instead of reading its cache")
    parser.add_argument("--classpath", default="", help="javac's classpath for a directory's libraries")
    parser.add_argument("--heap", default=HEAP, help=f"the oracle's Java heap (default {HEAP})")
    args = parser.parse_args(argv)

    version = java_version()
    output: dict[str, Any] = {"javac": version, "python": sys.version.split()[0], "corpora": {}}
    for name in args.corpus or list(DEFAULT_CORPORA):
        if name in PINNED or name in PINNED.values():
            corpus_id = PINNED.get(name, name)
            root = pinned_corpus(name)
            label = corpus_id
            cache_name = f"{corpus_id}.javac-{version}.v{CACHE_FORMAT}.json"
            cache: Path | None = None if args.no_cache else CORPORA / cache_name
        else:
            root = Path(name).expanduser().resolve()
            label, cache = root.name, None
        all_calls, symbols, info = index_calls(root)
        options, files, compiled_as = compile_plan(root, args.classpath)
        started = time.perf_counter()
        # every call is matched (misaligned ones and javac's calls without a ref of ours are counted
        # over the whole corpus); --limit picks the ones scored
        oracle, meta = ask_oracle(root, all_calls, options, files, version, cache, args.heap)
        calls = spread_sample(all_calls, args.limit)
        info.update(meta)
        info["compiled_as"] = compiled_as
        info["oracle_seconds"] = round(time.perf_counter() - started, 1)
        compiled = set(files)
        calls = [call for call in calls if call.path in compiled]
        result = score(calls, oracle, symbols)
        print_report(label, info, result)
        output["corpora"][label] = {**info, **result}
    write_results(args.json, output)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
