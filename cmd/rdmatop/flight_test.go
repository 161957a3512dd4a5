package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// serve --flight-recorder as the operator uses it: on a host whose port
// is down from the start (a fixture), nothing is written, since that is
// not happening now; SIGUSR1 writes an incident, which check reads and in
// which it names the down port; SIGTERM stops serve cleanly, the incident
// complete and nothing partial left.
func TestServeFlightRecorderOnSignal(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"serve", "--listen", "127.0.0.1:0", "--interval", "50ms",
			"--root", "../../testdata/sysfs/mlx5-roce-cx6dx-t0",
			"--flight-recorder", dir, "--before", "200ms", "--after", "200ms", "--keep", "5s"}, &stdout, &stderr)
	}()
	for deadline := time.Now().Add(20 * time.Second); !regexp.MustCompile(`http://[0-9.:]+/metrics`).MatchString(stderr.String()); {
		select {
		case code := <-done:
			t.Fatalf("serve exited %d: %s", code, stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not start: %s", stderr.String())
		}
	}
	// --keep 5s leaves no room for the default 5m of silence: that
	// trigger is off, and serve says so.
	if !strings.Contains(stderr.String(), "the traffic-stopped trigger is off: --keep 5s minus --before 200ms") {
		t.Errorf("no word of the traffic-stopped trigger being off: %s", stderr.String())
	}
	time.Sleep(time.Second) // twenty ticks with the port down
	if m, _ := filepath.Glob(filepath.Join(dir, "*")); len(m) != 0 {
		t.Fatalf("a port down since the start wrote %v", m)
	}
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	var rec string
	for deadline := time.Now().Add(20 * time.Second); rec == ""; {
		m, _ := filepath.Glob(filepath.Join(dir, "rdmatop-incident-*-manual.pcapng.gz"))
		if len(m) == 1 {
			if _, err := os.Stat(strings.TrimSuffix(m[0], ".pcapng.gz") + ".json"); err == nil {
				rec = m[0]
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no incident after SIGUSR1: %s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != exitOK {
			t.Fatalf("serve exited %d: %s", code, stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not stop")
	}
	if !strings.Contains(stderr.String(), "flight recorder: incident "+rec+": manual") {
		t.Errorf("no log line for the incident: %s", stderr.String())
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*.partial")); len(m) != 0 {
		t.Errorf("left %v", m)
	}
	var out bytes.Buffer
	code := run([]string{"check", rec}, &out, io.Discard)
	if code != exitFindings || !strings.Contains(out.String(), "[port-down]") || !strings.Contains(out.String(), "mlx5_1") {
		t.Errorf("check of the incident: exit %d\n%s", code, out.String())
	}
}
