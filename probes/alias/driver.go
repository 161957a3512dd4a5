package alias

import (
	"strings"
	"sync"
)

// Source says where a native counter name was read.
type Source string

// Sources.
const (
	SourceCounters   Source = "counters"    // ports/N/counters (IBTA PMA)
	SourceHWCounters Source = "hw_counters" // ports/N/hw_counters or the device's hw_counters
	SourceEthtool    Source = "ethtool"     // ethtool -S of the netdev
)

// driverFamily returns a map of kernel driver spellings (PCI driver,
// auxiliary driver, RDMA driver, module name) to the family that names a
// table. Built on first use, like index.
var driverFamily = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"mlx5": "mlx5", "mlx5_core": "mlx5", "mlx5_ib": "mlx5",
		"rxe": "rxe", "rdma_rxe": "rxe",
		"bnxt_re": "bnxt_re", "bnxt_en": "bnxt_re",
		"irdma": "irdma", "ice": "irdma", "i40e": "irdma", "idpf": "irdma",
		"erdma": "erdma",
		"efa":   "efa",
	}
})

// Driver returns the family a kernel driver name belongs to: "mlx5_core",
// "mlx5_ib.rdma" and "mlx5" all give "mlx5", "rdma_rxe" gives "rxe". An
// unknown driver is returned lower-cased, without an auxiliary suffix.
func Driver(name string) string {
	n := strings.ToLower(strings.TrimSpace(name))
	if i := strings.IndexByte(n, '.'); i > 0 {
		n = n[:i] // auxiliary drivers: mlx5_ib.rdma, irdma.roce, bnxt_re.rdma
	}
	if f, ok := driverFamily()[n]; ok {
		return f
	}
	return n
}

// Drivers returns the driver families that have a hw_counters table.
func Drivers() []string {
	return []string{TableMLX5, TableRXE, TableBNXTRE, TableIRDMA, TableERDMA, TableEFA}
}

// Tables returns every table name.
func Tables() []string {
	return []string{TableIBTA, TableMLX5, TableMLX5Ethtool, TableBNXTEthtool, TableICEEthtool, TableRXE, TableBNXTRE, TableIRDMA, TableERDMA, TableEFA}
}

// ethtoolTable is the ethtool -S table of a netdev driver. The netdev
// driver, not the RDMA family, decides: irdma runs over ice (E810) and
// over i40e (X722), whose ethtool names differ ("rx_priority_3_xoff.nic"
// against "port.rx_priority_3_xoff_rx"), so only ice picks the ice table.
// An RDMA driver spelling (mlx5_ib, bnxt_re) picks its netdev's table.
func ethtoolTable(driver string) string {
	n := strings.ToLower(strings.TrimSpace(driver))
	if i := strings.IndexByte(n, '.'); i > 0 {
		n = n[:i]
	}
	switch {
	case n == "ice":
		return TableICEEthtool
	case Driver(n) == TableMLX5:
		return TableMLX5Ethtool
	case Driver(n) == TableBNXTRE:
		return TableBNXTEthtool
	}
	return ""
}

// TableFor returns the table holding names that driver exposes in src, or
// "" when there is none. PMA names (counters/) are the same for every
// driver.
func TableFor(driver string, src Source) string {
	var t string
	switch src {
	case SourceCounters:
		return TableIBTA
	case SourceHWCounters:
		t = Driver(driver)
	case SourceEthtool:
		t = ethtoolTable(driver)
	default:
		return ""
	}
	if _, ok := index()[t]; ok {
		return t
	}
	return ""
}
