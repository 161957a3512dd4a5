package probes

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// What a hung source looks like to the person reading the screen, the
// check report or the metrics: which source, since when, how old the
// values carried forward are, and the likely reason. One wording for
// every front end.

// HangLine says in one line that a source does not answer: "sysfs:
// timeout since 02:13:05 (values 12s old)", or for a partial answer the
// files that hang.
func HangLine(st Status) string {
	var b strings.Builder
	b.WriteString(st.Source + ": ")
	switch st.State {
	case StatePartial:
		n := len(st.Stuck)
		if n == 1 {
			b.WriteString("1 file does not answer")
		} else {
			b.WriteString(strconv.Itoa(n) + " files do not answer")
		}
	default:
		b.WriteString("no answer")
	}
	if st.Since != nil {
		b.WriteString(" since " + st.Since.Format("15:04:05"))
	}
	if st.StaleS != nil {
		b.WriteString(" (last values " + Age(*st.StaleS) + " old, carried forward)")
	}
	if st.State == StatePartial && len(st.Stuck) > 0 {
		b.WriteString(": " + stuckList(st.Stuck, 3))
	}
	return b.String()
}

// stuckList names up to n stuck files, with "/" in front (they are
// relative to the root) and how many more there are.
func stuckList(paths []string, n int) string {
	out := make([]string, 0, n+1)
	for i, p := range paths {
		if i == n {
			out = append(out, fmt.Sprintf("+%d more", len(paths)-n))
			break
		}
		out = append(out, "/"+strings.TrimPrefix(p, "/"))
	}
	return strings.Join(out, ", ")
}

// Age prints seconds as a short duration: 800ms, 12s, 3m05s, 2h10m.
func Age(s float64) string {
	d := time.Duration(s * float64(time.Second))
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(time.Second).String()
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// LikelyCause says why the sources that hang do, from which hang
// together; "" when none hangs.
//
// sysfs netdev attributes (speed, duplex, ...), the ethtool ioctls and
// rtnetlink all take RTNL, the kernel's one networking lock: when they
// hang together, something holds it (a firmware command stuck in the
// mlx5 driver, which prints "cmd exec timeout" after 60 s; a storm of
// interface changes on a Kubernetes node). A counter file alone hangs on
// its driver: a firmware command that does not complete. The RDMA
// netlink QP dump walks every QP: slow with tens of thousands of them.
func LikelyCause(sts []Status) string { _, long := cause(sts); return long }

// ShortCause is LikelyCause in a few words, for a header line.
func ShortCause(sts []Status) string { short, _ := cause(sts); return short }

func cause(sts []Status) (short, long string) {
	by := map[string]Status{}
	for _, s := range sts {
		by[s.Source] = s
	}
	hung := func(name string) bool { return by[name].Hung() }
	sysfsNetdev := by["sysfs"].State == StateTimeout
	sysfsCounters := false
	for _, p := range by["sysfs"].Stuck {
		if strings.Contains(p, "class/net/") {
			sysfsNetdev = true
		}
		if strings.Contains(p, "counters/") {
			sysfsCounters = true
		}
	}
	rtnlLike := 0
	for _, ok := range []bool{sysfsNetdev, hung("ethtool"), hung("rtnetlink")} {
		if ok {
			rtnlLike++
		}
	}
	dmesg := "see `dmesg -T | grep -E 'cmd exec timeout|blocked for more than'`"
	switch {
	case rtnlLike >= 2:
		return "RTNL likely held: dmesg for 'cmd exec timeout' / hung tasks",
			"RTNL (the kernel's networking lock) is likely held: sysfs netdev attributes, ethtool and rtnetlink all wait on it — " +
				"a firmware command stuck in the driver or a storm of interface changes (CNI); " + dmesg + " (a stuck command, hung tasks)"
	case sysfsCounters:
		return "driver not answering counter reads: dmesg for 'cmd exec timeout'",
			"the driver does not answer counter reads: a firmware command is likely stuck; " + dmesg
	case hung("sysfs"):
		return "sysfs reads do not return: dmesg for 'cmd exec timeout' / hung tasks",
			"sysfs reads do not return: the driver is stuck in a firmware command or RTNL is held; " + dmesg
	case hung("ethtool") || hung("rtnetlink"):
		return "netdev driver not answering (RTNL?): dmesg for 'cmd exec timeout'",
			"the netdev's driver does not answer (ethtool and rtnetlink take RTNL); " + dmesg
	case hung("rdma netlink"):
		return "RDMA netlink dump too slow (many QPs?): raise --probe-timeout",
			"the RDMA netlink dump did not finish in time: tens of thousands of QPs (raise --probe-timeout) or the RDMA core is stuck; " + dmesg
	}
	for _, s := range sts {
		if s.Hung() {
			return s.Source + " does not answer", s.Source + " does not answer within its timeout"
		}
	}
	return "", ""
}
