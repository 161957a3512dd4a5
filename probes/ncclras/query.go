// Package ncclras asks NCCL's RAS endpoint (NCCL 2.24 and later) what it
// knows of the jobs on this host: their communicators, the ranks that
// answered, and the ranks RAS could not reach (unresponsive) or gave up
// on (considered dead). It speaks RAS's text protocol as NCCL's own client
// (ncclras) does: "CLIENT PROTOCOL 2", "TIMEOUT s", "SET FORMAT json"
// (NCCL 2.28.7 and later), "STATUS", then reads the answer to its end.
//
// It only reads: the commands ask, none changes the job. Every exchange
// has a deadline and the answer a size bound.
package ncclras

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/rdmatop/rdmatop/probes"
)

// DefaultAddr is where RAS listens unless NCCL_RAS_ADDR says otherwise.
const DefaultAddr = "localhost:28028"

// Bounds of a query.
const (
	// Collect is how long RAS may wait for the job's other processes
	// ("TIMEOUT"): its own client's default, 5 s. A query takes at most
	// twice that and Slack, as NCCL's client allows.
	Collect = 5 * time.Second
	Slack   = 5 * time.Second
	// MaxAnswer bounds the answer: a rank is about 500 bytes of JSON, so
	// 64 MiB holds a job of over 100,000 ranks seen from one host.
	MaxAnswer = 64 << 20
)

// protocol is the client protocol version NCCL's client sends.
const protocol = 2

// ErrNoEndpoint is matched (errors.Is) when nothing listens at the
// address: no NCCL job on this host, NCCL older than 2.24, RAS disabled
// (NCCL_RAS_ENABLE=0), or another NCCL_RAS_ADDR.
// It is "not supported": there is nothing to ask, which is no failure.
var ErrNoEndpoint = fmt.Errorf("no NCCL RAS endpoint (no NCCL job on this host, NCCL older than 2.24, NCCL_RAS_ENABLE=0, or another NCCL_RAS_ADDR): %w", probes.ErrNotSupported)

// ErrTextOnly is matched when RAS answers but has no JSON output (NCCL
// 2.24 to 2.28.6): its text is for people, and rdmatop does not guess at
// it.
var ErrTextOnly = fmt.Errorf("NCCL RAS answers in text only (NCCL before 2.28.7); rdmatop reads its JSON: %w", probes.ErrNotSupported)

// Query asks the RAS endpoint at addr for the status of its jobs.
func Query(ctx context.Context, addr string) (*probes.NCCLRAS, error) {
	if addr == "" {
		addr = DefaultAddr
	}
	ctx, cancel := context.WithTimeout(ctx, 2*Collect+Slack)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) {
			return nil, fmt.Errorf("%s: %w", addr, ErrNoEndpoint)
		}
		return nil, fmt.Errorf("NCCL RAS %s: %w", addr, err)
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl) //nolint:errcheck // a TCP conn takes deadlines
	}
	// Cancellation closes the connection under a blocked read.
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()

	r := bufio.NewReader(io.LimitReader(conn, MaxAnswer+1))
	ask := func(cmd string) (string, error) {
		if _, err := io.WriteString(conn, cmd+"\n"); err != nil {
			return "", err
		}
		line, err := r.ReadString('\n')
		if err != nil {
			return "", fmt.Errorf("no answer to %q: %w", cmd, err)
		}
		return strings.TrimRight(line, "\r\n"), nil
	}
	fail := func(err error) (*probes.NCCLRAS, error) {
		switch {
		case ctx.Err() != nil:
			err = fmt.Errorf("%w (%v)", ctx.Err(), err)
		case errors.Is(err, os.ErrDeadlineExceeded):
			// The connection's deadline is the context's, and may
			// pass first.
			err = fmt.Errorf("%w (%v)", context.DeadlineExceeded, err)
		}
		return nil, fmt.Errorf("NCCL RAS %s: %w", addr, err)
	}
	line, err := ask(fmt.Sprintf("CLIENT PROTOCOL %d", protocol))
	if err != nil {
		return fail(err)
	}
	if !strings.HasPrefix(strings.ToUpper(line), "SERVER PROTOCOL ") {
		return fail(fmt.Errorf("not a RAS endpoint: it answered %.80q", line))
	}
	if line, err = ask(fmt.Sprintf("TIMEOUT %d", int(Collect/time.Second))); err != nil {
		return fail(err)
	} else if line != "OK" {
		return fail(fmt.Errorf("TIMEOUT: %.80q", line))
	}
	if line, err = ask("SET FORMAT json"); err != nil {
		return fail(err)
	} else if line != "OK" {
		return fail(fmt.Errorf("%w (it said %.80q)", ErrTextOnly, line))
	}
	if _, err := io.WriteString(conn, "STATUS\n"); err != nil {
		return fail(err)
	}
	body, err := io.ReadAll(r) // RAS closes the connection after the status
	if err != nil {
		return fail(err)
	}
	if len(body) > MaxAnswer {
		return fail(fmt.Errorf("answer over %d MiB", MaxAnswer>>20))
	}
	var st probes.NCCLRAS
	if err := json.Unmarshal(body, &st); err != nil {
		return fail(fmt.Errorf("bad JSON status: %w", err))
	}
	st.Addr = addr
	return &st, nil
}
