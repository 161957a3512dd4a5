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
	nd := interfaceArg(sec.args())
	q := newQosReading(nd)
	for _, s := range sec.lines {
		q.line(strings.TrimSpace(s))
	}
	cfg := q.config()
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

// interfaceArg returns the netdev of an mlnx_qos command line (-i or
// --interface), "" when none.
func interfaceArg(args []string) string {
	nd := ""
	for i, a := range args {
		if (a == "-i" || a == "--interface") && i+1 < len(args) {
			nd = args[i+1]
		}
	}
	return nd
}

// qosReading is one mlnx_qos output as read so far.
type qosReading struct {
	cfg    probes.DCBConfig
	prios  []int    // the PFC table's priorities, for its enabled line
	tc     int      // the traffic class whose lines follow; -1 none yet
	prioTC []int    // priority -> traffic class; -1 unknown
	tsa    []string // traffic class -> transmission selection
}

func newQosReading(nd string) *qosReading {
	q := &qosReading{cfg: probes.DCBConfig{Netdev: nd, DSCPToPrio: map[int]int{}}, tc: -1,
		prioTC: make([]int, 8), tsa: make([]string, 8)}
	for i := range q.prioTC {
		q.prioTC[i] = -1
	}
	return q
}

// line reads one trimmed line of the output.
func (q *qosReading) line(t string) {
	switch {
	case strings.HasPrefix(t, "Priority trust state:"):
		q.cfg.Trust = strings.TrimSpace(strings.TrimPrefix(t, "Priority trust state:"))
	case strings.HasPrefix(t, "prio:") && strings.Contains(t, "dscp:"):
		f := strings.Fields(strings.ReplaceAll(t, "prio:", ""))
		p, err := strconv.Atoi(f[0])
		if err != nil || len(f) < 2 {
			return
		}
		for _, d := range strings.Split(strings.TrimPrefix(f[1], "dscp:"), ",") {
			if v, err := strconv.Atoi(d); err == nil {
				q.cfg.DSCPToPrio[v] = p
			}
		}
	case strings.HasPrefix(t, "priority ") && !strings.Contains(t, ":"):
		q.prios = q.prios[:0]
		for _, f := range strings.Fields(t)[1:] {
			if v, err := strconv.Atoi(f); err == nil {
				q.prios = append(q.prios, v)
			}
		}
	case strings.HasPrefix(t, "enabled ") && len(q.prios) > 0:
		q.cfg.PFCEnabled = q.cfg.PFCEnabled[:0]
		for i, f := range strings.Fields(t)[1:] {
			if f == "1" && i < len(q.prios) {
				q.cfg.PFCEnabled = append(q.cfg.PFCEnabled, q.prios[i])
			}
		}
	case strings.HasPrefix(t, "tc:"):
		// tc: 0 ratelimit: unlimited, tsa: vendor
		f := strings.Fields(t)
		if len(f) > 1 {
			q.tc, _ = strconv.Atoi(f[1])
		}
		if i := slices.Index(f, "tsa:"); i >= 0 && i+1 < len(f) && q.tc >= 0 && q.tc < 8 {
			q.tsa[q.tc] = f[i+1]
		}
	case strings.HasPrefix(t, "priority:") && q.tc >= 0:
		for _, f := range strings.Fields(strings.TrimPrefix(t, "priority:")) {
			if p, err := strconv.Atoi(f); err == nil && p >= 0 && p < 8 {
				q.prioTC[p] = q.tc
			}
		}
	}
}

// config returns what was read: the maps only where they are whole.
func (q *qosReading) config() probes.DCBConfig {
	cfg := q.cfg
	if cfg.PFCEnabled == nil {
		cfg.PFCEnabled = []int{}
	}
	if len(cfg.DSCPToPrio) == 0 {
		cfg.DSCPToPrio = nil
	}
	if !slices.Contains(q.prioTC, -1) {
		cfg.PrioToTC = q.prioTC
	}
	if !slices.Contains(q.tsa, "") {
		cfg.TCTSA = q.tsa
	}
	return cfg
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
