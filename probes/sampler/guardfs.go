package sampler

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// A sysfs file can hang: its show() waits on a firmware command that
// does not complete, or on RTNL (netdev attributes); a FIFO in a fixture
// tree never answers. read(2) on it cannot be interrupted from Go, so a
// goroutine stuck in it can neither be cancelled nor reused: it returns
// when the kernel answers, or never. The guard hands each file read to a
// reader goroutine and waits a bounded time; a read that does not answer
// is left behind with its reader and remembered, and until it returns
// every later read of the same file fails at once without starting
// another one. So there is at most one goroutine per stuck file, however
// many samples pass, and at most maxStuck of them in all: past that,
// files are not read at all (a host where everything hangs must not gain
// a thread per file).
//
// A healthy read must cost (nearly) nothing more than the read: a sample
// reads a few hundred files. The guard first ran each read on a new
// goroutine with its own channel and timer: a sample took ~40 % longer
// with ~50 % more allocations (goroutines whose stacks grew again on
// every read, ~3.5 us a file on a 2-core VM). Now:
//
//   - Readers are long-lived: a sample's view starts one when a goroutine
//     of its task first reads (the sysfs package reads devices in
//     parallel: one reader each) and reuses it, its channels and its
//     timer (Reset) read after read; the view's idle readers end with the
//     sysfs task (close). Nothing is allocated per read beyond what
//     fs.ReadFile allocates.
//   - A hand-off still costs two goroutine wake-ups, ~3 us a file on the
//     2-core VM (futex wake-ups of the other CPU's thread): as much as a
//     healthy read of a small file. So the sysfs package hands over runs
//     of files (a port's counters, an object's attributes, a GID table:
//     sysfs.FilesFS) and the reader reads a run in order while its waiter
//     watches it as a watchdog would: the reader publishes which file it
//     is on with an atomic store, with when it started and the wait it
//     has; the waiter sleeps on its timer and, when it fires, either
//     finds the reader on a later file with time left (sleeps again) or
//     gives up on that file. O(1) per file, one hand-off per run.
//   - A file that overruns its wait is abandoned with its reader
//     (registered as stuck with the file; an abandoned reader stores
//     nothing more and ends when its read returns) and the rest of the run
//     goes on on a fresh reader, each file with its own wait as before.
//
// Why not a watchdog alone, letting the task's goroutine read and only
// noting the file it is in: the goroutine stuck in read(2) is the one
// holding the rest of the task on its stack, so nothing could carry on
// with the other files. The work after a hang has to go on on another
// goroutine than the read; a hand-off per run is the least there is.

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
	stuck map[guardKey]*reader // the reader left in each stuck read
	// givenUp counts the reads waited for until their deadline, ever: a
	// read known stuck is refused at once, never waited for again.
	givenUp int
}

// guardKey is an operation on a path.
type guardKey struct {
	list bool // ReadDir, not ReadFile
	path string
}

func newFileGuard() *fileGuard { return &fileGuard{stuck: map[guardKey]*reader{}} }

// outstanding is how many reads are stuck now.
func (g *fileGuard) outstanding() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.stuck)
}

// waitedOut is how many reads were waited for until their deadline.
func (g *fileGuard) waitedOut() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.givenUp
}

// epoch starts the guard's monotonic clock (see mono).
var epoch = time.Now()

// mono is the time since epoch, on the monotonic clock.
func mono() time.Duration { return time.Since(epoch) }

// Marks on reader.cur: the reader is storing the answer at cur, or the
// waiter gave up on the read at cur.
const (
	committing = int64(1) << 61
	abandoned  = int64(1) << 62
)

// reader is a goroutine that does the reads handed to it: a job is a run
// of paths, read in order. Its waiter follows it through cur (an atomic
// store per file, no wake-up) and steps in only when the read at cur has
// overrun its wait: it marks it abandoned and hands the rest of the run
// to another reader. An abandoned reader stores nothing more, gets
// nothing more to do and ends when its read returns.
type reader struct {
	job   chan struct{} // a run to read; closed: end
	done  chan struct{} // buffered: the whole run answered
	timer *time.Timer   // its waiter's, reused

	// The job, set by the waiter before job and not changed until done
	// or abandonment; contents and errs are the waiter's, filled in from
	// index from on (ents: the answer of a list, a run of one).
	v        *guardedFS
	list     bool
	paths    []string
	from     int // admitted already (see admit)
	contents [][]byte
	errs     []error
	ents     []fs.DirEntry

	// cur is the index of the path being read (len(paths): all read).
	// Only the reader moves it on, and only from i to i|committing (if
	// the waiter has not marked i abandoned), storing i's answer, the
	// start and wait of i+1, then i+1. So a waiter that loads cur == c
	// may read the answers before c and the start and wait of slot c,
	// and once it has marked c abandoned nothing is stored any more.
	cur   atomic.Int64
	slots []readSlot

	// A single read's path and answer, so that it allocates nothing.
	one     [1]string
	oneB    [1][]byte
	oneErrs [1]error

	since time.Time // when abandoned: the sample that started the read (under fileGuard.mu)
}

