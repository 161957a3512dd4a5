package saved

import (
	"strings"

	"github.com/rdmatop/rdmatop/internal/lazyre"
	"github.com/rdmatop/rdmatop/probes"
)

// A mlxconfig query line: "         ROCE_CC_PRIO_MASK_P1      255".
var reMlxconfig = lazyre.New(`^\s+([A-Z][A-Z0-9_]+)\s+(\S.*)$`)

// mlxconfig reads `mlxconfig -d DEV query`: firmware settings, of which
// the RoCE congestion-control ones (ROCE_CC_*, DCQCN's firmware knobs)
// matter here. They go into the model as an ECN configuration of source
// "mlxconfig".
func (l *loader) mlxconfig(sec *section, in *Input) bool {
	params := map[string]string{}
	other := 0
	for _, s := range sec.lines {
		t := strings.TrimSpace(s)
		if t == "" || strings.HasPrefix(t, "Device") || strings.HasPrefix(t, "Configurations:") ||
			strings.HasPrefix(t, "Description:") || strings.HasPrefix(t, "PCI device:") ||
			strings.HasPrefix(t, "Device type:") || strings.HasPrefix(t, "Name:") {
			continue
		}
		m := reMlxconfig().FindStringSubmatch(s)
		if m == nil {
			return false
		}
		params[m[1]] = strings.TrimSpace(m[2])
		if !strings.Contains(m[1], "CC") && !strings.Contains(m[1], "ROCE") && !strings.Contains(m[1], "DCQCN") &&
			!strings.Contains(m[1], "RATE") {
			other++
		}
	}
	if len(params) == 0 || other == len(params) {
		return false
	}
	dev := ""
	args := sec.args()
	for i, a := range args {
		if a == "-d" && i+1 < len(args) {
			dev = args[i+1]
		}
	}
	l.h.ecn = append(l.h.ecn, probes.ECNConfig{Device: dev, Params: params, Source: "mlxconfig"})
	in.read("%s (RoCE congestion control among them)", plural(len(params), "firmware setting"))
	if dev == "" {
		in.ignore("no `mlxconfig -d DEV` line: the settings are not tied to a device")
	}
	return true
}
