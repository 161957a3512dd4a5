//go:build linux

package kmsg

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/rdmatop/rdmatop/probes"
)

func needKmsg(t *testing.T) {
	t.Helper()
	r, err := Open(Options{})
	if err != nil {
		t.Skipf("cannot open %s here: %v", Path, err)
	}
	r.Close()
}

// TestReaderExistingBuffer reads this host's kernel log once, in small
// batches, and parses every record.
func TestReaderExistingBuffer(t *testing.T) {
	needKmsg(t)
	r, err := Open(Options{ReadExisting: true, MaxRecords: 50})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var all []string
	var lost uint64
	for i := 0; ; i++ {
		b, err := r.Poll()
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Raw) > 50 {
			t.Fatalf("batch of %d > MaxRecords", len(b.Raw))
		}
		all = append(all, b.Raw...)
		lost += b.Lost
		if len(b.Raw) == 0 {
			break
		}
		if i > 100000 {
			t.Fatal("kernel log never drained")
		}
	}
	if len(all) == 0 {
		t.Skip("empty kernel log")
	}
	var prev uint64
	for i, raw := range all {
		rec, err := ParseRecord(raw)
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if i > 0 && *rec.Seq <= prev {
			t.Errorf("record %d: seq %d after %d", i, *rec.Seq, prev)
		}
		prev = *rec.Seq
		if *rec.Level < 0 || *rec.Level > 7 || rec.Usec == nil {
			t.Errorf("record %d: %+v", i, rec)
		}
		Classify(rec)
	}
	t.Logf("%d records (seq up to %d), %d lost", len(all), prev, lost)
	// Drained: polling again is EAGAIN, an empty batch and no error.
	for range 3 {
		if b, err := r.Poll(); err != nil || len(b.Raw) > 0 && b.Raw[0] == all[len(all)-1] {
			t.Errorf("after draining: %v %+v", err, b)
		}
	}
}

// TestReaderNewOnly opens at the end of the buffer: only records logged
// afterwards come back. As root it logs one record itself (a user-space
// write to /dev/kmsg, facility user) to see it arrive.
func TestReaderNewOnly(t *testing.T) {
	needKmsg(t)
	old, err := Open(Options{ReadExisting: true})
	if err != nil {
		t.Fatal(err)
	}
	var last uint64
	for {
		b, err := old.Poll()
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Raw) == 0 {
			break
		}
		last, _ = seqOf(b.Raw[len(b.Raw)-1])
	}
	old.Close()

	r, err := Open(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := r.Poll()
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range b.Raw {
		if s, _ := seqOf(raw); s <= last {
			t.Errorf("record %d from before Open: %q", s, raw)
		}
	}
	if os.Geteuid() != 0 {
		return
	}
	mark := fmt.Sprintf("rdmatop kmsg test %d", os.Getpid())
	w, err := os.OpenFile(Path, os.O_WRONLY, 0)
	if err == nil {
		_, err = w.WriteString("<13>" + mark + "\n")
		w.Close()
	}
	if err != nil {
		t.Skipf("cannot log a test record: %v", err)
	}
	found := false
	for range 10 {
		b, err := r.Poll()
		if err != nil {
			t.Fatal(err)
		}
		for _, raw := range b.Raw {
			rec, err := ParseRecord(raw)
			if err != nil {
				t.Fatal(err)
			}
			if rec.Message == mark {
				found = true
				if rec.FacilityName() != "user" || rec.LevelName() != "notice" {
					t.Errorf("%+v", rec)
				}
			}
		}
		if found {
			break
		}
	}
	if !found {
		t.Errorf("the test record did not come back")
	}
}

type step struct {
	rec string
	err error
}

// scripted returns a read function that plays steps, then EAGAIN.
func scripted(steps []step) func(int, []byte) (int, error) {
	return func(_ int, p []byte) (int, error) {
		if len(steps) == 0 {
			return 0, unix.EAGAIN
		}
		s := steps[0]
		steps = steps[1:]
		if s.err != nil {
			return 0, s.err
		}
		return copy(p, s.rec+"\n"), nil
	}
}

