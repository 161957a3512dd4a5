package saved

import (
	"fmt"
	"path"
	"strings"

	"github.com/rdmatop/rdmatop/internal/lazyre"
	"github.com/rdmatop/rdmatop/probes/ethtool"
	"github.com/rdmatop/rdmatop/probes/sampler"
)

// ethtool reads `ethtool -S` output, whole or filtered.
func (l *loader) ethtool(sec *section, in *Input) bool {
	info, err := ethtool.ParseTextInfo(strings.NewReader(strings.Join(sec.lines, "\n")))
	cut := ""
	if err != nil {
		// A paste cut short ends in half a line: read what came before.
		lines := nonBlank(sec.lines)
		if len(lines) < 3 {
			return false
		}
		cut = strings.TrimSpace(lines[len(lines)-1])
		info, err = ethtool.ParseTextInfo(strings.NewReader(strings.Join(lines[:len(lines)-1], "\n")))
	}
	if err != nil || len(info.Stats) == 0 {
		return false
	}
	nd := netdevOfEthtool(sec.args())
	if nd == "" {
		nd = info.Netdev
	}
	if nd == "" && !info.Header && !countersLike(info.Stats) {
		return false // "name: 1" lines of something else (YAML, a form)
	}
	driver := guessEthtoolDriver(info.Stats)
	named := nd != ""
	if !named {
		nd = l.unnamedNetdev(info.Stats, driver)
	}
	n := l.h.netdev(nd)
	if n.driver == "" {
		n.driver = driver
	}
	n.filtered = n.filtered || !info.Header
	cs := sampler.EthtoolCounters(ethtool.Raw{Driver: n.driver, Stats: info.Stats})
	n.ethtool = append(n.ethtool, reading{time: sec.time, counters: cs})
	what := fmt.Sprintf("%d counters of %s", len(info.Stats), nd)
	if n.driver != "" {
		what += " (" + n.driver + ")"
	}
	if len(n.ethtool) > 1 {
		what += fmt.Sprintf(", reading %d", len(n.ethtool))
	}
	in.read("%s", what)
	if cut != "" {
		in.ignore("the last line %q: not a counter line (the paste was cut?)", clip(cut, 40))
	}
	if !named {
		in.ignore("no netdev named (no `ethtool -S NETDEV` line): called %s here", nd)
	}
	if !info.Header {
		in.ignore("no \"NIC statistics:\" line: filtered or trimmed, so a counter missing from it may have been left out")
	}
	return true
}

// netdevOfEthtool finds NETDEV in "ethtool -S NETDEV" (or --statistics,
// with options such as --all-groups before it).
func netdevOfEthtool(args []string) string {
	for i, a := range args {
		if path.Base(a) != "ethtool" {
			continue
		}
		stats := false
		for _, b := range args[i+1:] {
			switch {
			case b == "|" || b == ">" || b == ";":
				return ""
			case b == "-S" || b == "--statistics":
				stats = true
			case strings.HasPrefix(b, "-"):
			case stats:
				return b
			}
		}
	}
	return ""
}

// unnamedNetdev names the netdev of a dump that does not say which it is.
// A dump continues an earlier unnamed one of the same driver when most of
// its counters are the earlier one's and none went down (two snapshots of
// one host); otherwise it is a netdev of its own.
func (l *loader) unnamedNetdev(stats map[string]uint64, driver string) string {
	for _, name := range sortedKeys(l.h.netdevs) {
		n := l.h.netdevs[name]
		if !strings.HasPrefix(name, unnamedPrefix) || n.driver != driver || len(n.ethtool) == 0 {
			continue
		}
		last := n.ethtool[len(n.ethtool)-1].counters
		shared, down := 0, false
		for _, c := range last {
			v, ok := stats[c.Native]
			if !ok {
				continue
			}
			shared++
			old := c.Value
			if c.NativeValue != nil {
				old = *c.NativeValue
			}
			if v < old {
				down = true
			}
		}
		if !down && shared*2 >= max(len(last), len(stats)) {
			return name
		}
	}
	l.unnamed++
	return fmt.Sprintf("%s%d", unnamedPrefix, l.unnamed)
}

const unnamedPrefix = "unnamed-"

// guessEthtoolDriver tells the driver from its counter names, for the
// vendor name tables.
func guessEthtoolDriver(stats map[string]uint64) string {
	var mlx5, bnxt, ice int
	for n := range stats {
		switch {
		case strings.HasPrefix(n, "[") || strings.Contains(n, "_pfc_ena_frames_pri") || strings.Contains(n, "_cos") ||
			strings.HasPrefix(n, "pfc_pri"):
			bnxt++
		case strings.HasSuffix(n, ".nic") || strings.Contains(n, "_priority_") && strings.Contains(n, "_xo"):
			ice++
		case strings.HasSuffix(n, "_phy") || strings.HasPrefix(n, "rx_prio") || strings.HasPrefix(n, "tx_prio") ||
			strings.HasPrefix(n, "rx_vport_") || strings.HasPrefix(n, "tx_vport_") || n == "rx_out_of_buffer" ||
			strings.HasPrefix(n, "pause_ctrl_") || strings.HasSuffix(n, "_global_pause"):
			mlx5++
		}
	}
	switch {
	case bnxt > mlx5 && bnxt >= ice && bnxt > 0:
		return "bnxt_en"
	case ice > mlx5 && ice > 0:
		return "ice"
	case mlx5 > 0:
		return "mlx5_core"
	}
	return ""
}

// countersLike: with neither the header nor an ethtool command line, a
// paste is taken for ethtool statistics only when it has several lines of
// driver-style names (snake_case, most with an underscore).
func countersLike(stats map[string]uint64) bool {
	if len(stats) < 2 {
		return false
	}
	under := 0
	for n := range stats {
		if !reCounterName().MatchString(n) {
			return false
		}
		if strings.Contains(n, "_") {
			under++
		}
	}
	return under*2 >= len(stats)
}

// reCounterName: "rx_prio3_pause", "tx_priority_3_xoff.nic", "[3]: rx_bytes".
var reCounterName = lazyre.New(`^(\[\d+\]: )?[A-Za-z][A-Za-z0-9_.-]*$`)
