package rdmanl

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Fixtures: raw RDMA netlink buffers of iproute2 6.1 on a Soft-RoCE host
// (testdata/rxe-netlink/MANIFEST.md).
var fixtureRoot = filepath.Join("..", "..", "testdata", "rxe-netlink")

func fixture(t testing.TB, parts ...string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(append([]string{fixtureRoot}, parts...)...))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// recv returns the named receive buffers of one command directory.
func recv(t testing.TB, dir string, files ...string) [][]byte {
	t.Helper()
	var out [][]byte
	for _, f := range files {
		out = append(out, fixture(t, "netlink", dir, f+"-recv.bin"))
	}
	return out
}

// exchanges groups a command directory's buffers (in index.tsv order)
// into request + replies.
func exchanges(t testing.TB, dir string) []Exchange {
	t.Helper()
	f, err := os.Open(filepath.Join(fixtureRoot, "netlink", dir, "index.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ex []Exchange
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) < 2 || cols[0] == "file" {
			continue
		}
		b := fixture(t, "netlink", dir, cols[0])
		switch cols[1] {
		case "send":
			ex = append(ex, Exchange{Request: b})
		case "recv":
			if len(ex) == 0 {
				t.Fatalf("%s: receive before any send", dir)
			}
			ex[len(ex)-1].Replies = append(ex[len(ex)-1].Replies, b)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return ex
}

// rdmaJSON decodes an `rdma -j` output as a list of generic objects.
func rdmaJSON(t testing.TB, parts ...string) []map[string]any {
	t.Helper()
	var v []map[string]any
	if err := json.Unmarshal(fixture(t, parts...), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// num reads a JSON number field; ok is false when absent.
func num(o map[string]any, k string) (uint64, bool) {
	v, ok := o[k]
	if !ok {
		return 0, false
	}
	f, _ := v.(float64)
	return uint64(f), true
}

func str(o map[string]any, k string) (string, bool) {
	v, ok := o[k]
	if !ok {
		return "", false
	}
	s, _ := v.(string)
	return s, true
}