func TestPollOverrunAndErrors(t *testing.T) {
	r := newReader(-1, scripted([]step{
		{rec: "6,1,10,-;a"}, {rec: "6,2,11,-;b"},
		{err: unix.EINTR},
		{err: unix.EPIPE}, // records 3..6 overwritten
		{rec: "6,7,20,-;c"},
	}), Options{})
	b, err := r.Poll()
	if err != nil || len(b.Raw) != 3 || b.Lost != 4 || !b.Overrun || b.Raw[2] != "6,7,20,-;c" {
		t.Errorf("%v %+v", err, b)
	}
	if b, err := r.Poll(); err != nil || len(b.Raw) != 0 || b.Lost != 0 || b.Overrun {
		t.Errorf("second poll: %v %+v", err, b)
	}
	// EPIPE before anything was read: overrun, number unknown.
	r = newReader(-1, scripted([]step{{err: unix.EPIPE}, {rec: "6,100,1,-;x"}}), Options{})
	if b, _ := r.Poll(); !b.Overrun || b.Lost != 0 || len(b.Raw) != 1 {
		t.Errorf("%+v", b)
	}
	// Errors.
	r = newReader(-1, scripted([]step{{rec: "6,1,1,-;x"}, {err: unix.EPERM}}), Options{})
	b, err = r.Poll()
	var pe *probes.PermissionError
	if !errors.As(err, &pe) || len(b.Raw) != 1 || !strings.Contains(err.Error(), "CAP_SYSLOG") {
		t.Errorf("EPERM: %v %+v", err, b)
	}
	r = newReader(-1, scripted([]step{{err: unix.EIO}}), Options{})
	if _, err := r.Poll(); !errors.Is(err, unix.EIO) {
		t.Errorf("EIO: %v", err)
	}
	// MaxRecords bounds a poll; the rest waits.
	r = newReader(-1, scripted([]step{{rec: "6,1,1,-;x"}, {rec: "6,2,1,-;y"}, {rec: "6,3,1,-;z"}}), Options{MaxRecords: 2})
	b1, _ := r.Poll()
	b2, _ := r.Poll()
	if len(b1.Raw) != 2 || len(b2.Raw) != 1 {
		t.Errorf("%+v %+v", b1, b2)
	}
	// A run of EPIPEs does not spin forever.
	forever := func(int, []byte) (int, error) { return 0, unix.EPIPE }
	if _, err := newReader(-1, forever, Options{}).Poll(); err == nil {
		t.Error("endless EPIPE: no error")
	}
}

func TestOpenErrors(t *testing.T) {
	_, err := openPath("/nonexistent/kmsg", Options{})
	if !errors.Is(err, probes.ErrNotSupported) {
		t.Errorf("missing device: %v", err)
	}
	if st := probes.StatusOf("kmsg", err); st.State != probes.StateNotSupported {
		t.Errorf("%+v", st)
	}
}

// TestOpenUnprivileged opens /dev/kmsg as nobody, on a thread whose
// credentials alone are dropped (raw setresuid affects only the calling
// thread, which is then discarded). With kernel.dmesg_restrict=1 the
// kernel refuses: that must read as a PermissionError naming CAP_SYSLOG.
func TestOpenUnprivileged(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to switch a thread to nobody")
	}
	if b, err := os.ReadFile("/proc/sys/kernel/dmesg_restrict"); err != nil || strings.TrimSpace(string(b)) != "1" {
		t.Skipf("kernel.dmesg_restrict is not 1 here (%q, %v)", b, err)
	}
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread dies with the goroutine
		if _, _, e := unix.RawSyscall(unix.SYS_SETRESUID, 65534, 65534, 65534); e != 0 {
			done <- fmt.Errorf("setresuid: %w", e)
			return
		}
		r, err := Open(Options{})
		if err == nil {
			r.Close()
		}
		done <- err
	}()
	err := <-done
	var pe *probes.PermissionError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "read /dev/kmsg: needs CAP_SYSLOG or kernel.dmesg_restrict=0") {
		t.Fatalf("got %v", err)
	}
	if st := probes.StatusOf("kmsg", err); st.State != probes.StatePermissionDenied {
		t.Errorf("%+v", st)
	}
	if os.Geteuid() != 0 {
		t.Fatal("the process lost root: setresuid leaked beyond its thread")
	}
}
