//go:build linux

package live

import (
	"errors"
	"fmt"
	"net"
	"os/exec"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestLiveLinkFlap takes the captured veth down, right after a burst, and
// up again under a live capture of one ring and of two rings in a fanout
// group. While it is down every reader says so (a *LinkDownError naming
// why) and sleeps: a handful of calls a second, not a spin (the kernel's
// ENETDOWN left pending made every poll return at once: a million
// wake-ups a second; so did a block of frames handed over after the
// fall and left unread).
// When it is back, frames are captured again, each in the ring
// FanoutShard names, as before the flap.
func TestLiveLinkFlap(t *testing.T) {
	for _, rings := range []int{1, 2} {
		t.Run(fmt.Sprintf("rings=%d", rings), func(t *testing.T) { testLinkFlap(t, rings) })
	}
}

func testLinkFlap(t *testing.T, rings int) {
	ns := ltNetns(t)
	const poll = 50 * time.Millisecond
	var (
		srcs   []*Source
		sender int
		idxB   int
	)
	ltInNetns(t, ns, func() error {
		if err := lfWaitRunning("vethA", "vethB"); err != nil {
			return err
		}
		ifb, err := net.InterfaceByName("vethB")
		if err != nil {
			return err
		}
		idxB = ifb.Index
		if srcs, err = OpenFanout("vethA", Options{PollTimeout: poll}, rings); err != nil {
			return err
		}
		sender, err = unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, 0)
		return err
	})
	t.Cleanup(func() {
		for _, s := range srcs {
			s.Close()
		}
		unix.Close(sender)
	})
	frames := fanoutCapture(t)
	send := func() {
		ltInNetns(t, ns, func() error {
			for _, f := range frames {
				sa := &unix.SockaddrLinklayer{Ifindex: idxB, Protocol: ltHtons(uint16(f[12])<<8 | uint16(f[13]))}
				if err := unix.Sendto(sender, f, 0, sa); err != nil {
					return err
				}
			}
			return nil
		})
	}

	// One reader per ring, as monitor's pumps: count frames, frames in
	// the wrong ring, calls, and what the last call said.
	var got, wrong, calls atomic.Int64
	var mu sync.Mutex
	last := make([]error, rings)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i, s := range srcs {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				data, _, _, err := s.ReadPacket()
				calls.Add(1)
				mu.Lock()
				last[i] = err
				mu.Unlock()
				switch {
				case err == nil:
					got.Add(1)
					if FanoutShard(data, rings) != i {
						wrong.Add(1)
					}
				case errors.Is(err, ErrTimeout), errors.Is(err, ErrLinkDown):
				default:
					t.Errorf("ring %d: %v", i, err)
					return
				}
			}
		})
	}
	t.Cleanup(func() { close(stop); wg.Wait() })
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); !ok(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within 5s", what)
			}
		}
	}

	// The link goes down right after a burst: the kernel hands over the
	// block holding its last frames (block timeout, 50 ms) while the
	// link is already down. Those frames are read, and the block does
	// not keep the socket readable for ever after (a reader that
	// ignored it spun).
	send()
	lfIP(t, ns, "link", "set", "vethA", "down")
	waitFor("frames before the flap", func() bool { return got.Load() == int64(len(frames)) })
	allDown := func() bool {
		mu.Lock()
		defer mu.Unlock()
		for _, err := range last {
			var ld *LinkDownError
			if !errors.As(err, &ld) || ld.Why != "administratively down" || ld.Iface != "vethA" {
				return false
			}
		}
		return true
	}
	waitFor("every ring says the link is administratively down", allDown)

	// Down for a second: each ring wakes once per poll timeout.
	var ru0, ru1 unix.Rusage
	unix.Getrusage(unix.RUSAGE_SELF, &ru0)
	c0, t0 := calls.Load(), time.Now()
	time.Sleep(time.Second)
	c1, el := calls.Load(), time.Since(t0)
	unix.Getrusage(unix.RUSAGE_SELF, &ru1)
	cpu := time.Duration(ru1.Utime.Nano()-ru0.Utime.Nano()) + time.Duration(ru1.Stime.Nano()-ru0.Stime.Nano())
	// At most one call per poll timeout per ring, with room for timer
	// slack: 3× that bound; the spin made millions.
	if maxCalls := 3 * int64(rings) * int64(el/poll+1); c1-c0 > maxCalls {
		t.Errorf("%d ReadPacket calls in %v while down, want at most %d: the reader spins", c1-c0, el, maxCalls)
	}
	if cpu > el/20 {
		t.Errorf("%v of CPU in %v while the link was down, want under 5%% of a core", cpu, el)
	}
	if !allDown() {
		t.Errorf("a ring stopped saying the link is down while it was: %v", last)
	}

	lfIP(t, ns, "link", "set", "vethA", "up")
	ltInNetns(t, ns, func() error { return lfWaitRunning("vethA", "vethB") })
	waitFor("the readers see the link back", func() bool {
		mu.Lock()
		defer mu.Unlock()
		for _, err := range last {
			if err != nil && !errors.Is(err, ErrTimeout) {
				return false
			}
		}
		return true
	})
	before := got.Load()
	send()
	waitFor("frames after the flap", func() bool { return got.Load() == before+int64(len(frames)) })
	if w := wrong.Load(); w > 0 {
		t.Errorf("%d frames reached a ring other than FanoutShard's", w)
	}
}

// lfWaitRunning waits up to 3 s for the interfaces to be up with a carrier.
func lfWaitRunning(names ...string) error {
	deadline := time.Now().Add(3 * time.Second)
	for _, name := range names {
		for {
			ifc, err := net.InterfaceByName(name)
			if err != nil {
				return err
			}
			if ifc.Flags&net.FlagRunning != 0 {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("%s not running after 3s", name)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	return nil
}

// lfIP runs ip(8) on namespace ns.
func lfIP(t *testing.T, ns string, args ...string) {
	t.Helper()
	out, err := exec.Command("ip", append([]string{"-n", ns}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("ip -n %s %v: %v: %s", ns, args, err, out)
	}
}
