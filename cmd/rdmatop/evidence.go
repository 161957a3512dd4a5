package main

import (
	"fmt"
	"strings"

	"github.com/rdmatop/rdmatop/monitor"
	"github.com/rdmatop/rdmatop/probes"
)

// unknownReason says why a live check has nothing to judge RDMA health on
// (monitor.Frame.Checked), or "" when it has. Without it, "no findings" would be a clean
// bill of health for a host nobody examined (a node-problem-detector
// plugin would mark the node RoCE-healthy): the verdict is UNKNOWN, with
// the reason, and the exit status 2.
func unknownReason(f monitor.Frame, h *hostFlags) string {
	if f.Checked() {
		return ""
	}
	s := f.Snapshot
	var why string
	switch {
	case h.device != "":
		why = fmt.Sprintf("-d %s names no RDMA device on this host", h.device)
	case h.netdev != "":
		why = fmt.Sprintf("-i %s: no RDMA port on that netdev", h.netdev)
	default:
		why = "no RDMA device on this host"
	}
	// The sources that could not look say why, in their own words.
	var failed []string
	if s != nil {
		for _, st := range s.Status {
			if st.State != probes.StateOK && st.Detail != "" && (st.Source == "sysfs" || strings.HasPrefix(st.Source, "capture") ||
				st.Source == "rtnetlink" || st.State == probes.StatePermissionDenied) {
				failed = append(failed, st.Source+": "+st.Detail)
			}
		}
	}
	if f.WireStatus != nil && f.WireStatus.State != probes.StateOK && (s == nil || !hasStatus(s.Status, f.WireStatus.Source)) {
		failed = append(failed, f.WireStatus.Source+": "+f.WireStatus.Detail)
	}
	if h.netdev != "" && f.Interval != nil && f.Interval.RoCEPackets == 0 && (f.WireStatus == nil || f.WireStatus.State == probes.StateOK) {
		failed = append(failed, "the capture on "+h.netdev+" saw no RoCE packet")
	}
	if len(failed) > 0 {
		why += " (" + strings.Join(failed, "; ") + ")"
	}
	return "nothing was checked: " + why
}

func hasStatus(sts []probes.Status, source string) bool {
	for _, st := range sts {
		if st.Source == source {
			return true
		}
	}
	return false
}
