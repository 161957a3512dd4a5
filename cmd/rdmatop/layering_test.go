package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cmd/rdmatop parses flags, picks sources and prints: the pipeline
// (sampling, reading packets, analysing them, judging them) is monitor's.
// A front end that takes a sample, reads a packet or calls the rule engine
// itself has forked the pipeline again.
func TestCommandsHoldNoPipeline(t *testing.T) {
	forbidden := map[string]string{
		"NewEngine":   "the rule engine",
		"Evaluate":    "the rule engine",
		"NewAnalyzer": "the capture analysis",
		"AnalyzeFile": "the capture analysis",
		"ReadPacket":  "a packet loop",
		"Sample":      "a sample loop",
		"Cut":         "the wire's intervals",
		"Packet":      "the capture analysis",
		"NewTicker":   "a clock of its own",
		"Tick":        "a clock of its own",
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		// Calls on standard-library packages (strings.Cut, time.Tick...)
		// are not the pipeline; time's clock is checked apart.
		std := map[string]bool{}
		for _, imp := range f.Imports {
			path := strings.Trim(imp.Path.Value, `"`)
			name := path[strings.LastIndex(path, "/")+1:]
			if imp.Name != nil {
				name = imp.Name.Name
			}
			if !strings.Contains(path, ".") && path != "time" {
				std[name] = true
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && std[x.Name] {
					return true
				}
				if what, bad := forbidden[sel.Sel.Name]; bad {
					t.Errorf("%s: calls %s: %s belongs in monitor", fset.Position(call.Pos()), sel.Sel.Name, what)
				}
			}
			return true
		})
	}
	if checked < 5 {
		t.Fatalf("checked %d files: run from cmd/rdmatop", checked)
	}
}
