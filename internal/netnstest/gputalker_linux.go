//go:build linux

package netnstest

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// talkerEnv marks the test binary, executed again, as a GPU talker.
const talkerEnv = "RDMATOP_NETNSTEST_GPU_TALKER"

// TalkerMain runs the GPU talker and exits when this process is one; a
// package whose tests start talkers calls it first in TestMain.
func TalkerMain() {
	if os.Getenv(talkerEnv) == "" {
		return
	}
	if err := talk(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "gpu talker:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// GPUTalker is a process in network and mount namespaces of its own that
// holds a stand-in GPU device file (/dev/nvidia0: an empty file on a
// tmpfs its namespace mounts over /dev, which the host's /dev never
// sees) and two TCP sockets, connected to each other over its loopback.
// It moves bytes only when told to (Push), so a test knows exactly what
// it moved.
type GPUTalker struct {
	Pid int
	in  io.WriteCloser
	out *bufio.Reader
}

// StartGPUTalker starts a talker (the test binary again: its TestMain
// must call TalkerMain), ended with the test. It skips without root.
func StartGPUTalker(t testing.TB) *GPUTalker {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skipf("needs root for network and mount namespaces; euid is %d", os.Geteuid())
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), talkerEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: unix.CLONE_NEWNS | unix.CLONE_NEWNET, Pdeathsig: syscall.SIGKILL}
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot start a process in namespaces of its own here: %v", err)
	}
	g := &GPUTalker{Pid: cmd.Process.Pid, in: in, out: bufio.NewReader(out)}
	t.Cleanup(func() {
		in.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("gpu talker: %v", err)
			}
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Errorf("gpu talker did not end")
		}
	})
	g.expect(t, "ready")
	return g
}

// Push has each of the talker's two sockets send n bytes to the other,
// and returns once both have read all of them: the process sent 2n and
// received 2n bytes.
func (g *GPUTalker) Push(t testing.TB, n int64) {
	t.Helper()
	if _, err := fmt.Fprintf(g.in, "push %d\n", n); err != nil {
		t.Fatal(err)
	}
	g.expect(t, "pushed")
}

func (g *GPUTalker) expect(t testing.TB, want string) {
	t.Helper()
	line, err := g.out.ReadString('\n')
	if strings.TrimSpace(line) != want {
		t.Fatalf("gpu talker said %q (%v), want %q", line, err, want)
	}
}

// talk is the talker's side: it sets up its namespaces, says "ready",
// then pushes on each "push N" line until its input ends.
func talk(in io.Reader, out io.Writer) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making mounts private: %w", err)
	}
	if err := unix.Mount("tmpfs", "/dev", "tmpfs", 0, "size=1m"); err != nil {
		return fmt.Errorf("tmpfs over /dev: %w", err)
	}
	gpu, err := os.Create("/dev/nvidia0")
	if err != nil {
		return err
	}
	defer gpu.Close()
	if err := loUp(); err != nil {
		return err
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer ln.Close()
	a, err := net.Dial("tcp4", ln.Addr().String())
	if err != nil {
		return err
	}
	defer a.Close()
	b, err := ln.Accept()
	if err != nil {
		return err
	}
	defer b.Close()
	fmt.Fprintln(out, "ready")
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		n, err := strconv.ParseInt(strings.TrimPrefix(sc.Text(), "push "), 10, 64)
		if err != nil {
			return err
		}
		if err := exchange(a, b, n); err != nil {
			return err
		}
		fmt.Fprintln(out, "pushed")
	}
	return sc.Err()
}

// exchange sends n bytes each way between a and b and reads them all.
func exchange(a, b net.Conn, n int64) error {
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i, c := range []net.Conn{a, b} {
		wg.Add(2)
		go func() {
			defer wg.Done()
			_, errs[2*i] = io.CopyN(c, zeros{}, n)
		}()
		go func() {
			defer wg.Done()
			_, errs[2*i+1] = io.CopyBuffer(io.Discard, io.LimitReader(c, n), nil)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// zeros reads as endless zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// loUp sets the namespace's loopback up.
func loUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}
