package rules

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/nccl"
)

// ncclShown is how many distinct NCCL errors a finding's evidence lists:
// a job logs the same error once per channel and rank, and the first few
// distinct ones name the peers and devices.
const ncclShown = 4

// ncclEvidence summarises the NCCL log's events of one kind (for
// completion errors, of the given ibv_wc_status numbers; none: any): each
// distinct error once, with how often it was logged, at most ncclShown.
// It is the evidence template function "nccl".
func ncclEvidence(events []probes.Event, kind string, statuses ...int) string {
	type group struct {
		text string
		n    int
	}
	var groups []group
	index := map[string]int{}
	for i := range events {
		e := &events[i]
		if e.Source != "nccl" || e.Kind != kind || e.NCCL == nil {
			continue
		}
		n := e.NCCL
		if len(statuses) > 0 && (n.Status == nil || !slices.Contains(statuses, *n.Status)) {
			continue
		}
		t := ncclText(e)
		if k, ok := index[t]; ok {
			groups[k].n++
			continue
		}
		index[t] = len(groups)
		groups = append(groups, group{t, 1})
	}
	var b strings.Builder
	for i, g := range groups {
		if i == ncclShown {
			fmt.Fprintf(&b, "; and %d more", len(groups)-ncclShown)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(g.text)
		if g.n > 1 {
			fmt.Fprintf(&b, " (×%d)", g.n)
		}
	}
	return b.String()
}

// ncclText describes one NCCL event for people: what failed, toward whom,
// on which device, as logged on which host.
func ncclText(e *probes.Event) string {
	n := e.NCCL
	var b strings.Builder
	if n.Host != "" {
		b.WriteString(n.Host)
		if n.PID != 0 {
			b.WriteString(" pid " + strconv.Itoa(n.PID))
		}
		b.WriteString(": ")
	}
	switch e.Kind {
	case nccl.KindCompletion:
		if n.Status != nil {
			b.WriteString("status " + strconv.Itoa(*n.Status))
			if n.StatusName != "" {
				b.WriteString(" " + n.StatusName)
			}
		} else {
			b.WriteString("completion error")
		}
		if n.Peer != "" {
			b.WriteString(" toward " + n.Peer)
		}
		if e.Device != "" {
			b.WriteString(" on " + e.Device)
		}
		if e.QPN != nil {
			fmt.Fprintf(&b, " QP %d", *e.QPN)
		}
		if n.Direction != "" {
			b.WriteString(" (" + n.Direction + ")")
		}
		if n.VendorErr != nil {
			fmt.Fprintf(&b, ", vendor err %d (0x%x)", *n.VendorErr, *n.VendorErr)
		}
		if n.LocalGID != "" || n.RemoteGID != "" {
			b.WriteString(", GID " + n.LocalGID + " → " + n.RemoteGID)
		}
	case nccl.KindLinkLocalGID:
		b.WriteString("QPs from ")
		if n.GIDIndex != nil {
			b.WriteString("GID index " + strconv.Itoa(*n.GIDIndex) + ", ")
		}
		b.WriteString(n.LocalGID + " (link-local)")
	case nccl.KindAsync:
		if e.Device != "" {
			b.WriteString(e.Device + ":" + strconv.Itoa(e.Port) + " ")
		}
		b.WriteString(n.Async)
	default:
		b.WriteString(e.Detail)
	}
	return b.String()
}
