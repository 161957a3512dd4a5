package alias

import (
	"strconv"
	"strings"
	"sync"
)

// Mapping is the answer for one native name.
type Mapping struct {
	Table     string `json:"table"`
	Native    string `json:"native"`
	Canonical string `json:"canonical"`          // full name, with _prio<p> for per-priority counters
	Base      string `json:"base"`               // the canonical list's name (Canonical without _prio<p>)
	Priority  int    `json:"priority,omitempty"` // 0..7 for per-priority counters, -1 otherwise
	Scale     uint64 `json:"scale"`              // canonical value = native value × Scale (≥ 1)
	Cite      string `json:"cite"`
}

// index returns table → native → mapping, built from entries on the first
// call and never changed afterwards. Built on first use, not at package
// init: a command that maps no counter name pays nothing for it.
var index = sync.OnceValue(buildIndex)

// infoByName returns canonical name → Info, built once from canonical on
// the first call.
var infoByName = sync.OnceValue(buildInfos)

const prioMark = "<p>"

func buildIndex() map[string]map[string]Mapping {
	idx := map[string]map[string]Mapping{}
	for _, t := range Tables() {
		idx[t] = map[string]Mapping{}
	}
	for _, en := range entries() {
		scale := en.Scale
		if scale == 0 {
			scale = 1
		}
		for _, n := range en.Natives {
			m := Mapping{Table: en.Table, Canonical: en.Canonical, Base: en.Canonical, Priority: -1, Scale: scale, Cite: en.Cite}
			if !strings.Contains(n, prioMark) {
				m.Native = n
				idx[en.Table][n] = m
				continue
			}
			for p := 0; p < 8; p++ {
				ps := strconv.Itoa(p)
				m.Native = strings.Replace(n, prioMark, ps, 1)
				m.Canonical = en.Canonical + "_prio" + ps
				m.Priority = p
				idx[en.Table][m.Native] = m
			}
		}
	}
	return idx
}

func buildInfos() map[string]Info {
	m := make(map[string]Info, len(canonical))
	for _, in := range canonical {
		m[in.Name] = in
	}
	return m
}

// tableOf accepts a table name or any spelling of a driver.
func tableOf(driver string) string {
	if _, ok := index()[driver]; ok {
		return driver
	}
	return Driver(driver)
}

// Map returns the mapping of a native name. driver is a table name
// ("ibta", "mlx5_ethtool", ...) or a driver spelling ("mlx5_core",
// "rdma_rxe", ...); a driver spelling searches that driver's hw_counters
// table and then the IBTA PMA table, whose names no hw table reuses with
// another meaning. Names are matched exactly after trimming blanks (an old
// mlx5 printed "tx_pause_storm_warning_events " with a trailing space).
func Map(driver, native string) (Mapping, bool) {
	native = strings.TrimSpace(native)
	t := tableOf(driver)
	if m, ok := index()[t][native]; ok {
		return m, true
	}
	if t == TableIBTA || strings.HasSuffix(t, "_ethtool") {
		return Mapping{}, false
	}
	m, ok := index()[TableIBTA][native] // a device's sysfs names: PMA next
	return m, ok
}

// Canonical returns rdmatop's name for a vendor's counter, or false when
// no table maps it (callers then keep the native name). Mind the scale:
// Map says when a value must be multiplied (PMA data counters are 4-byte
// words).
func Canonical(driver, native string) (string, bool) {
	m, ok := Map(driver, native)
	return m.Canonical, ok
}

// MapFrom is Map with the source made explicit: the table is chosen by
// TableFor(driver, src).
func MapFrom(driver string, src Source, native string) (Mapping, bool) {
	t := TableFor(driver, src)
	if t == "" {
		return Mapping{}, false
	}
	m, ok := index()[t][strings.TrimSpace(native)]
	return m, ok
}

// Lookup describes a canonical name; per-priority names (…_prio3) get their
// base's Info under the full name. The zero Info (empty Name) means the
// name is not canonical.
func Lookup(name string) Info {
	if in, ok := infoByName()[name]; ok {
		return in
	}
	if i := strings.LastIndex(name, "_prio"); i > 0 {
		p, err := strconv.Atoi(name[i+len("_prio"):])
		if in, ok := infoByName()[name[:i]]; ok && err == nil && p >= 0 && p < 8 && in.PerPriority {
			in.Name = name
			return in
		}
	}
	return Info{}
}

// Infos returns every canonical name's Info (per-priority ones once, by
// their base name), in presentation order.
func Infos() []Info {
	return append([]Info(nil), canonical...)
}

// Entries returns the whole table, in order, for documentation and tests.
func Entries() []Entry {
	es := entries()
	out := make([]Entry, len(es))
	for i, en := range es {
		en.Natives = append([]string(nil), en.Natives...)
		out[i] = en
	}
	return out
}
