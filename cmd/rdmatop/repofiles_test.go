package main

import (
	"io/fs"
	"path/filepath"
	"strings"
)

// walkRepoGo calls fn on every Go file of the repository (this package
// runs in cmd/rdmatop), test files or the others as tests says, skipping
// testdata and hidden directories.
func walkRepoGo(tests bool, fn func(path string) error) error {
	return filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "../.." && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") != tests {
			return nil
		}
		return fn(path)
	})
}
