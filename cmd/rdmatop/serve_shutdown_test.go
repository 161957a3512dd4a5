package main

import (
	"bytes"
	"net/http"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer written by the command and read by the
// test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// serve stops its run, and the probes the run started, before it returns
// and closes the sources: closing a socket under a running probe is a use
// after close (CI saw ethtool's handle go nil under a read). serve used to
// return at SIGTERM without waiting for its run; that shows only when the
// signal meets a sample, which this test cannot arrange on demand
// (TestCloseAfterWaitsForAbandonedReads holds a read open and does). Here:
// a clean exit 0 at SIGTERM, and nothing of the run left when it returns.
func TestServeShutdownWaitsForItsRun(t *testing.T) {
	var stdout, stderr lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"serve", "--listen", "127.0.0.1:0", "--interval", "20ms",
			"--root", "../../testdata/sysfs/mlx5-roce-cx6dx-t0"}, &stdout, &stderr)
	}()
	addr := ""
	for deadline := time.Now().Add(20 * time.Second); addr == "" && time.Now().Before(deadline); {
		// serve listens for SIGTERM before it says where it serves.
		if m := regexp.MustCompile(`http://([0-9.:]+)/metrics`).FindStringSubmatch(stderr.String()); m != nil {
			addr = m[1]
			break
		}
		select {
		case code := <-done:
			t.Fatalf("serve exited %d: %s", code, stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	if addr == "" {
		t.Fatalf("serve did not start: %s", stderr.String())
	}
	// Frames flow: the run is sampling.
	for deadline := time.Now().Add(10 * time.Second); ; {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err == nil {
			var body bytes.Buffer
			body.ReadFrom(resp.Body)
			resp.Body.Close()
			if strings.Contains(body.String(), "rdmatop_frame_timestamp_seconds") {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no Frame scraped: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("serve exited %d after SIGTERM: %s", code, stderr.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not stop within 15 s of SIGTERM")
	}
	// At the moment serve returned, nothing of its run may be left. A
	// goroutine whose only frame left is runtime.goexit1 has returned (its
	// deferred WaitGroup.Done ran, so Wait let serve go) and is only being
	// torn down.
	buf := make([]byte, 1<<20)
	for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
		if lines := strings.SplitN(g, "\n", 3); len(lines) > 1 && strings.HasPrefix(lines[1], "runtime.goexit1(") {
			continue
		}
		for _, fn := range []string{"monitor.(*Run)", "probes.(*Runner)", "sampler.(*Sampler)"} {
			if strings.Contains(g, fn) {
				t.Errorf("serve returned with %s still running:\n%s", fn, g)
			}
		}
	}
}
