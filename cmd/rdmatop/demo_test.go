package main

import (
	"strings"
	"testing"
)

// rdmatop demo tells the whole story off a terminal.
func TestDemoReport(t *testing.T) {
	out, stderr, code := runCLI(t, "demo")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"healthy", "PFC back-pressure on priority 3", "[pfc-pause-backpressure]",
		"[ecn-marked-no-cnp]", "[qp-error-state]", "[packet-loss]", "[retransmissions]", "recovered"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo report lacks %q", want)
		}
	}
	js, _, code := runCLI(t, "demo", "--json")
	if code != 0 || strings.Count(js, "\n") != 117 || !strings.Contains(js, `"mode":"demo"`) {
		t.Errorf("demo --json: exit %d, %d lines", code, strings.Count(js, "\n"))
	}
}
