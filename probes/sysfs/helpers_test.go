package sysfs

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/fstest"
)

const testdata = "../../testdata/sysfs"

// fixture is a fixture tree as the host root: real directories and
// relative symlinks, like /sys.
func fixture(name string) fs.FS { return os.DirFS(filepath.Join(testdata, name)) }

// mapCopy copies a fixture tree, symlinks included, into a MapFS that
// tests can change.
func mapCopy(t testing.TB, name string) fstest.MapFS {
	t.Helper()
	src := fixture(name)
	m := fstest.MapFS{}
	err := fs.WalkDir(src, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == "." {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := fs.ReadLink(src, p)
			if err != nil {
				return err
			}
			m[p] = &fstest.MapFile{Mode: fs.ModeSymlink | 0o777, Data: []byte(target)}
		case d.IsDir():
			m[p] = &fstest.MapFile{Mode: fs.ModeDir | 0o555}
		default:
			b, err := fs.ReadFile(src, p)
			if err != nil {
				return err
			}
			m[p] = &fstest.MapFile{Data: b, Mode: 0o444}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// rxeTar loads a real Soft-RoCE sysfs snapshot (shared/testdata/rxe) into
// a MapFS: sys/class/infiniband/rxeN as real directories, files that
// failed to read left out.
func rxeTar(t testing.TB, name string) fstest.MapFS {
	t.Helper()
	f, err := os.Open(filepath.Join(testdata, "rxe", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	m := fstest.MapFS{}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return m
		}
		if err != nil {
			t.Fatal(err)
		}
		p := strings.TrimPrefix(path.Clean(h.Name), "./")
		switch h.Typeflag {
		case tar.TypeDir:
			m[p] = &fstest.MapFile{Mode: fs.ModeDir | 0o555}
		case tar.TypeReg:
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			m[p] = &fstest.MapFile{Data: b, Mode: 0o444}
		}
	}
}

// rxeTSV loads the same snapshot from its TSV form, which also records
// the reads that failed: those fail again, with EINVAL, as on the host.
func rxeTSV(t testing.TB, name string) *faultFS {
	t.Helper()
	f, err := os.Open(filepath.Join(testdata, "rxe", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ff := &faultFS{MapFS: fstest.MapFS{}, readErr: map[string]error{}}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		p, v, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			continue
		}
		p = strings.TrimPrefix(p, "/")
		switch {
		case strings.HasPrefix(v, "link:"):
			ff.MapFS[p] = &fstest.MapFile{Mode: fs.ModeSymlink | 0o777, Data: []byte(strings.TrimPrefix(v, "link:"))}
		case v == "<error: Invalid argument>":
			ff.MapFS[p] = &fstest.MapFile{Mode: 0o444}
			ff.readErr[p] = syscall.EINVAL
		case strings.HasPrefix(v, "<write-only"):
			ff.MapFS[p] = &fstest.MapFile{Mode: 0o200}
			ff.readErr[p] = syscall.EACCES
		default:
			ff.MapFS[p] = &fstest.MapFile{Data: []byte(strings.ReplaceAll(v, `\n`, "\n") + "\n"), Mode: 0o444}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return ff
}

// faultFS is a MapFS whose reads can fail on purpose, and which can change
// itself right after a directory is listed (a file or a device vanishing
// between ReadDir and ReadFile).
type faultFS struct {
	fstest.MapFS
	mu         sync.Mutex
	readErr    map[string]error // ReadFile of the path fails with this errno
	dirErr     map[string]error // ReadDir of the path fails with this errno
	afterList  func(dir string) // runs after a successful ReadDir
	readsCount int
}

func (f *faultFS) ReadFile(name string) ([]byte, error) {
	f.mu.Lock()
	f.readsCount++
	err := f.readErr[name]
	f.mu.Unlock()
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return f.MapFS.ReadFile(name)
}

func (f *faultFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if err := f.dirErr[name]; err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	ents, err := f.MapFS.ReadDir(name)
	if err == nil && f.afterList != nil {
		f.afterList(name)
	}
	return ents, err
}

// removeTree deletes p and everything below it from a MapFS.
func removeTree(m fstest.MapFS, p string) {
	for k := range m {
		if k == p || strings.HasPrefix(k, p+"/") {
			delete(m, k)
		}
	}
}
