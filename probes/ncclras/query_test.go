package ncclras

import (
	"bufio"
	"context"
	"errors"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// server is a RAS endpoint as NCCL's src/ras/client_support.cc answers:
// a line per command, the status then the end of the connection. jsonOK
// false is NCCL before 2.28.7, which knows no SET FORMAT.
type server struct {
	ln     net.Listener
	status []byte
	jsonOK bool
	silent bool // accepts, then never answers
	wg     sync.WaitGroup
	mu     sync.Mutex
	cmds   []string
}

func startServer(t *testing.T, s *server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.ln = ln
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				s.serve(c)
			}()
		}
	}()
	t.Cleanup(func() { ln.Close(); s.wg.Wait() })
	return ln.Addr().String()
}

func (s *server) serve(c net.Conn) {
	defer c.Close()
	if s.silent {
		c.SetReadDeadline(time.Now().Add(30 * time.Second))
		buf := make([]byte, 64)
		for {
			if _, err := c.Read(buf); err != nil {
				return
			}
		}
	}
	r := bufio.NewReader(c)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		cmd := strings.TrimRight(line, "\r\n")
		s.mu.Lock()
		s.cmds = append(s.cmds, cmd)
		s.mu.Unlock()
		lc := strings.ToLower(cmd)
		switch {
		case strings.HasPrefix(lc, "client protocol "):
			c.Write([]byte("SERVER PROTOCOL 2\n"))
		case strings.HasPrefix(lc, "timeout "):
			c.Write([]byte("OK\n"))
		case strings.HasPrefix(lc, "set format ") && s.jsonOK:
			c.Write([]byte("OK\n"))
		case lc == "status":
			c.Write(s.status)
			return
		default:
			c.Write([]byte("ERROR: Unknown command " + cmd + "\n"))
		}
	}
}

func docsStatus(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("../../testdata/ncclras/status-2.29.1-docs.json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// NCCL's own sample answer (2.29.1, one rank unresponsive) read through
// the protocol NCCL's client speaks.
func TestQueryJSON(t *testing.T) {
	s := &server{status: docsStatus(t), jsonOK: true}
	addr := startServer(t, s)
	st, err := Query(context.Background(), addr)
	if err != nil {
		t.Fatal(err)
	}
	if st.Addr != addr || st.NCCLVersion != "2.29.1" || st.Timestamp != "2025-12-19 13:06:53" || len(st.Communicators) != 1 {
		t.Fatalf("%+v", st)
	}
	c := st.Communicators[0]
	if c.Hash != "0xae94423cfbb2ef4a" || c.Size != 2 || c.RanksCount != 1 || c.MissingCount != 1 || len(c.Ranks) != 1 || len(c.Missing) != 1 {
		t.Fatalf("communicator %+v", c)
	}
	if r := c.Ranks[0]; r.Rank != 0 || r.Host != "172.16.64.245" || r.PID != 1524344 || r.Status.InitState != 0 || r.Status.AbortFlag {
		t.Errorf("rank %+v", r)
	}
	if m := c.Missing[0]; m.Rank != 1 || m.PID != 1524345 || m.CUDADev != 1 || !m.Status.Unresponsive || m.Status.ConsideredDead {
		t.Errorf("missing %+v", m)
	}
	want := []string{"CLIENT PROTOCOL 2", "TIMEOUT 5", "SET FORMAT json", "STATUS"}
	if strings.Join(s.cmds, "|") != strings.Join(want, "|") {
		t.Errorf("commands %q, want %q", s.cmds, want)
	}
}

// What can go wrong says what it is: nothing listening, an NCCL too old
// for JSON, something else on the port, an endpoint that never answers
// (bounded by the context), a damaged answer.
func TestQueryFailures(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := ln.Addr().String()
	ln.Close()
	if _, err := Query(context.Background(), closed); !errors.Is(err, ErrNoEndpoint) {
		t.Errorf("nothing listening: %v", err)
	}
	old := startServer(t, &server{status: []byte("Job summary\n"), jsonOK: false})
	if _, err := Query(context.Background(), old); !errors.Is(err, ErrTextOnly) || !strings.Contains(err.Error(), "Unknown command") {
		t.Errorf("NCCL 2.27: %v", err)
	}
	other, _ := net.Listen("tcp", "127.0.0.1:0")
	go func() {
		c, err := other.Accept()
		if err == nil {
			c.Write([]byte("HTTP/1.1 400 Bad Request\r\n\r\n"))
			c.Close()
		}
	}()
	defer other.Close()
	if _, err := Query(context.Background(), other.Addr().String()); err == nil || !strings.Contains(err.Error(), "not a RAS endpoint") {
		t.Errorf("an HTTP server: %v", err)
	}
	silent := startServer(t, &server{silent: true})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := Query(ctx, silent); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("silent endpoint: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("silent endpoint held the query %v", d)
	}
	bad := startServer(t, &server{status: []byte(`{"nccl_version": "2.29.1", "communicators": [`), jsonOK: true})
	if _, err := Query(context.Background(), bad); err == nil || !strings.Contains(err.Error(), "bad JSON") {
		t.Errorf("cut answer: %v", err)
	}
}

// The watcher answers at once with the latest status, and stops with
// its goroutine on Close.
func TestWatcher(t *testing.T) {
	s := &server{status: docsStatus(t), jsonOK: true}
	addr := startServer(t, s)
	w := Watch(context.Background(), addr, 10*time.Millisecond)
	deadline := time.Now().Add(5 * time.Second)
	for {
		st, err := w.Poll()
		if err == nil && st != nil && st.NCCLVersion == "2.29.1" {
			break
		}
		if !errors.Is(err, ErrNotYet) && err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatal("no answer in 5 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	w.Close()
	s.mu.Lock()
	n := len(s.cmds)
	s.mu.Unlock()
	time.Sleep(50 * time.Millisecond)
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.cmds) != n {
		t.Errorf("queries went on after Close: %d → %d commands", n, len(s.cmds))
	}
}
