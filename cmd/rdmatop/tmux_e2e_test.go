package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The screen end to end in a real terminal: tmux runs the built binary,
// keys are sent, and the captured pane is read back.

func buildBinary(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (Debian package tmux; .ci/run installs it)")
	}
	bin := filepath.Join(t.TempDir(), "rdmatop")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

type tmuxSession struct {
	t      *testing.T
	socket string
}

func startTmux(t *testing.T, w, h int, cmdline string) *tmuxSession {
	t.Helper()
	s := &tmuxSession{t: t, socket: filepath.Join(t.TempDir(), "tmux.sock")}
	s.run("new-session", "-d", "-s", "e2e", "-x", strconv.Itoa(w), "-y", strconv.Itoa(h), "env TERM=xterm-256color NO_COLOR=1 "+cmdline)
	t.Cleanup(func() { exec.Command("tmux", "-S", s.socket, "kill-server").Run() })
	return s
}

func (s *tmuxSession) run(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", s.socket}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (s *tmuxSession) keys(k ...string) { s.run(append([]string{"send-keys", "-t", "e2e"}, k...)...) }

// waitFor polls the pane until it shows all of want (bounded: 10 s).
func (s *tmuxSession) waitFor(want ...string) string {
	s.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	var pane string
	for time.Now().Before(deadline) {
		pane = s.run("capture-pane", "-p", "-t", "e2e")
		ok := true
		for _, w := range want {
			if !strings.Contains(pane, w) {
				ok = false
			}
		}
		if ok {
			return pane
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.t.Fatalf("the pane never showed %q:\n%s", want, pane)
	return ""
}

func TestTmuxDemo(t *testing.T) {
	bin := buildBinary(t)
	s := startTmux(t, 140, 44, bin+" demo")
	s.waitFor("DEMO", "phase: healthy", "1 Overview", "mlx5_0/1", "PFC")
	s.keys("2")
	s.waitFor("LQPN", "ib_write_bw")
	s.keys("G") // not a demo key: nothing breaks
	s.keys("4")
	s.waitFor("Events")
	s.keys("?")
	s.waitFor("quit")
	s.keys("Escape")
	time.Sleep(300 * time.Millisecond) // ESC then q at once reads as alt+q
	s.keys("q")
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if exec.Command("tmux", "-S", s.socket, "has-session", "-t", "e2e").Run() != nil {
			return // q quit the program and the session with it
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Error("q did not quit")
}

func TestTmuxReplayCapture(t *testing.T) {
	bin := buildBinary(t)
	wd, _ := os.Getwd()
	capture := filepath.Join(wd, "../../testdata/rxe/pcap/lossy1.pcap")
	s := startTmux(t, 160, 48, bin+" replay "+capture)
	// It opens on the answer: the file read, paused at its end, the
	// flow that lost the most (flow 1, 22 PSNs) selected, with when in
	// the file it was lost (lossy1: 20:25:40 to 20:25:41).
	pane := s.waitFor("REPLAY", "RoCE packets are being lost", "[END]", "[PAUSED]")
	if !strings.Contains(pane, "▶ CRIT 20:25:40–20:25:41 RoCE packets are being lost — dest_qp=0x000011 dst=192.168.77.2 flow=1 ") {
		t.Errorf("the strip does not open on flow 1's packet-loss with its span:\n%s", pane)
	}
	s.keys("3")
	s.waitFor("192.168.77.1", "192.168.77.2")
	s.keys("q")
}

func TestTmuxTooSmall(t *testing.T) {
	bin := buildBinary(t)
	s := startTmux(t, 50, 12, bin+" demo")
	s.waitFor("too small")
	s.keys("q")
}
