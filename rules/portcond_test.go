package rules

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/expr-lang/expr/ast"
	"github.com/rdmatop/rdmatop/probes"
)

// TestPortCondMatchesExpr evaluates every port and priority condition of
// the built-in pack, and a few written to reach every operator, on random
// ports (counters present or not, with or without a rate and a delta;
// fields set or nil; with a capture or without) and checks that what the
// engine answers (portcond.go, its kept errors included) is what expr
// answers, error text included.
func TestPortCondMatchesExpr(t *testing.T) {
	p, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	extra := []string{
		`port.rate_gbps / 4 + 1 - 2 * 3 > -1.5 && abs(-port.port) >= 1 && min(1, 2.5, port.port) == 1`,
		`Rate("a") * 2 < 10 || Delta("b") + 1 >= 2 || Value("c") - 1 <= 0 || !Has("a")`,
		`let x = Rate("a") ?? Delta("b") ?? 3; not (x == nil) && x != 3 && port.mtu != nil ? port.mtu > x : x > 1`,
		`prio.enabled == true && prio.priority in [3, 4] || port.state in ["DOWN", "INIT"] && Rate("a") / Rate("b") > 0`,
		`none(port.events, {.kind == "x"}) && all(port.events, {true}) && !any(port.events, {true}) && Rate("a") > 0`,
		`max(Rate("a") ?? 0, 1) > min(Delta("b"), 2)`,
		`Rate("a") + Delta("b") > 0 || Rate("b") - Value("c") > 0`,
		`(wire != nil && wire.pmtu > 0 ? wire.pmtu : nil) >= Rate("a")`,
	}
	type cond struct {
		name string
		v    *Variant
	}
	var conds []cond
	for _, r := range p.Rules {
		for _, v := range r.variants() {
			if v.cond != nil {
				conds = append(conds, cond{r.ID + "/" + string(v.Scope), v})
			}
		}
	}
	for i, when := range extra {
		r := &Rule{ID: fmt.Sprintf("extra-%d", i), Scope: ScopePriority, Severity: Info, Title: "t", When: when, Evidence: "e",
			Cause: "c", Confirm: []string{"c"}, Fix: []string{"f"}}
		if err := r.compile(); err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		conds = append(conds, cond{r.ID, r.variants()[0]})
	}
	names := map[string]bool{"a": true, "b": true, "c": true}
	for _, c := range conds {
		ast.Find(c.v.cond, func(n ast.Node) bool {
			if s, ok := n.(*ast.StringNode); ok {
				names[s.Value] = true
			}
			return false
		})
	}
	params := map[string]float64{}
	for _, r := range p.Rules {
		for k, v := range r.Params {
			params[k] = v
		}
	}
	rnd := rand.New(rand.NewSource(1))
	e := NewEngine(p)
	decided := map[string]int{}
	for range 3000 {
		env := randomPortEnv(rnd, names)
		env.Params = params
		for _, c := range conds {
			want, wantErr := e.machine.Run(c.v.fast, env)
			got, gotErr, ok := e.runCond(c.v, env)
			if !ok {
				continue
			}
			decided[c.name]++
			if fmt.Sprint(got) != fmt.Sprint(want) || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Fatalf("%s on %+v %+v counters %v:\nengine %v, %v\nexpr   %v, %v", c.name, *env.Port, *env.Prio, env.counters, got, gotErr, want, wantErr)
			}
		}
	}
	// The pack's conditions the engine evaluates itself.
	for _, id := range []string{"phy-errors/port", "icrc-errors/port", "pfc-pause-storm/priority", "mtu-mismatch/port",
		"dcqcn-misconfigured/priority", "link-flap/port", "extra-0", "extra-1", "extra-2", "extra-3", "extra-4", "extra-5", "extra-6"} {
		if decided[id] < 100 {
			t.Errorf("%s decided %d times of 3000, want most", id, decided[id])
		}
	}
}

// randomPortEnv is a port and priority with random data: each counter of
// names present or not, with or without a rate and a delta.
func randomPortEnv(rnd *rand.Rand, names map[string]bool) *Env {
	pick := func(xs ...any) any { return xs[rnd.Intn(len(xs))] }
	nums := []float64{0, 0.5, 1, 2, 10, 1000, 1e6}
	num := func() float64 { return nums[rnd.Intn(len(nums))] }
	env := &Env{Host: &HostEnv{}}
	if rnd.Intn(4) == 0 {
		env.Wire = &WireEnv{PMTU: rnd.Intn(2) * 4096}
	}
	env.Port = &PortEnv{Device: "mlx5_0", Port: rnd.Intn(3), Netdev: "eth0",
		State: pick("ACTIVE", "DOWN", "INIT").(string), PhysState: pick("LinkUp", "Disabled").(string),
		LinkLayer: pick("Ethernet", "InfiniBand").(string), RateGbps: float64(rnd.Intn(2) * 100),
		MTU: pick(nil, 1500, 9000), RoCEMTU: pick(nil, 1024, 4096), MaxPayloadIn: pick(nil, 1024, 4096)}
	if rnd.Intn(5) == 0 {
		env.Port.Events = []probes.Event{{Kind: "link_downed", Source: "port"}}
	}
	env.Prio = &PrioEnv{Priority: rnd.Intn(8), Enabled: pick(nil, true, false),
		RxPausePerSec: pick(nil, num()), TxPausePerSec: pick(nil, num()), RxPausedPct: pick(nil, num()), TxPausedPct: pick(nil, num())}
	for n := range names {
		if rnd.Intn(3) == 0 {
			continue
		}
		c := probes.Counter{Name: n, Value: uint64(num())}
		if rnd.Intn(5) > 0 {
			d := uint64(num())
			c.Delta = &d
		}
		if rnd.Intn(5) > 0 {
			r := num()
			c.Rate = &r
		}
		env.counters = append(env.counters, c)
	}
	return env
}
