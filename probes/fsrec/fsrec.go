// Package fsrec records what a probe reads from a file system (/sys, /proc)
// and serves it back later, so that a recorded bundle replays through the
// same parsers that read the live host.
//
// Recorder wraps an fs.FS and notes every ReadFile, ReadDir, ReadLink and
// Stat with its result (errors included, as their errno). Tree is the
// recorded form: JSON-serializable, and itself an fs.FS that answers the
// same calls with the same results.
package fsrec

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"sync"
	"syscall"
	"time"
)

// Entry is what one path answered.
type Entry struct {
	Data  *string  `json:"data,omitempty"`   // file contents
	Dir   []string `json:"dir,omitempty"`    // directory entries, sorted; "name/" for subdirectories, "name@" for symlinks
	IsDir bool     `json:"is_dir,omitempty"` // a directory (even if never listed)
	Link  *string  `json:"link,omitempty"`   // symlink target
	Errno int      `json:"errno,omitempty"`  // the read failed with this errno
	// LinkErrno is a failed readlink alone (EINVAL: not a symlink), kept
	// apart so that it does not spoil reads of the same path.
	LinkErrno int    `json:"link_errno,omitempty"`
	ErrText   string `json:"err_text,omitempty"` // the failure, for errors without an errno
	// Hung: the read did not answer in time (os.ErrDeadlineExceeded: the
	// sampler gave up on it); replayed as such, so that the file's last
	// value is carried forward as it was on the recorded host.
	Hung bool `json:"hung,omitempty"`
}

// Tree is a recorded file system: path (relative to the root, as in fs.FS)
// to what it answered.
type Tree map[string]*Entry

// Recorder is an fs.FS that records what is read through it.
type Recorder struct {
	FS fs.FS
	mu sync.Mutex
	t  Tree
}

// NewRecorder wraps fsys.
func NewRecorder(fsys fs.FS) *Recorder { return &Recorder{FS: fsys, t: Tree{}} }

// Take returns what was recorded since the last Take and starts afresh.
func (r *Recorder) Take() Tree {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.t
	r.t = Tree{}
	return t
}

func (r *Recorder) entry(name string) *Entry {
	e := r.t[name]
	if e == nil {
		e = &Entry{}
		r.t[name] = e
	}
	return e
}

func (r *Recorder) fail(name string, err error) {
	e := r.entry(name)
	var errno syscall.Errno
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		e.Hung, e.ErrText = true, err.Error()
	case errors.As(err, &errno):
		e.Errno = int(errno)
	case errors.Is(err, fs.ErrNotExist):
		e.Errno = int(syscall.ENOENT)
	case errors.Is(err, fs.ErrPermission):
		e.Errno = int(syscall.EACCES)
	default:
		e.ErrText = err.Error()
	}
}

// Open opens name for reading; the contents are recorded when read whole
// through ReadFile. Open itself is passed through for Stat-like uses.
func (r *Recorder) Open(name string) (fs.File, error) {
	return r.FS.Open(name)
}

// ReadFile reads and records a file.
func (r *Recorder) ReadFile(name string) ([]byte, error) {
	b, err := fs.ReadFile(r.FS, name)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.fail(name, err)
		return nil, err
	}
	s := string(b)
	r.entry(name).Data = &s
	return b, nil
}

// ReadFiles reads and records a run of files, each as ReadFile would,
// handing the run to the wrapped file system's ReadFiles when it has one
// (the sampler's guard: see sysfs.FilesFS).
func (r *Recorder) ReadFiles(names []string, contents [][]byte, errs []error) {
	if ff, ok := r.FS.(interface {
		ReadFiles(names []string, contents [][]byte, errs []error)
	}); ok {
		ff.ReadFiles(names, contents, errs)
	} else {
		for i, n := range names {
			contents[i], errs[i] = fs.ReadFile(r.FS, n)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, n := range names {
		if errs[i] != nil {
			r.fail(n, errs[i])
			contents[i] = nil
			continue
		}
		s := string(contents[i])
		r.entry(n).Data = &s
	}
}

// ReadDir lists and records a directory.
func (r *Recorder) ReadDir(name string) ([]fs.DirEntry, error) {
	ents, err := fs.ReadDir(r.FS, name)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.fail(name, err)
		return nil, err
	}
	e := r.entry(name)
	e.IsDir = true
	e.Dir = e.Dir[:0]
	for _, d := range ents {
		n := d.Name()
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			n += "@"
		case d.IsDir():
			n += "/"
		}
		e.Dir = append(e.Dir, n)
	}
	sort.Strings(e.Dir)
	return ents, nil
}

// ReadLink reads and records a symlink.
func (r *Recorder) ReadLink(name string) (string, error) {
	rl, ok := r.FS.(fs.ReadLinkFS)
	if !ok {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: errors.ErrUnsupported}
	}
	target, err := rl.ReadLink(name)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		var errno syscall.Errno
		if errors.As(err, &errno) {
			r.entry(name).LinkErrno = int(errno)
		} else {
			r.fail(name, err)
		}
		return "", err
	}
	r.entry(name).Link = &target
	return target, nil
}

