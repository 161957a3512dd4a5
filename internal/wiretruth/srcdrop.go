package wiretruth

import (
	"bufio"
	"bytes"
	"regexp"
	"strconv"
	"strings"
)

// SourceDrop is loss no capture can show: packets an impairment at a
// sender's own egress dropped before its capture point, by the qdiscs'
// own counters (tc -s, recorded in the run's meta.txt as the impairment
// was removed). Two captures see neither the packet nor its absence, so
// the byte matching in Analyze cannot count them; the kernel did.
type SourceDrop struct {
	// Before: the capture point of the sender whose egress dropped them
	// (veth0 for A→B, veth1 for B→A).
	Before  string `json:"before"`
	Dropped uint64 `json:"dropped"`
	// ECN: a netem with ecn, whose counter counts the packets it marked
	// CE instead of dropping as drops too (netem_enqueue).
	ECN bool `json:"ecn,omitempty"`
}

var (
	// "## fwd impairment (veth0 egress, A->B, before the veth0 capture): loss 1%"
	srcSection = regexp.MustCompile(`^## (?:fwd|rev) impairment \(.*before the (\S+) capture\)`)
	// "qdisc netem 10: parent 1:1 limit 1000 loss 1%": a qdisc of the
	// chain (campaign.sh steers RoCE, and only it, to class 1:1 of its
	// prio root and hangs the impairment there).
	qdiscAt    = regexp.MustCompile(`^qdisc (\S+) \S+ parent (\S+) `)
	droppedCnt = regexp.MustCompile(`\(dropped (\d+),`)
	redEarly   = regexp.MustCompile(`^\s*marked \d+ early (\d+) `)
)

// SourceDrops reads, from a run's meta.txt, the packets each impairment
// placed before a capture point took from the transport. Not every drop
// a qdisc counts is one: what the sender's own enqueue is refused
// (NET_XMIT_DROP: a tbf or fifo over its limit, red's child full) comes
// back to it as an error, and Soft-RoCE rolls the packet back and sends
// it again (same PSN, new IPv4 ID) - no PSN is ever missing. What is
// dropped with a success verdict is lost: netem's loss (it reports
// success), red's early drops (NET_XMIT_CN, which a sender takes for
// success), and whatever a netem drops as it hands a packet on to a full
// child, after the sender was told success. So: a chain topped by netem
// lost all it counted (a child's drop reaches netem's counter through
// qdisc_tree_reduce_backlog); a chain topped by tbf lost red's early
// drops only. Impairments between the capture points are not read here:
// the two captures see their loss themselves.
func SourceDrops(meta []byte) []SourceDrop {
	var out []SourceDrop
	var before, kind, parent string
	var top string // the chain top's kind
	var lost uint64
	var ecn bool
	flush := func() {
		if before != "" {
			out = append(out, SourceDrop{Before: before, Dropped: lost, ECN: ecn})
		}
		before, top, kind, lost, ecn = "", "", "", 0, false
	}
	sc := bufio.NewScanner(bytes.NewReader(meta))
	for sc.Scan() {
		l := sc.Text()
		switch {
		case srcSection.MatchString(l):
			flush()
			before = srcSection.FindStringSubmatch(l)[1]
		case len(l) > 3 && l[:3] == "## ":
			flush()
		case before == "":
		case qdiscAt.MatchString(l):
			m := qdiscAt.FindStringSubmatch(l)
			kind, parent = m[1], m[2]
			if parent == "1:1" {
				top = kind
			}
			ecn = ecn || kind == "netem" && strings.Contains(l+" ", " ecn ")
		case kind == "":
		default:
			if m := droppedCnt.FindStringSubmatch(l); m != nil && parent == "1:1" && top == "netem" {
				lost, _ = strconv.ParseUint(m[1], 10, 64)
			}
			if m := redEarly.FindStringSubmatch(l); m != nil && kind == "red" && top != "netem" {
				n, _ := strconv.ParseUint(m[1], 10, 64)
				lost += n
			}
		}
	}
	flush()
	return out
}
