package ui

// The Events view's rows: the events of each Frame, kept in order.

import (
	"sort"
	"strconv"

	"github.com/rdmatop/rdmatop/internal/termtext"
	"github.com/rdmatop/rdmatop/probes"
)

func (m *Model) addEvents(evs []probes.Event) {
	for i := range evs {
		e := &evs[i]
		obj := termtext.Sanitize(e.Device)
		if e.Port != 0 {
			obj += "/" + strconv.Itoa(e.Port)
		}
		if e.QPN != nil {
			obj += " qp " + probes.FormatQPN(*e.QPN)
		}
		m.events = append(m.events, eventRow{newRow(
			[]string{e.Time.UTC().Format("15:04:05.000"), sevWord(string(e.Severity)), termtext.Sanitize(e.Source),
				termtext.Sanitize(e.Kind), obj, termtext.Sanitize(e.Detail)},
			[]float64{float64(e.Time.UnixNano()), 0, 0, 0, 0, 0}, string(e.Severity))})
	}
	if len(m.events) > maxEvents {
		m.events = append(m.events[:0:0], m.events[len(m.events)-maxEvents:]...)
	}
	m.eventRows()
}

// evSevNames name the events severity filters, as the view title shows them.
var evSevNames = [...]string{"all", "warning+", "critical"}

func sevRank(s string) int {
	switch s {
	case "critical":
		return 2
	case "warning":
		return 1
	}
	return 0
}

// eventRows fills the events table from the timeline, newest first, keeping
// the events at or above the severity filter.
func (m *Model) eventRows() {
	rs := make([]row, 0, len(m.events))
	for i := len(m.events) - 1; i >= 0; i-- { // newest first
		if r := m.events[i].r; sevRank(r.Class) >= m.evSev {
			rs = append(rs, r)
		}
	}
	sort.SliceStable(rs, func(a, b int) bool { return rs[a].Nums[0] > rs[b].Nums[0] })
	m.tables[ViewEvents].setRows(rs)
}