// Lstat is part of fs.ReadLinkFS.
func (r *Recorder) Lstat(name string) (fs.FileInfo, error) {
	if rl, ok := r.FS.(fs.ReadLinkFS); ok {
		return rl.Lstat(name)
	}
	return fs.Stat(r.FS, name)
}

// Stat stats and records whether name is a directory.
func (r *Recorder) Stat(name string) (fs.FileInfo, error) {
	fi, err := fs.Stat(r.FS, name)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.fail(name, err)
		return nil, err
	}
	if fi.IsDir() {
		r.entry(name).IsDir = true
	} else if r.t[name] == nil || r.t[name].Data == nil {
		r.entry(name) // known to exist
	}
	return fi, nil
}

// --- replay ---

func (t Tree) lookup(op, name string) (*Entry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	e := t[name]
	if e == nil {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	}
	if e.Errno != 0 {
		return nil, &fs.PathError{Op: op, Path: name, Err: syscall.Errno(e.Errno)}
	}
	if e.Hung {
		return nil, &fs.PathError{Op: op, Path: name, Err: hungError(e.ErrText)}
	}
	if e.ErrText != "" {
		return nil, &fs.PathError{Op: op, Path: name, Err: errors.New(e.ErrText)}
	}
	return e, nil
}

// ReadFile answers as the recorded file did.
func (t Tree) ReadFile(name string) ([]byte, error) {
	e, err := t.lookup("open", name) // os.DirFS fails at open
	if err != nil {
		return nil, err
	}
	if e.Data == nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrNotExist}
	}
	return []byte(*e.Data), nil
}

// ReadDir answers as the recorded directory did.
func (t Tree) ReadDir(name string) ([]fs.DirEntry, error) {
	e, err := t.lookup("open", name)
	if err != nil {
		return nil, err
	}
	if e.Dir == nil && !e.IsDir {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	out := make([]fs.DirEntry, 0, len(e.Dir))
	for _, n := range e.Dir {
		out = append(out, dirEntry(n))
	}
	return out, nil
}

// ReadLink answers as the recorded symlink did.
func (t Tree) ReadLink(name string) (string, error) {
	e, err := t.lookup("readlink", name)
	if err != nil {
		return "", err
	}
	if e.LinkErrno != 0 {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: syscall.Errno(e.LinkErrno)}
	}
	if e.Link == nil {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: fs.ErrInvalid}
	}
	return *e.Link, nil
}

// Lstat is Stat without following links.
func (t Tree) Lstat(name string) (fs.FileInfo, error) { return t.Stat(name) }

// Stat answers from what was recorded about name.
func (t Tree) Stat(name string) (fs.FileInfo, error) {
	e, err := t.lookup("stat", name)
	if err != nil {
		return nil, err
	}
	return info{name: path.Base(name), e: e}, nil
}

// Open opens a recorded file or directory.
func (t Tree) Open(name string) (fs.File, error) {
	e, err := t.lookup("open", name)
	if err != nil {
		return nil, err
	}
	return &file{info: info{name: path.Base(name), e: e}, t: t, path: name}, nil
}

type dirEntry string

func (d dirEntry) Name() string {
	n := string(d)
	if l := len(n); l > 0 && (n[l-1] == '/' || n[l-1] == '@') {
		return n[:l-1]
	}
	return n
}
func (d dirEntry) IsDir() bool { return len(d) > 0 && d[len(d)-1] == '/' }
func (d dirEntry) Type() fs.FileMode {
	switch {
	case d.IsDir():
		return fs.ModeDir
	case len(d) > 0 && d[len(d)-1] == '@':
		return fs.ModeSymlink
	}
	return 0
}
func (d dirEntry) Info() (fs.FileInfo, error) { return info{name: d.Name()}, nil }

type info struct {
	name string
	e    *Entry
}

func (i info) Name() string { return i.name }
func (i info) Size() int64 {
	if i.e != nil && i.e.Data != nil {
		return int64(len(*i.e.Data))
	}
	return 0
}
func (i info) Mode() fs.FileMode {
	switch {
	case i.e == nil:
		return 0o444
	case i.e.IsDir || i.e.Dir != nil:
		return fs.ModeDir | 0o555
	case i.e.Link != nil:
		return fs.ModeSymlink | 0o777
	}
	return 0o444
}
func (i info) ModTime() time.Time { return time.Time{} }
func (i info) IsDir() bool        { return i.Mode().IsDir() }
func (i info) Sys() any           { return nil }

type file struct {
	info
	t    Tree
	path string
	off  int
}

func (f *file) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *file) Close() error               { return nil }
func (f *file) Read(b []byte) (int, error) {
	if f.e.Data == nil {
		return 0, &fs.PathError{Op: "read", Path: f.path, Err: fs.ErrInvalid}
	}
	if f.off >= len(*f.e.Data) {
		return 0, io.EOF
	}
	n := copy(b, (*f.e.Data)[f.off:])
	f.off += n
	return n, nil
}
func (f *file) ReadDir(n int) ([]fs.DirEntry, error) { return f.t.ReadDir(f.path) }

// hungError is a recorded read that hung: it matches os.ErrDeadlineExceeded.
type hungError string

func (e hungError) Error() string        { return string(e) }
func (e hungError) Is(target error) bool { return target == os.ErrDeadlineExceeded }