type readSlot struct {
	start time.Duration // mono
	wait  time.Duration
}

func newReader() *reader {
	r := &reader{job: make(chan struct{}, 1), done: make(chan struct{}, 1), timer: time.NewTimer(time.Hour)}
	r.timer.Stop()
	go r.run()
	return r
}

func (r *reader) run() {
	for range r.job {
		v, n := r.v, len(r.paths)
		for i := r.from; i < n; i++ {
			key := guardKey{list: r.list, path: r.paths[i]}
			var b []byte
			var ents []fs.DirEntry
			ok, err := true, error(nil)
			if i > r.from {
				ok, err = v.admit(key)
			}
			if ok {
				// Blocks for as long as the kernel does.
				if key.list {
					ents, err = fs.ReadDir(v.fsys, key.path)
				} else {
					b, err = fs.ReadFile(v.fsys, key.path)
				}
			}
			if !r.cur.CompareAndSwap(int64(i), int64(i)|committing) {
				// Abandoned: its waiter registered it as stuck (under
				// mu, before the mark could be seen here) and went on.
				// The file may be read again.
				g := v.g
				g.mu.Lock()
				if g.stuck[key] == r {
					delete(g.stuck, key)
				}
				g.mu.Unlock()
				return
			}
			if key.list {
				r.ents = ents
			} else {
				r.contents[i] = b
			}
			r.errs[i] = err
			if i+1 < n {
				r.slots[i+1] = readSlot{start: mono(), wait: v.fileWait()}
			}
			r.cur.Store(int64(i + 1))
		}
		r.done <- struct{}{}
	}
}

// guardedFS is one sample's view of the guard over a file system: reads
// wait at most wait each and nothing starts once ctx is done, so the task
// that reads through it returns within its time with what answered. It
// records what hung, for the sample's status. Its readers end at close.
type guardedFS struct {
	g    *fileGuard
	fsys fs.FS
	ctx  context.Context
	now  time.Time // the sample's time, for since
	wait time.Duration

	waited atomic.Int32 // reads given up on in this sample (not those known stuck)

	mu      sync.Mutex
	hung    []string // paths whose read is outstanding, in the order met
	skipped int      // files not read: time spent, or too many reads hung
	since   time.Time
	idle    []*reader // readers with nothing to do
	closed  bool
}

func (g *fileGuard) view(ctx context.Context, fsys fs.FS, now time.Time, wait time.Duration) *guardedFS {
	return &guardedFS{g: g, fsys: fsys, ctx: ctx, now: now, wait: wait}
}

// close ends the view's idle readers, and the others once their run
// answers; reads after it still work, each run on a reader of its own.
func (v *guardedFS) close() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.closed = true
	for _, r := range v.idle {
		close(r.job)
	}
	v.idle = nil
}

// take returns an idle reader, or a new one.
func (v *guardedFS) take() *reader {
	v.mu.Lock()
	if n := len(v.idle); n > 0 {
		r := v.idle[n-1]
		v.idle = v.idle[:n-1]
		v.mu.Unlock()
		return r
	}
	v.mu.Unlock()
	return newReader()
}

