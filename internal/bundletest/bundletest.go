// Package bundletest reads rdmatop recordings whole, for tests that
// rewrite or inspect one (a recording with a hole, with hung sources, an
// incident's span). It is for tests only.
package bundletest

import (
	"io"
	"os"
	"testing"

	"github.com/rdmatop/rdmatop/probes/bundle"
)

// Read returns the recording at path: its reader (header, Truncated) and
// every record in file order. A packet's data is the record's own copy.
func Read(t testing.TB, path string) (*bundle.Reader, []bundle.Record) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := bundle.Open(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []bundle.Record
	for {
		rec, err := r.ReadRecord()
		if err == io.EOF {
			return r, out
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, rec)
	}
}
