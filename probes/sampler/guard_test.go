package sampler

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"strconv"
	"testing"
	"testing/fstest"
	"time"
)

// hangFS answers from files, except that a read of a name in hang blocks
// until release is closed.
type hangFS struct {
	fstest.MapFS
	hang    map[string]bool
	release chan struct{}
}

func (h *hangFS) ReadFile(name string) ([]byte, error) {
	if h.hang[name] {
		<-h.release
	}
	return h.MapFS.ReadFile(name)
}

// A run read in one hand-off (ReadFiles) keeps each file's own wait: the
// file that hangs answers errHung after its wait, those before and after
// it answer, its reader stays stuck on it alone (the next run skips it at
// once) and ends when the read returns; the view's other readers end at
// close.
func TestGuardRunWithAHungFile(t *testing.T) {
	base := settledGoroutines()
	files := fstest.MapFS{}
	var names []string
	for i := range 10 {
		n := "c/" + strconv.Itoa(i)
		files[n] = &fstest.MapFile{Data: []byte(strconv.Itoa(i))}
		names = append(names, n)
	}
	h := &hangFS{MapFS: files, hang: map[string]bool{"c/4": true}, release: make(chan struct{})}
	released := false
	release := func() {
		if !released {
			released = true
			close(h.release)
		}
	}
	t.Cleanup(release)
	g := newFileGuard()
	t0 := time.Unix(1_800_000_000, 0)
	for s := range 3 {
		v := g.view(context.Background(), h, t0.Add(time.Duration(s)*time.Second), 20*time.Millisecond)
		contents, errs := make([][]byte, len(names)), make([]error, len(names))
		start := time.Now()
		v.ReadFiles(names, contents, errs)
		took := time.Since(start)
		for i := range names {
			if i == 4 {
				if !errors.Is(errs[i], os.ErrDeadlineExceeded) || contents[i] != nil {
					t.Errorf("sample %d: the hung file answered %q, %v", s, contents[i], errs[i])
				}
				continue
			}
			if errs[i] != nil || string(contents[i]) != strconv.Itoa(i) {
				t.Errorf("sample %d: %s answered %q, %v", s, names[i], contents[i], errs[i])
			}
		}
		hung, since, skipped := v.Hung()
		if len(hung) != 1 || hung[0] != "c/4" || !since.Equal(t0) || skipped != 0 {
			t.Errorf("sample %d: hung %v since %v, %d skipped", s, hung, since, skipped)
		}
		// Waited for once, at the first sample; refused at once after.
		if n := g.waitedOut(); n != 1 {
			t.Errorf("sample %d (%v): %d reads waited for to their deadline, want the stuck file's first only", s, took, n)
		}
		// A single read of the stuck file fails at once too.
		if _, err := v.ReadFile("c/4"); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("sample %d: ReadFile of the stuck file: %v", s, err)
		}
		if b, err := v.ReadFile("c/5"); err != nil || string(b) != "5" {
			t.Errorf("sample %d: ReadFile: %q, %v", s, b, err)
		}
		if ents, err := v.ReadDir("c"); err != nil || len(ents) != 10 {
			t.Errorf("sample %d: ReadDir: %d entries, %v", s, len(ents), err)
		}
		v.close()
		if got := g.outstanding(); got != 1 {
			t.Errorf("sample %d: %d reads outstanding, want 1", s, got)
		}
	}
	if got, ok := waitGoroutines(base+1, 5*time.Second); !ok {
		t.Errorf("%d goroutines, want at most %d (the stuck reader)", got, base+1)
	}
	release()
	deadline := time.Now().Add(5 * time.Second)
	for g.outstanding() != 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if got := g.outstanding(); got != 0 {
		t.Fatalf("%d reads outstanding after the file answered", got)
	}
	if got, ok := waitGoroutines(base, 5*time.Second); !ok {
		t.Errorf("%d goroutines after the read returned, want %d", got, base)
	}
	v := g.view(context.Background(), h, t0.Add(time.Hour), 20*time.Millisecond)
	defer v.close()
	if b, err := v.ReadFile("c/4"); err != nil || string(b) != "4" {
		t.Errorf("after: %q, %v", b, err)
	}
}

// Once the view's time is spent, a run's read in flight is given up on
// and nothing more is read: the rest is skipped.
func TestGuardRunCancelled(t *testing.T) {
	files := fstest.MapFS{}
	var names []string
	for i := range 5 {
		n := "c/" + strconv.Itoa(i)
		files[n] = &fstest.MapFile{Data: []byte("1")}
		names = append(names, n)
	}
	h := &hangFS{MapFS: files, hang: map[string]bool{"c/1": true}, release: make(chan struct{})}
	defer close(h.release)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	v := newFileGuard().view(ctx, h, time.Unix(1_800_000_000, 0), time.Hour)
	defer v.close()
	contents, errs := make([][]byte, len(names)), make([]error, len(names))
	start := time.Now()
	v.ReadFiles(names, contents, errs)
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("took %v", took)
	}
	if errs[0] != nil {
		t.Errorf("c/0: %v", errs[0])
	}
	for i := 1; i < len(names); i++ {
		if !errors.Is(errs[i], os.ErrDeadlineExceeded) {
			t.Errorf("%s: %v", names[i], errs[i])
		}
	}
	hung, _, skipped := v.Hung()
	if len(hung) != 1 || hung[0] != "c/1" || skipped != 3 {
		t.Errorf("hung %v, %d skipped; want c/1 and 3", hung, skipped)
	}
}

var _ fs.ReadFileFS = (*hangFS)(nil)
