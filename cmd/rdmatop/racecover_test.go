package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every package that starts a goroutine, or guards its state with a lock
// or an atomic for the goroutines of others, runs under the race detector
// in `make test` (the Makefile's -race line): a package with goroutines
// left off it would have its concurrency proven by nothing.
func TestRaceCoversEveryPackageWithGoroutines(t *testing.T) {
	mk, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`(?m)^\t\$\(GO\) test -race .*$`).Find(mk)
	if line == nil {
		t.Fatal("no -race line in the Makefile")
	}
	var covered []string
	for _, f := range strings.Fields(string(line)) {
		if p, ok := strings.CutSuffix(f, "/..."); ok && strings.HasPrefix(p, "./") {
			covered = append(covered, strings.TrimPrefix(p, "./"))
		}
	}
	fset := token.NewFileSet()
	found := 0
	err = walkRepoGo(false, func(path string) error {
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		goes := false
		for _, imp := range f.Imports { // locks and atomics: used from several goroutines
			if p := strings.Trim(imp.Path.Value, `"`); p == "sync" || p == "sync/atomic" {
				goes = true
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GoStmt:
				goes = true
			case *ast.CallExpr: // sync.WaitGroup.Go, errgroup.Group.Go
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Go" {
					goes = true
				}
			}
			return !goes
		})
		if !goes {
			return nil
		}
		found++
		dir, _ := filepath.Rel("../..", filepath.Dir(path))
		for _, c := range covered {
			if dir == c || strings.HasPrefix(dir, c+"/") {
				return nil
			}
		}
		t.Errorf("%s starts goroutines or locks, but %s is not under the Makefile's -race line", path, dir)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found < 5 {
		t.Fatalf("found %d files with go statements: walked the wrong tree?", found)
	}
}
