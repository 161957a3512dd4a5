package repo

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// objectMagics are the first bytes of compiled objects and executables:
// ELF, Mach-O (32, 64 and universal), PE (MZ), WebAssembly.
var objectMagics = [][]byte{
	{0x7f, 'E', 'L', 'F'},
	{0xfe, 0xed, 0xfa, 0xce}, {0xfe, 0xed, 0xfa, 0xcf},
	{0xce, 0xfa, 0xed, 0xfe}, {0xcf, 0xfa, 0xed, 0xfe},
	{0xca, 0xfe, 0xba, 0xbe},
	{'M', 'Z'},
	{0x00, 'a', 's', 'm'},
}

// TestNoCompiledFileTracked fails when git tracks a compiled binary (a
// go build in a package directory leaves one that is easy to add).
func TestNoCompiledFileTracked(t *testing.T) {
	root, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skipf("not in a git work tree (%v)", err)
	}
	dir := strings.TrimSpace(string(root))
	out, err := exec.Command("git", "-C", dir, "ls-files", "-z").Output()
	if err != nil {
		t.Fatal(err)
	}
	files := strings.Split(strings.TrimRight(string(out), "\x00"), "\x00")
	if len(files) < 100 {
		t.Fatalf("git ls-files lists %d files: not this repository?", len(files))
	}
	for _, name := range files {
		path := filepath.Join(dir, name)
		if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
			continue // a symbolic link (sysfs fixtures), or deleted in the work tree
		}
		head, err := readHead(path, 4)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		for _, m := range objectMagics {
			if bytes.HasPrefix(head, m) {
				t.Errorf("%s is a compiled file (starts % x): build outputs stay out of git", name, m)
			}
		}
	}
}

func readHead(path string, n int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, n)
	k, err := io.ReadFull(f, buf)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		err = nil
	}
	return buf[:k], err
}
