package saved

import (
	"slices"
	"strconv"
	"strings"

	"github.com/rdmatop/rdmatop/probes"
)

// mlnxQos reads `mlnx_qos -i NETDEV` (MLNX_OFED / mlnx-tools): trust
// state, the DSCP-to-priority map, PFC per priority and the
// priority-to-TC map. The last output in the section counts (a script's
// trace often prints it after each change).
func (l *loader) mlnxQos(sec *section, in *Input) bool {
	text := strings.Join(sec.lines, "\n")
	if !strings.Contains(text, "PFC configuration:") && !strings.Contains(text, "Priority trust state:") {
		return false
	}
	nd := ""
	args := sec.args()
	for i, a := range args {
		if (a == "-i" || a == "--interface") && i+1 < len(args) {
			nd = args[i+1]
		}
	}
	cfg := probes.DCBConfig{Netdev: nd, DSCPToPrio: map[int]int{}}
	var prios []int
	tc := -1
	prioTC := make([]int, 8)
	tsa := make([]string, 8)
	for i := range prioTC {
		prioTC[i] = -1
	}
	for _, s := range sec.lines {
		t := strings.TrimSpace(s)
		switch {
		case strings.HasPrefix(t, "Priority trust state:"):
			cfg.Trust = strings.TrimSpace(strings.TrimPrefix(t, "Priority trust state:"))
		case strings.HasPrefix(t, "prio:") && strings.Contains(t, "dscp:"):
			f := strings.Fields(strings.ReplaceAll(t, "prio:", ""))
			p, err := strconv.Atoi(f[0])
			if err != nil || len(f) < 2 {
				continue
			}
			for _, d := range strings.Split(strings.TrimPrefix(f[1], "dscp:"), ",") {
				if v, err := strconv.Atoi(d); err == nil {
					cfg.DSCPToPrio[v] = p
				}
			}
		case strings.HasPrefix(t, "priority ") && !strings.Contains(t, ":"):
			prios = prios[:0]
			for _, f := range strings.Fields(t)[1:] {
				if v, err := strconv.Atoi(f); err == nil {
					prios = append(prios, v)
				}
			}
		case strings.HasPrefix(t, "enabled ") && len(prios) > 0:
			cfg.PFCEnabled = cfg.PFCEnabled[:0]
			for i, f := range strings.Fields(t)[1:] {
				if f == "1" && i < len(prios) {
					cfg.PFCEnabled = append(cfg.PFCEnabled, prios[i])
				}
			}
		case strings.HasPrefix(t, "tc:"):
			// tc: 0 ratelimit: unlimited, tsa: vendor
			f := strings.Fields(t)
			if len(f) > 1 {
				tc, _ = strconv.Atoi(f[1])
			}
			if i := slices.Index(f, "tsa:"); i >= 0 && i+1 < len(f) && tc >= 0 && tc < 8 {
				tsa[tc] = f[i+1]
			}
		case strings.HasPrefix(t, "priority:") && tc >= 0:
			for _, f := range strings.Fields(strings.TrimPrefix(t, "priority:")) {
				if p, err := strconv.Atoi(f); err == nil && p >= 0 && p < 8 {
					prioTC[p] = tc
				}
			}
		}
	}
	if cfg.PFCEnabled == nil {
		cfg.PFCEnabled = []int{}
	}
	if len(cfg.DSCPToPrio) == 0 {
		cfg.DSCPToPrio = nil
	}
	complete := true
	for _, t := range prioTC {
		complete = complete && t >= 0
	}
	if complete {
		cfg.PrioToTC = prioTC
	}
	if !slices.Contains(tsa, "") {
		cfg.TCTSA = tsa
	}
	if nd == "" {
		in.ignore("no `mlnx_qos -i NETDEV` line: the settings are not tied to a netdev")
		nd = "unnamed-qos"
		cfg.Netdev = nd
	}
	// A transcript of several mlnx_qos commands on one netdev prints its
	// state after each: the last is the one in effect.
	again := ""
	if _, seen := l.h.dcb[nd]; seen {
		again = " (again: this later reading is the one kept)"
	}
	l.h.dcb[nd] = cfg
	in.read("%s: trust %s, PFC on priorities %v%s", nd, orUnknown(cfg.Trust), cfg.PFCEnabled, again)
	return true
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
