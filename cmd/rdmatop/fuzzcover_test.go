package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every fuzz target in the tree is in `make fuzz`, with its package, and
// make fuzz runs no target that is gone: a target left out is fuzzed by
// nobody (issue 34 asks each to run 100,000 executions a minute, measured
// through make fuzz).
func TestMakeFuzzRunsEveryTarget(t *testing.T) {
	mk, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{} // "./dir FuzzName"
	for _, m := range regexp.MustCompile(`(?m)^\t\$\(GO\) test .*-fuzz (Fuzz\w+) .*\s(\./\S+)/$`).FindAllSubmatch(mk, -1) {
		listed[string(m[2])+" "+string(m[1])] = true
	}
	decl := regexp.MustCompile(`(?m)^func (Fuzz\w+)\(f \*testing\.F\)`)
	declared := map[string]bool{}
	err = walkRepoGo(true, func(path string) error {
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		dir := "./" + filepath.ToSlash(filepath.Dir(strings.TrimPrefix(path, "../../")))
		for _, m := range decl.FindAllSubmatch(src, -1) {
			key := dir + " " + string(m[1])
			declared[key] = true
			if !listed[key] {
				t.Errorf("%s: %s is not in make fuzz", path, m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for key := range listed {
		if !declared[key] {
			t.Errorf("make fuzz runs %s, which no test file declares", key)
		}
	}
	if len(declared) == 0 {
		t.Fatal("no fuzz target found in the tree")
	}
}
