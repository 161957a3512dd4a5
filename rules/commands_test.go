package rules

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Confirm and fix lines run as printed wherever the finding knows the
// value; what it cannot know stays a placeholder. They used to keep DEV,
// N and IFACE for device=rxe0 port=1 netdev=veth0.
func TestRenderCommands(t *testing.T) {
	objs := map[string]string{"device": "rxe0", "port": "1", "netdev": "veth0", "priority": "3"}
	in := []string{
		"cat /sys/class/infiniband/DEV/ports/N/counters/link_downed",
		"rdma statistic show link DEV/N",
		"ip -s link show IFACE; mlnx_qos -i IFACE  # PFC on PRIO",
		"ibv_rc_pingpong -d DEV -g GIDX PEER  # N of them",
		"nothing to fill",
	}
	want := []string{
		"cat /sys/class/infiniband/rxe0/ports/1/counters/link_downed",
		"rdma statistic show link rxe0/1",
		"ip -s link show veth0; mlnx_qos -i veth0  # PFC on 3",
		"ibv_rc_pingpong -d rxe0 -g GIDX PEER  # N of them",
		"nothing to fill",
	}
	if got := renderCommands(in, objs, nil, nil); !slices.Equal(got, want) {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	// A flow knows no device: its lines keep DEV, and the pack's own
	// slice is never written to.
	flow := map[string]string{"src": "10.0.0.1", "dst": "10.0.0.2", "dest_qp": "0x000011"}
	if got := renderCommands(in, flow, nil, nil); got[0] != in[0] || &got[0] != &in[0] {
		t.Errorf("flow: %q (a copy made for nothing to fill)", got[0])
	}
	if in[0] != "cat /sys/class/infiniband/DEV/ports/N/counters/link_downed" {
		t.Error("the pack's line was changed")
	}
}

// A rule's vars must name a placeholder of the one notation: a misspelt
// one is an error at load, not a line that silently keeps it.
func TestVarsNameAPlaceholder(t *testing.T) {
	r := Rule{ID: "x", Title: "x", Severity: Warning, Scope: ScopeHost, When: "true", Cause: "c",
		Confirm: []string{"lspci -s PCI_ADDR"}, Fix: []string{"f"}, Vars: map[string]string{"PCI": `"0000:01:00.0"`}}
	if err := r.compile(); err == nil || !strings.Contains(err.Error(), `"PCI" is not a placeholder`) {
		t.Errorf("vars PCI: %v", err)
	}
	r.Vars = map[string]string{"PCI_ADDR": `"0000:01:00.0"`}
	if err := r.compile(); err != nil {
		t.Fatal(err)
	}
	if got := renderCommands(r.Confirm, nil, map[string]string{"PCI_ADDR": "0000:01:00.0"}, nil); got[0] != "lspci -s 0000:01:00.0" {
		t.Errorf("%q", got)
	}
}

// A command inside a cause or a fix, which are prose, is backquoted: the
// screen wraps prose at spaces but keeps a `backquoted` span whole, so
// that `echo 1 > PATH` never loses its path to the next line (issue 33,
// item 8). The usual shapes of a command: an echo into a file, or one of
// the tools the pack names followed by an option.
func TestProseCommandsAreBackquoted(t *testing.T) {
	p, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	command := regexp.MustCompile(`echo \d+ >|\b(tcpdump|ethtool|mlnx_qos|cma_roce_tos|ibdump|rdmatop|gdb|dcb|mlxconfig|ip|rdma|sysctl|setcap|ulimit|devlink|lspci) -`)
	quoted := regexp.MustCompile("`[^`]*`")
	for _, r := range p.Rules {
		for _, s := range append([]string{r.Cause}, r.Fix...) {
			if command.MatchString(quoted.ReplaceAllString(s, "``")) {
				t.Errorf("%s: a command outside backquotes in %q", r.ID, s)
			}
		}
	}
}
