package ethtool

import "strings"

// Unit says what a counter counts, from its (trimmed) name, in the words
// probes.Counter uses: "bytes", "packets", "bits", "us" (the mlx5 and
// bnxt_en pause durations), "percent", or "" for plain events. Gauge is
// true for values that are not counters (a rate must not be taken of
// them): mlx5's outbound_pci_stalled_rd/wr (percent of the last second)
// and veth's peer_ifindex.
func Unit(name string) (unit string, gauge bool) {
	switch name {
	case "outbound_pci_stalled_rd", "outbound_pci_stalled_wr":
		return "percent", true
	case "peer_ifindex":
		return "", true
	}
	switch {
	case strings.HasSuffix(name, "_pause_duration"), strings.HasSuffix(name, "_duration_us"):
		// mlx5 *_pause_duration, bnxt_en pfc_pri<n>_{rx,tx}_duration_us
		return "us", false
	case strings.Contains(name, "bytes"):
		// rx_64_bytes_phy, rx_65_to_127_bytes_phy ... count packets of a size.
		if strings.HasPrefix(name, "rx_") && strings.HasSuffix(name, "_bytes_phy") && name != "rx_bytes_phy" {
			return "packets", false
		}
		return "bytes", false
	case strings.HasSuffix(name, "_bits_phy"):
		return "bits", false
	case strings.Contains(name, "packets"), strings.Contains(name, "_pkts"):
		return "packets", false
	}
	return "", false
}