// give returns a reader whose run answered to the idle ones.
func (v *guardedFS) give(r *reader) {
	r.v, r.paths, r.contents, r.errs, r.ents = nil, nil, nil, nil, nil
	r.one[0], r.oneB[0], r.oneErrs[0] = "", nil, nil
	v.mu.Lock()
	if v.closed {
		close(r.job)
	} else {
		v.idle = append(v.idle, r)
	}
	v.mu.Unlock()
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

// fileWait is how long a read starting now may take.
func (v *guardedFS) fileWait() time.Duration {
	if v.waited.Load() > 0 {
		return min(v.wait, fileWaitAfterHang)
	}
	return v.wait
}

// admit says whether key may be read now; if not, what the read answers.
func (v *guardedFS) admit(key guardKey) (bool, error) {
	path := key.path
	g := v.g
	g.mu.Lock()
	if r, ok := g.stuck[key]; ok {
		since := r.since
		g.mu.Unlock()
		v.note(path, since)
		return false, &errHung{path, "still hung since " + since.Format("15:04:05") + " (not read again until that read returns)"}
	}
	if len(g.stuck) >= maxStuck {
		g.mu.Unlock()
		v.skip()
		return false, &errHung{path, fmt.Sprintf("not read: %d reads are hung already", maxStuck)}
	}
	g.mu.Unlock()
	if v.ctx.Err() != nil {
		v.skip()
		return false, &errHung{path, "not read: the sample's time was spent on hung files"}
	}
	return true, nil
}

// start hands r a run: paths from from on (from admitted), their answers
// into contents and errs.
func (v *guardedFS) start(r *reader, list bool, paths []string, from int, contents [][]byte, errs []error) {
	r.v, r.list, r.paths, r.from, r.contents, r.errs = v, list, paths, from, contents, errs
	if cap(r.slots) < len(paths) {
		r.slots = make([]readSlot, len(paths))
	}
	r.slots = r.slots[:len(paths)]
	r.slots[from] = readSlot{start: mono(), wait: v.fileWait()}
	r.cur.Store(int64(from))
	r.job <- struct{}{}
}

// await waits for r's run: all of it (len(paths), true), or until the
// read at c overruns its wait or ctx ends (c, false: the read abandoned,
// registered as stuck). A healthy run costs one wake-up, at its end.
func (v *guardedFS) await(r *reader) (int, bool) {
	n := int64(len(r.paths))
	g := v.g
	r.timer.Reset(r.slots[r.from].wait)
	for {
		select {
		case <-r.done:
			r.timer.Stop()
			return int(n), true
		case <-r.timer.C:
		case <-v.ctx.Done():
			r.timer.Stop()
		}
		for {
			c := r.cur.Load()
			if c&committing != 0 {
				runtime.Gosched() // storing an answer: a moment
				continue
			}
			if c == n {
				<-r.done
				return int(n), true
			}
			if v.ctx.Err() == nil {
				if left := r.slots[c].wait - (mono() - r.slots[c].start); left > 0 {
					// The read at c started after the one waited for.
					r.timer.Reset(left)
					break
				}
			}
			g.mu.Lock()
			if r.cur.CompareAndSwap(c, c|abandoned) {
				r.since = v.now
				g.stuck[guardKey{list: r.list, path: r.paths[c]}] = r
				g.givenUp++
				g.mu.Unlock()
				v.note(r.paths[c], v.now)
				v.waited.Add(1)
				return int(c), false
			}
			g.mu.Unlock() // it moved on meanwhile
		}
	}
}

// hungErr is the answer of the read at c that r was abandoned in.
func hungErr(r *reader, c int) error {
	return &errHung{r.paths[c], fmt.Sprintf("no answer within %v", r.slots[c].wait)}
}

// one reads (list: lists) name under the guard.
func (v *guardedFS) one(list bool, name string) ([]byte, []fs.DirEntry, error) {
	if ok, err := v.admit(guardKey{list: list, path: name}); !ok {
		return nil, nil, err
	}
	r := v.take()
	r.one[0] = name
	v.start(r, list, r.one[:], 0, r.oneB[:], r.oneErrs[:])
	if _, ok := v.await(r); !ok {
		return nil, nil, hungErr(r, 0)
	}
	b, ents, err := r.oneB[0], r.ents, r.oneErrs[0]
	v.give(r)
	return b, ents, err
}

// ReadFiles reads names under the guard, in order, as ReadFile each,
// handing them to a reader together (see sysfs.FilesFS). A read that
// does not answer within its wait is left to its reader and answers
// errHung; the reads after it go on on another reader.
func (v *guardedFS) ReadFiles(names []string, contents [][]byte, errs []error) {
	for from := 0; from < len(names); {
		// Each run starts on a file that may be read: once the time is
		// spent, the rest is not handed over at all.
		if ok, err := v.admit(guardKey{path: names[from]}); !ok {
			contents[from], errs[from] = nil, err
			from++
			continue
		}
		r := v.take()
		v.start(r, false, names, from, contents, errs)
		c, ok := v.await(r)
		if ok {
			v.give(r)
			return
		}
		contents[c], errs[c] = nil, hungErr(r, c)
		from = c + 1
	}
}

// Open is not guarded: opening a sysfs attribute runs no show(), and
// the sysfs package reads files whole through ReadFile (a FIFO, which
// blocks in open(2), is opened there too).
func (v *guardedFS) Open(name string) (fs.File, error) { return v.fsys.Open(name) }

func (v *guardedFS) ReadFile(name string) ([]byte, error) {
	b, _, err := v.one(false, name)
	return b, err
}

func (v *guardedFS) ReadDir(name string) ([]fs.DirEntry, error) {
	_, ents, err := v.one(true, name)
	return ents, err
}

// Stat, Lstat and ReadLink read inodes, not attributes: no show() runs,
// nothing to guard.
func (v *guardedFS) Stat(name string) (fs.FileInfo, error)  { return fs.Stat(v.fsys, name) }
func (v *guardedFS) Lstat(name string) (fs.FileInfo, error) { return fs.Lstat(v.fsys, name) }
func (v *guardedFS) ReadLink(name string) (string, error)   { return fs.ReadLink(v.fsys, name) }
