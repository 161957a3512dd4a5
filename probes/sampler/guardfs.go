package sampler

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"sync"
	"time"
)

// A sysfs file can hang: its show() waits on a firmware command that
// does not complete, or on RTNL (netdev attributes); a FIFO in a fixture
// tree never answers. read(2) on it cannot be interrupted from Go, so a
// goroutine stuck in it can neither be cancelled nor reused: it returns
// when the kernel answers, or never. The guard runs each file read on a
// goroutine of its own and waits a bounded time; a read that does not
// answer is left behind and remembered, and until it returns every later
// read of the same file fails at once without starting another one. So
// there is at most one goroutine per stuck file, however many samples
// pass, and at most maxStuck of them in all: past that, files are not
// read at all (a host where everything hangs must not gain a thread per
// file).

// fileWait bounds one sysfs file read. A show() callback answers in
// microseconds; an mlx5 hw_counters read is one firmware command (a
// query of the port's counters), a few milliseconds even with a busy
// command queue, and the driver gives up on a command only after 60 s
// ("cmd exec timeout"). 250 ms is a hundred times a slow healthy read,
// short enough that one stuck file costs a quarter of a sample the first
// time (and nothing afterwards).
const fileWait = 250 * time.Millisecond

// fileWaitAfterHang bounds the reads that follow a hang in the same
// sample. When RTNL is held every netdev attribute hangs: waiting the
// full fileWait for each would spend several samples finding them one by
// one. A healthy read is well under 50 ms, so what answers still answers;
// what does not is registered as stuck at once and costs nothing later.
const fileWaitAfterHang = 50 * time.Millisecond

// maxStuck bounds the reads left behind at once.
const maxStuck = 64

// errHung is a read the guard did not wait for: it matches
// os.ErrDeadlineExceeded, so that sysfs notes the file as hung and
// probes.StatusOf as a timeout.
type errHung struct {
	path string
	why  string
}

func (e *errHung) Error() string        { return e.path + ": " + e.why }
func (e *errHung) Is(target error) bool { return target == os.ErrDeadlineExceeded }

// fileGuard is a Sampler's: what is stuck outlives the sample that found
// it.
type fileGuard struct {
	mu    sync.Mutex
	stuck map[guardKey]*guardRead
}

// guardKey is an operation on a path.
type guardKey struct {
	list bool // ReadDir, not ReadFile
	path string
}

// guardRead is one read on its goroutine.
type guardRead struct {
	since time.Time // the sample that started it (the sample's clock)
	done  chan guardResult
}

type guardResult struct {
	b    []byte
	ents []fs.DirEntry
	err  error
}

func newFileGuard() *fileGuard { return &fileGuard{stuck: map[guardKey]*guardRead{}} }

// outstanding is how many reads are stuck now.
func (g *fileGuard) outstanding() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.stuck)
}

// guardedFS is one sample's view of the guard over a file system: reads
// wait at most wait each and nothing starts once ctx is done, so the task
// that reads through it returns within its time with what answered. It
// records what hung, for the sample's status.
type guardedFS struct {
	g    *fileGuard
	fsys fs.FS
	ctx  context.Context
	now  time.Time // the sample's time, for since
	wait time.Duration

	mu      sync.Mutex
	hung    []string // paths whose read is outstanding, in the order met
	skipped int      // files not read: time spent, or too many reads hung
	waited  int      // reads given up on in this sample (not those known stuck)
	since   time.Time
}

func (g *fileGuard) view(ctx context.Context, fsys fs.FS, now time.Time, wait time.Duration) *guardedFS {
	return &guardedFS{g: g, fsys: fsys, ctx: ctx, now: now, wait: wait}
}

// Hung lists the files whose reads hang (outstanding), since when the
// oldest of them has, and how many files were not read at all.
func (v *guardedFS) Hung() (hung []string, since time.Time, skipped int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	out := slices.Clone(v.hung)
	slices.Sort(out)
	return slices.Compact(out), v.since, v.skipped
}

func (v *guardedFS) skip() {
	v.mu.Lock()
	v.skipped++
	v.mu.Unlock()
}

func (v *guardedFS) note(path string, since time.Time) {
	v.mu.Lock()
	v.hung = append(v.hung, path)
	if v.since.IsZero() || since.Before(v.since) {
		v.since = since
	}
	v.mu.Unlock()
}

// do runs op on path under the guard.
func (v *guardedFS) do(key guardKey, op func() guardResult) guardResult {
	path := key.path
	g := v.g
	g.mu.Lock()
	if r, ok := g.stuck[key]; ok {
		g.mu.Unlock()
		v.note(path, r.since)
		return guardResult{err: &errHung{path, "still hung since " + r.since.Format("15:04:05") + " (not read again until that read returns)"}}
	}
	if len(g.stuck) >= maxStuck {
		g.mu.Unlock()
		v.skip()
		return guardResult{err: &errHung{path, fmt.Sprintf("not read: %d reads are hung already", maxStuck)}}
	}
	g.mu.Unlock()
	if v.ctx.Err() != nil {
		v.skip()
		return guardResult{err: &errHung{path, "not read: the sample's time was spent on hung files"}}
	}
	r := &guardRead{since: v.now, done: make(chan guardResult, 1)}
	go func() {
		// Blocks for as long as the kernel does; never started again for
		// this file while it does (see fileGuard). It sends before it
		// unregisters: the waiter below registers it only after finding
		// nothing sent, under the same lock, so no entry outlives it.
		r.done <- op()
		g.mu.Lock()
		if g.stuck[key] == r {
			delete(g.stuck, key)
		}
		g.mu.Unlock()
	}()
	wait := v.wait
	v.mu.Lock()
	if v.waited > 0 {
		wait = min(wait, fileWaitAfterHang)
	}
	v.mu.Unlock()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case res := <-r.done:
		return res
	case <-t.C:
	case <-v.ctx.Done():
	}
	g.mu.Lock()
	select {
	case res := <-r.done:
		g.mu.Unlock()
		return res
	default:
		g.stuck[key] = r
	}
	g.mu.Unlock()
	v.note(path, v.now)
	v.mu.Lock()
	v.waited++
	v.mu.Unlock()
	return guardResult{err: &errHung{path, fmt.Sprintf("no answer within %v", wait)}}
}

// Open is not guarded: opening a sysfs attribute runs no show(), and
// the sysfs package reads files whole through ReadFile (a FIFO, which
// blocks in open(2), is opened there too).
func (v *guardedFS) Open(name string) (fs.File, error) { return v.fsys.Open(name) }

func (v *guardedFS) ReadFile(name string) ([]byte, error) {
	r := v.do(guardKey{path: name}, func() guardResult {
		b, err := fs.ReadFile(v.fsys, name)
		return guardResult{b: b, err: err}
	})
	return r.b, r.err
}

func (v *guardedFS) ReadDir(name string) ([]fs.DirEntry, error) {
	r := v.do(guardKey{list: true, path: name}, func() guardResult {
		ents, err := fs.ReadDir(v.fsys, name)
		return guardResult{ents: ents, err: err}
	})
	return r.ents, r.err
}

// Stat, Lstat and ReadLink read inodes, not attributes: no show() runs,
// nothing to guard.
func (v *guardedFS) Stat(name string) (fs.FileInfo, error)  { return fs.Stat(v.fsys, name) }
func (v *guardedFS) Lstat(name string) (fs.FileInfo, error) { return fs.Lstat(v.fsys, name) }
func (v *guardedFS) ReadLink(name string) (string, error)   { return fs.ReadLink(v.fsys, name) }
