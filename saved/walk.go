package saved

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ulikunitz/xz"
)

// Limits keep a hostile or mistaken input from exhausting memory.
const (
	maxFileBytes   = 64 << 20 // one output larger than this is not a saved command output
	maxFiles       = 200_000  // files looked at in one run, archives included
	maxSniffBytes  = 512      // what recognising compression reads
	archivePrefix  = "!"      // path of a file inside an archive: ARCHIVE!member
	sosMarkerDir   = "sos_commands"
	sosMarkerFile  = "sos_reports"
	sosLogDir      = "sos_logs"
	sosVersionFile = "version.txt"
)

// file is one file's content and where it came from.
type file struct {
	path string // as the user knows it: a path, or ARCHIVE!member
	name string // the member's path inside a sosreport or directory, slash-separated
	data []byte
	sos  bool // inside a sosreport: unrecognised files are summed up, not listed
}

// walker expands the paths given into files, reporting what it cannot
// read as inputs of their own.
type walker struct {
	files  []file
	inputs []Input  // problems found while walking
	roots  []string // sysfs-style trees, read by the host probes
	count  int
}

func (w *walker) problem(p string, k Kind, format string, args ...any) {
	in := Input{Path: p, Kind: k}
	in.ignore(format, args...)
	w.inputs = append(w.inputs, in)
}

func (w *walker) add(f file) bool {
	if w.count++; w.count > maxFiles {
		if w.count == maxFiles+1 {
			w.problem(f.path, KindUnsupported, "more than %d files: the rest are not read", maxFiles)
		}
		return false
	}
	w.files = append(w.files, f)
	return true
}

// walk adds the file, directory or archive at p.
func (w *walker) walk(p string) error {
	st, err := os.Stat(p)
	if err != nil {
		return err
	}
	if st.IsDir() {
		if isSysfsRoot(p) && !isSosDir(p) {
			w.roots = append(w.roots, p)
			return nil
		}
		return w.dir(p)
	}
	if !st.Mode().IsRegular() {
		w.problem(p, KindUnsupported, "not a regular file (%s)", st.Mode().Type())
		return nil
	}
	if st.Size() > maxFileBytes && !isArchiveName(p) {
		w.problem(p, KindUnsupported, "%d bytes: larger than any saved output (%d MiB)", st.Size(), maxFileBytes>>20)
		return nil
	}
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	return w.stream(p, filepath.Base(p), f, false)
}

// stream adds one file's content, opening it when compressed or a tar
// archive.
func (w *walker) stream(p, name string, r io.Reader, sos bool) error {
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(maxSniffBytes)
	switch {
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		zr, err := gzip.NewReader(br)
		if err != nil {
			w.problem(p, KindUnreadable, "gzip: %v", err)
			return nil
		}
		defer zr.Close()
		return w.stream(p, strings.TrimSuffix(name, ".gz"), zr, sos)
	case bytes.HasPrefix(head, []byte{0xfd, '7', 'z', 'X', 'Z', 0}):
		xr, err := xz.NewReader(br)
		if err != nil {
			w.problem(p, KindUnreadable, "xz: %v", err)
			return nil
		}
		return w.stream(p, strings.TrimSuffix(name, ".xz"), xr, sos)
	case bytes.HasPrefix(head, []byte("BZh")) && len(head) > 3 && head[3] >= '1' && head[3] <= '9':
		return w.stream(p, strings.TrimSuffix(name, ".bz2"), bzip2.NewReader(br), sos)
	case isTar(head):
		return w.tar(p, br)
	}
	data, err := io.ReadAll(io.LimitReader(br, maxFileBytes+1))
	if err != nil {
		w.problem(p, KindUnreadable, "%v", err)
		return nil
	}
	if len(data) > maxFileBytes {
		w.problem(p, KindUnsupported, "larger than any saved output (%d MiB)", maxFileBytes>>20)
		return nil
	}
	w.add(file{path: p, name: name, data: data, sos: sos})
	return nil
}

// isTar: the ustar magic at offset 257.
func isTar(head []byte) bool {
	return len(head) >= 263 && bytes.Equal(head[257:262], []byte("ustar"))
}

func isArchiveName(p string) bool {
	for _, s := range []string{".tar", ".tar.gz", ".tgz", ".tar.xz", ".txz", ".tar.bz2", ".gz", ".xz", ".bz2"} {
		if strings.HasSuffix(p, s) {
			return true
		}
	}
	return false
}

// tar adds the regular files of an archive (a sosreport tarball holds one
// top directory, sosreport-HOST-DATE/).
func (w *walker) tar(p string, r io.Reader) error {
	tr := tar.NewReader(r)
	var members []file
	sos := false
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			w.problem(p, KindTruncated, "archive cut or corrupt after %d files: %v (what came before is read)", len(members), err)
			break
		}
		if h.Typeflag != tar.TypeReg {
			continue // directories; symlinks duplicate files sos already holds
		}
		name := path.Clean(strings.TrimPrefix(h.Name, "./"))
		if isSosMarker(name) {
			sos = true
		}
		if h.Size > maxFileBytes {
			w.problem(p+archivePrefix+name, KindUnsupported, "%d bytes: larger than any saved output", h.Size)
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			w.problem(p+archivePrefix+name, KindTruncated, "cut: %v", err)
			break
		}
		members = append(members, file{path: p + archivePrefix + name, name: name, data: data})
		if len(members) > maxFiles {
			break
		}
	}
	for _, m := range members {
		m.sos = sos
		if !w.add(m) {
			break
		}
	}
	return nil
}

// isSosMarker: a path only a sosreport has.
func isSosMarker(name string) bool {
	for _, part := range strings.Split(name, "/") {
		if part == sosMarkerDir || part == sosMarkerFile || part == sosLogDir {
			return true
		}
	}
	return false
}

// dir adds every regular file under root, in name order (so numbered
// snapshots come in order). Symbolic links are not followed: a sosreport's
// links point at files it already holds.
func (w *walker) dir(root string) error {
	sos := isSosDir(root)
	var paths []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			w.problem(p, KindUnreadable, "%v", err)
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(paths)
	for _, p := range paths {
		rel, _ := filepath.Rel(root, p)
		st, err := os.Stat(p)
		if err != nil {
			w.problem(p, KindUnreadable, "%v", err)
			continue
		}
		if st.Size() > maxFileBytes && !isArchiveName(p) {
			if !sos {
				w.problem(p, KindUnsupported, "%d bytes: larger than any saved output", st.Size())
			}
			continue
		}
		f, err := os.Open(p)
		if err != nil {
			w.problem(p, KindUnreadable, "%v", err)
			continue
		}
		err = w.stream(p, filepath.ToSlash(rel), f, sos)
		f.Close()
		if err != nil {
			return err
		}
		if w.count > maxFiles {
			break
		}
	}
	return nil
}

// isSosDir: sos writes sos_commands/ and sos_logs/ at the top.
func isSosDir(root string) bool {
	for _, m := range []string{sosMarkerDir, sosLogDir, sosMarkerFile} {
		if st, err := os.Stat(filepath.Join(root, m)); err == nil && st.IsDir() {
			return true
		}
	}
	return false
}

var errNoInput = errors.New("no input")

func sprintf(format string, args ...any) string {
	if len(args) == 0 {
		return format
	}
	return fmt.Sprintf(format, args...)
}
