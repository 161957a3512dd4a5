package qpevent

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/probes/rdmanl"
)

// Real data: the polled `rdma -j -d res show qp` timelines of the
// Soft-RoCE fault scenarios (testdata/rxe-faults-qp/MANIFEST.md).
var faultsRoot = filepath.Join("..", "..", "testdata", "rxe-faults-qp")

type poll struct {
	t   time.Time
	qps []rdmanl.QP
}

// unixTime reads a unix time written with up to 9 decimals, exactly.
func unixTime(s string) (time.Time, error) {
	sec, frac, _ := strings.Cut(s, ".")
	secs, err := strconv.ParseInt(sec, 10, 64)
	if err != nil {
		return time.Time{}, err
	}
	if len(frac) > 9 {
		return time.Time{}, fmt.Errorf("time %q: too many decimals", s)
	}
	nsec := int64(0)
	if frac != "" {
		if nsec, err = strconv.ParseInt(frac+strings.Repeat("0", 9-len(frac)), 10, 64); err != nil {
			return time.Time{}, err
		}
	}
	return time.Unix(secs, nsec).UTC(), nil
}

// loadTimeline reads qp-timeline.jsonl: {"t":<unix time>,"qp":<rdma -j
// -d res show qp>} per poll.
func loadTimeline(t *testing.T, scenario string) []poll {
	t.Helper()
	f, err := os.Open(filepath.Join(faultsRoot, scenario, "qp-timeline.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []poll
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var rec struct {
			T  json.Number     `json:"t"`
			QP json.RawMessage `json:"qp"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		at, err := unixTime(rec.T.String())
		if err != nil {
			t.Fatal(err)
		}
		qps, err := rdmanl.ParseRdmaJSONQPs(rec.QP)
		if err != nil {
			t.Fatalf("%s at %s: %v", scenario, rec.T, err)
		}
		out = append(out, poll{at, qps})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// replay runs a timeline through a Detector (first poll = baseline).
func replay(polls []poll) []Event {
	var d Detector
	var ev []Event
	for _, p := range polls {
		ev = append(ev, d.Observe(p.qps, p.t)...)
	}
	return ev
}

// toolEvents reads "<time> <scenario> start|connected|destroyed ..." lines
// of the fault program's log (tool.out).
type toolLog struct {
	start     []time.Time
	connected []time.Time            // per QP pair, in order
	destroyed map[string][]time.Time // "rxe0/0x12"
}

var destroyedRE = regexp.MustCompile(` destroyed side=\w dev=(\w+) qpn=(0x[0-9a-f]+)`)

func loadTool(t *testing.T, scenario string) toolLog {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(faultsRoot, scenario, "tool.out"))
	if err != nil {
		t.Fatal(err)
	}
	lg := toolLog{destroyed: map[string][]time.Time{}}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		at, err := unixTime(f[0])
		if err != nil {
			continue
		}
		switch f[2] {
		case "start":
			lg.start = append(lg.start, at)
		case "connected":
			lg.connected = append(lg.connected, at)
		case "destroyed":
			if m := destroyedRE.FindStringSubmatch(line); m != nil {
				lg.destroyed[m[1]+"/"+m[2]] = append(lg.destroyed[m[1]+"/"+m[2]], at)
			}
		}
	}
	return lg
}

func ms(s string) time.Time {
	at, err := unixTime(s)
	if err != nil {
		panic(err)
	}
	return at
}

// The MANIFEST (testdata/rxe-faults-qp/MANIFEST.upstream.md): which QPs
// go RTS -> ERR and the first poll showing ERR ("netlink" time, to the
// millisecond), and the QP pairs each scenario creates.
var scenarios = []struct {
	name  string
	qpns  []uint32             // QP numbers created on both rxe0 and rxe1
	toERR map[string]time.Time // "rxe0/0x12" -> netlink ERR time
}{
	{"rnr-recover", []uint32{0x11}, nil},
	{"rnr-exceeded", []uint32{0x12}, map[string]time.Time{"rxe0/0x12": ms("1795985390.808")}},
	{"access", []uint32{0x13, 0x14, 0x15, 0x16}, map[string]time.Time{
		"rxe0/0x13": ms("1795985404.413"), "rxe1/0x13": ms("1795985404.413"),
		"rxe0/0x14": ms("1795985408.510"), "rxe1/0x14": ms("1795985408.510"),
		"rxe0/0x15": ms("1795985412.471"), "rxe1/0x15": ms("1795985412.471"),
		"rxe0/0x16": ms("1795985416.569"), "rxe1/0x16": ms("1795985416.569"),
	}},
	{"retry", []uint32{0x17}, map[string]time.Time{"rxe0/0x17": ms("1795985429.678")}},
	{"retry-linkdown", []uint32{0x18}, map[string]time.Time{"rxe0/0x18": ms("1795985443.362")}},
	{"invreq", []uint32{0x19}, map[string]time.Time{"rxe0/0x19": ms("1795985457.277"), "rxe1/0x19": ms("1795985457.277")}},
	{"remop", []uint32{0x1a}, map[string]time.Time{"rxe0/0x1a": ms("1795985469.540"), "rxe1/0x1a": ms("1795985469.540")}},
}

func qpName(e Event) string { return fmt.Sprintf("%s/%#x", e.Dev, e.LQPN) }

func TestFaultTimelines(t *testing.T) {
	totalERR := 0
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			polls := loadTimeline(t, sc.name)
			tool := loadTool(t, sc.name)
			events := replay(polls)

			// pollAfter: the first poll strictly after at; pollBefore: the
			// last poll at or before it.
			pollAfter := func(at time.Time) time.Time {
				for _, p := range polls {
					if p.t.After(at) {
						return p.t
					}
				}
				return time.Time{}
			}
			pollBefore := func(at time.Time) time.Time {
				var last time.Time
				for _, p := range polls {
					if p.t.After(at) {
						break
					}
					last = p.t
				}
				return last
			}

			// 1. Errors: exactly the MANIFEST's RTS -> ERR transitions, at
			// its netlink times. Nothing else is an error.
			gotERR := map[string]time.Time{}
			for _, e := range events {
				if !e.IsError() {
					continue
				}
				if e.Kind != StateChange || e.From != rdmanl.QPRTS || e.To != rdmanl.QPErr {
					t.Errorf("unexpected error event: %s", e.Detail())
					continue
				}
				if _, dup := gotERR[qpName(e)]; dup {
					t.Errorf("%s went to ERR twice", qpName(e))
				}
				gotERR[qpName(e)] = e.Time
				t.Logf("%s %s", e.Time.Format("15:04:05.000000"), e.Detail())
			}
			if len(gotERR) != len(sc.toERR) {
				t.Errorf("%d QPs went to ERR, the MANIFEST lists %d: %v", len(gotERR), len(sc.toERR), gotERR)
			}
			for qp, want := range sc.toERR {
				got, ok := gotERR[qp]
				if !ok {
					t.Errorf("%s: no RTS -> ERR", qp)
					continue
				}
				if !got.Round(time.Millisecond).Equal(want) {
					t.Errorf("%s: first ERR poll at %s, MANIFEST says %s", qp, got.Format("05.000000"), want.Format("05.000"))
				}
			}
			totalERR += len(gotERR)

			// 2. Creation and destruction: every scenario QP (on both
			// devices) is created once and destroyed once; GSI QP 1 never.
			type life struct {
				created, destroyed []Event
				states             []Event
			}
			lives := map[string]*life{}
			for _, e := range events {
				l := lives[qpName(e)]
				if l == nil {
					l = &life{}
					lives[qpName(e)] = l
				}
				switch e.Kind {
				case Created:
					l.created = append(l.created, e)
				case Destroyed:
					l.destroyed = append(l.destroyed, e)
				default:
					l.states = append(l.states, e)
				}
			}
			var want []string
			for _, n := range sc.qpns {
				want = append(want, fmt.Sprintf("rxe0/%#x", n), fmt.Sprintf("rxe1/%#x", n))
			}
			var got []string
			for k := range lives {
				got = append(got, k)
			}
			sort.Strings(got)
			sort.Strings(want)
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Fatalf("QPs with events: %v, want %v", got, want)
			}
			for i, n := range sc.qpns {
				for _, dev := range []string{"rxe0", "rxe1"} {
					name := fmt.Sprintf("%s/%#x", dev, n)
					l := lives[name]
					if len(l.created) != 1 || len(l.destroyed) != 1 {
						t.Errorf("%s: created %d times, destroyed %d times", name, len(l.created), len(l.destroyed))
						continue
					}
					c, d := l.created[0], l.destroyed[0]
					if c.PID == 0 || c.Comm != "python3" || c.Type != rdmanl.QPTypeRC {
						t.Errorf("%s: created by %q pid %d, type %s", name, c.Comm, c.PID, c.Type)
					}
					// Created between the program's start and the first poll
					// after the pair was connected.
					start := tool.start[0]
					if i < len(tool.connected) {
						if limit := pollAfter(tool.connected[i]); c.Time.Before(pollBefore(start)) || c.Time.After(limit) {
							t.Errorf("%s: created at %s, outside [%s, %s]", name, c.Time, pollBefore(start), limit)
						}
					}
					// Destroyed at the last poll before the program's
					// ibv_destroy_qp, or at the first poll after it.
					dl := tool.destroyed[name]
					if len(dl) != 1 {
						t.Errorf("%s: tool.out has %d destroy lines", name, len(dl))
					} else if !d.Time.Equal(pollBefore(dl[0])) && !d.Time.Equal(pollAfter(dl[0])) {
						t.Errorf("%s: destroyed at poll %s, tool destroyed it at %s", name, d.Time, dl[0])
					}
					// Life order and last state: created, (RESET/INIT/RTR ->)
					// RTS, then ERR for the MANIFEST's QPs, destroyed from there.
					wantLast := rdmanl.QPRTS
					if _, e := sc.toERR[name]; e {
						wantLast = rdmanl.QPErr
					}
					if d.From != wantLast {
						t.Errorf("%s: destroyed in %s, want %s", name, d.From, wantLast)
					}
					for _, s := range l.states {
						if s.Time.Before(c.Time) || s.Time.After(d.Time) {
							t.Errorf("%s: %s outside its life", name, s.Detail())
						}
						if s.To != rdmanl.QPRTS && s.To != rdmanl.QPErr {
							t.Errorf("%s: unexpected transition %s", name, s.Detail())
						}
						if s.To == rdmanl.QPRTS && s.From > rdmanl.QPRTR {
							t.Errorf("%s: unexpected transition %s", name, s.Detail())
						}
					}
				}
			}
			// rnr-exceeded: A was RTS from its first poll (MANIFEST: "RTS
			// before (netlink from 1795985389.744)").
			if sc.name == "rnr-exceeded" {
				c := lives["rxe0/0x12"].created[0]
				if c.To != rdmanl.QPRTS || !c.Time.Round(time.Millisecond).Equal(ms("1795985389.744")) {
					t.Errorf("rnr-exceeded A created %s at %s", c.To, c.Time)
				}
			}
		})
	}
	// MANIFEST totals: rxe0 0x12..0x1a (9) and rxe1 0x13..0x16, 0x19, 0x1a (6).
	if totalERR != 15 {
		t.Errorf("%d QPs went to ERR in the set, MANIFEST totals 15", totalERR)
	}
}
