// Command go_oracle tells, for a batch of identifier positions in a Go module, where go/types says
// each one is declared: the reference oracle of bench/graph_accuracy_go.py (standard library only).
//
//	go_oracle job.json answers.json
//
// The job is {"root": dir, "module": module path, "queries": [[file, line, column], ...]} with
// 1-based lines and 0-based byte columns; the answers are one list per query (empty when go/types
// has no use there). Every package of the module is type-checked from source for linux/amd64, its
// in-package tests with it; the standard library is read from GOROOT; packages from other modules
// are empty stand-ins, so their members stay unresolved. Type errors are ignored.
package main

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

type job struct {
	Root    string   `json:"root"`
	Module  string   `json:"module"`
	Queries [][3]any `json:"queries"`
}

// answer: where the declaration is. Path is relative to the root, or empty outside it (then
// Outside names the package).
type answer struct {
	Path    string `json:"path"`
	Line    int    `json:"line"`
	Kind    string `json:"kind"` // func, method, field, var, const, type, package, builtin, label
	Name    string `json:"name"`
	Recv    string `json:"recv"` // a method's receiver type, a field's struct type when named
	Local   bool   `json:"local"`
	Outside string `json:"outside"`
}

type loader struct {
	root, module string
	fset         *token.FileSet
	ctxt         build.Context
	std          types.Importer
	done         map[string]*types.Package
	uses         map[string]types.Object // "file:line:col" -> object
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: go_oracle job.json answers.json")
		os.Exit(2)
	}
	raw, err := os.ReadFile(os.Args[1])
	check(err)
	var j job
	check(json.Unmarshal(raw, &j))
	root, err := filepath.Abs(j.Root)
	check(err)
	fset := token.NewFileSet()
	ctxt := build.Default
	ctxt.GOOS, ctxt.GOARCH, ctxt.CgoEnabled = "linux", "amd64", true
	l := &loader{root: root, module: j.Module, fset: fset, ctxt: ctxt,
		std: importer.ForCompiler(fset, "source", nil), done: map[string]*types.Package{},
		uses: map[string]types.Object{}}
	for _, dir := range packageDirs(root) {
		l.load(dir, l.importPath(dir), true)
	}
	out := make([][]answer, len(j.Queries))
	for i, q := range j.Queries {
		key := fmt.Sprintf("%v:%v:%v", q[0], int(q[1].(float64)), int(q[2].(float64))+1)
		out[i] = []answer{}
		if obj, ok := l.uses[key]; ok {
			out[i] = append(out[i], l.describe(obj))
		}
	}
	data, err := json.Marshal(out)
	check(err)
	check(os.WriteFile(os.Args[2], data, 0o644))
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "go_oracle:", err)
		os.Exit(1)
	}
}

// packageDirs: every directory under root that may hold a package of the module (no testdata,
// vendor, hidden or underscore directories, no nested modules).
func packageDirs(root string) []string {
	var dirs []string
	_ = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root {
			if name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
		}
		dirs = append(dirs, path)
		return nil
	})
	sort.Strings(dirs)
	return dirs
}

func (l *loader) importPath(dir string) string {
	rel, _ := filepath.Rel(l.root, dir)
	if rel == "." {
		return l.module
	}
	return l.module + "/" + filepath.ToSlash(rel)
}

// load type-checks the package in dir (memoised by import path); with tests, its in-package
// and external tests are checked too and their uses recorded.
func (l *loader) load(dir, path string, tests bool) *types.Package {
	if pkg, ok := l.done[path]; ok && !tests {
		return pkg
	}
	bp, err := l.ctxt.ImportDir(dir, 0)
	if err != nil && bp == nil {
		return nil
	}
	pkg := l.done[path]
	if pkg == nil {
		pkg = l.check(dir, path, bp.Name, append(append([]string{}, bp.GoFiles...), bp.CgoFiles...))
		l.done[path] = pkg
	}
	if tests && len(bp.TestGoFiles) > 0 {
		files := append(append(append([]string{}, bp.GoFiles...), bp.CgoFiles...), bp.TestGoFiles...)
		l.check(dir, path, bp.Name, files)
	}
	if tests && len(bp.XTestGoFiles) > 0 {
		l.check(dir, path+"_test", bp.Name+"_test", bp.XTestGoFiles)
	}
	return pkg
}

func (l *loader) check(dir, path, name string, names []string) *types.Package {
	var files []*ast.File
	for _, n := range names {
		f, err := parser.ParseFile(l.fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution)
		if f != nil {
			files = append(files, f)
		}
		_ = err
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: l, Error: func(error) {}, FakeImportC: true}
	pkg, _ := conf.Check(path, l.fset, files, info)
	if pkg == nil {
		pkg = types.NewPackage(path, name)
	}
	for ident, obj := range info.Uses {
		pos := l.fset.Position(ident.Pos())
		rel, err := filepath.Rel(l.root, pos.Filename)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		l.uses[fmt.Sprintf("%s:%d:%d", filepath.ToSlash(rel), pos.Line, pos.Column)] = obj
	}
	return pkg
}

// Import: the module's own packages from source, the standard library from GOROOT, anything
// else an empty stand-in (its members then have no declaration to point at).
func (l *loader) Import(path string) (*types.Package, error) {
	if path == l.module || strings.HasPrefix(path, l.module+"/") {
		dir := filepath.Join(l.root, filepath.FromSlash(strings.TrimPrefix(strings.TrimPrefix(path, l.module), "/")))
		if pkg := l.load(dir, path, false); pkg != nil {
			return pkg, nil
		}
	} else if first := strings.SplitN(path, "/", 2)[0]; !strings.Contains(first, ".") {
		if pkg, err := l.std.Import(path); err == nil {
			return pkg, nil
		}
	}
	if pkg, ok := l.done[path]; ok {
		return pkg, nil
	}
	stand := types.NewPackage(path, filepath.Base(path))
	stand.MarkComplete()
	l.done[path] = stand
	return stand, nil
}

func (l *loader) describe(obj types.Object) answer {
	a := answer{Name: obj.Name()}
	pos := l.fset.Position(obj.Pos())
	if rel, err := filepath.Rel(l.root, pos.Filename); err == nil && pos.IsValid() && !strings.HasPrefix(rel, "..") {
		a.Path, a.Line = filepath.ToSlash(rel), pos.Line
	} else if obj.Pkg() != nil {
		a.Outside = obj.Pkg().Path()
	}
	switch o := obj.(type) {
	case *types.Func:
		a.Kind = "func"
		if sig, ok := o.Type().(*types.Signature); ok && sig.Recv() != nil {
			a.Kind, a.Recv = "method", typeName(sig.Recv().Type())
		}
	case *types.Var:
		a.Kind = "var"
		if o.IsField() {
			a.Kind = "field"
		}
	case *types.Const:
		a.Kind = "const"
	case *types.TypeName:
		a.Kind = "type"
	case *types.PkgName:
		a.Kind = "package"
	case *types.Builtin:
		a.Kind = "builtin"
	case *types.Label:
		a.Kind = "label"
	default:
		a.Kind = "other"
	}
	// Declared inside a function: a local (a closure held in a variable, a parameter).
	if parent := obj.Parent(); parent != nil && obj.Pkg() != nil && parent != obj.Pkg().Scope() && parent != types.Universe {
		a.Local = true
	}
	return a
}

func typeName(t types.Type) string {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	if n, ok := t.(*types.Named); ok {
		return n.Obj().Name()
	}
	return t.String()
}
