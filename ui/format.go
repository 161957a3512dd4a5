package ui

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/rules"
)

// fit pads or truncates plain (unstyled, sanitised) text to exactly w
// cells. Every rune counts one cell; text is sanitised before it gets here.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	n := utf8.RuneCountInString(s)
	if n == w {
		return s
	}
	if n < w {
		return s + strings.Repeat(" ", w-n)
	}
	if w == 1 {
		return "…"
	}
	i, c := 0, 0
	for i < len(s) && c < w-1 {
		_, sz := utf8.DecodeRuneInString(s[i:])
		i += sz
		c++
	}
	return s[:i] + "…"
}

// fitRight right-aligns s in w cells.
func fitRight(s string, w int) string {
	n := utf8.RuneCountInString(s)
	if n >= w {
		return fit(s, w)
	}
	return strings.Repeat(" ", w-n) + s
}

// clip truncates to w cells without padding, measuring what the terminal
// shows: escape sequences (a styled help line, a text input with colour)
// take no cell, wide runes two (charmbracelet/x/ansi). Counting bytes or
// runes cut the coloured footer to "q quit • ? help • tab …" at 160
// columns.
func clip(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
}

// clipKeeping clips s so that tail, appended whole, still fits in w
// cells: what must stay on a line (a state marker) is never the part cut.
func clipKeeping(s, tail string, w int) string {
	tw := ansi.StringWidth(tail)
	if tw >= w {
		return clip(strings.TrimLeft(tail, " "), w)
	}
	return clip(s, w-tw) + tail
}

// num formats a count or rate compactly: 3 significant digits, k/M/G.
func num(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	a := math.Abs(v)
	switch {
	case a == 0:
		return "0"
	case a >= 1e9:
		return trim(v/1e9) + "G"
	case a >= 1e6:
		return trim(v/1e6) + "M"
	case a >= 1e3:
		return trim(v/1e3) + "k"
	}
	return trim(v)
}

func trim(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

func optF(p *float64) string {
	if p == nil {
		return "-"
	}
	return num(*p)
}

func optU(p *uint64) string {
	if p == nil {
		return "-"
	}
	return strconv.FormatUint(*p, 10)
}

func optU32(p *uint32) string {
	if p == nil {
		return "-"
	}
	return strconv.FormatUint(uint64(*p), 10)
}

func optQPN(p *uint32) string {
	if p == nil {
		return "-"
	}
	return probes.FormatQPN(*p)
}

func optI(p *int) string {
	if p == nil {
		return "-"
	}
	return strconv.Itoa(*p)
}

func gbps(bytesPerSec *float64) string {
	if bytesPerSec == nil {
		return "-"
	}
	return strconv.FormatFloat(*bytesPerSec*8/1e9, 'f', 2, 64)
}

func pct(p *float64) string {
	if p == nil {
		return "-"
	}
	return strconv.FormatFloat(*p, 'f', 1, 64) + "%"
}

var sparkRunes = []rune("▁▂▃▄▅▆▇█")

// sparkline draws the last w values scaled to their maximum.
func sparkline(vals []float64, w int) string {
	if w <= 0 {
		return ""
	}
	if len(vals) > w {
		vals = vals[len(vals)-w:]
	}
	max := 0.0
	for _, v := range vals {
		max = math.Max(max, v)
	}
	var b strings.Builder
	for i := len(vals); i < w; i++ {
		b.WriteByte(' ')
	}
	for _, v := range vals {
		i := 0
		if max > 0 {
			i = int(v / max * float64(len(sparkRunes)-1))
		}
		b.WriteRune(sparkRunes[i])
	}
	return b.String()
}

// column of a table.
type column struct {
	Title string
	Width int
	Right bool
	Num   bool // sorts numerically
	// Drop, when not 0, lets the column give way on a narrow terminal:
	// the columns with Drop set go, 1 first, until the rest fits; the
	// others (the object's id, the key numbers) never drop.
	Drop int
}

// shown says which columns fit in width: every column, or without the
// droppable ones, lowest Drop first, until the rest fits.
func shown(cols []column, width int) []bool {
	on := make([]bool, len(cols))
	need := 2 // the cursor
	for i, c := range cols {
		on[i] = true
		if c.Width == 0 {
			need += utf8.RuneCountInString(c.Title)
		} else {
			need += c.Width + 1
		}
	}
	for drop := 1; need > width; drop++ {
		found := false
		for i, c := range cols {
			if c.Drop == drop && on[i] {
				on[i], found = false, true
				need -= c.Width + 1
			}
		}
		if !found && drop > len(cols) {
			break
		}
	}
	return on
}

// row of a table: cells as text, numbers for numeric sort (NaN when
// absent), and a class the styles colour (a severity or QP state).
type row struct {
	Cells []string
	Nums  []float64
	Class string
	Text  string // lower-case cells joined, for filtering
}

func newRow(cells []string, nums []float64, class string) row {
	return row{Cells: cells, Nums: nums, Class: class, Text: strings.ToLower(strings.Join(cells, " "))}
}

// table is a sortable, filterable list with a cursor.
type table struct {
	Cols    []column
	Rows    []row
	View    []int // indexes of Rows shown, filtered and sorted
	Cursor  int   // into View
	Offset  int
	SortCol int // -1: natural order
	Desc    bool
	Filter  string
}

func (t *table) setRows(rs []row) {
	t.Rows = rs
	t.refresh()
}

// refresh recomputes View from Rows, the filter and the sort.
func (t *table) refresh() {
	t.View = t.View[:0]
	f := strings.ToLower(t.Filter)
	qp := qpFilter(f)
	for i := range t.Rows {
		if f == "" || strings.Contains(t.Rows[i].Text, f) || qp != "" && strings.Contains(t.Rows[i].Text, qp) {
			t.View = append(t.View, i)
		}
	}
	if c := t.SortCol; c >= 0 && c < len(t.Cols) {
		numeric := t.Cols[c].Num
		less := func(a, b int) bool {
			ra, rb := &t.Rows[t.View[a]], &t.Rows[t.View[b]]
			if numeric && c < len(ra.Nums) && c < len(rb.Nums) {
				x, y := ra.Nums[c], rb.Nums[c]
				if math.IsNaN(x) {
					x = math.Inf(-1)
				}
				if math.IsNaN(y) {
					y = math.Inf(-1)
				}
				if x != y {
					return x < y != t.Desc
				}
				return false
			}
			if ra.Cells[c] != rb.Cells[c] {
				return ra.Cells[c] < rb.Cells[c] != t.Desc
			}
			return false
		}
		sort.SliceStable(t.View, less)
	}
	t.clamp(0)
}

func (t *table) clamp(height int) {
	if t.Cursor >= len(t.View) {
		t.Cursor = len(t.View) - 1
	}
	if t.Cursor < 0 {
		t.Cursor = 0
	}
	if height > 0 {
		if t.Cursor < t.Offset {
			t.Offset = t.Cursor
		}
		if t.Cursor >= t.Offset+height {
			t.Offset = t.Cursor - height + 1
		}
	}
	if t.Offset > t.Cursor {
		t.Offset = t.Cursor
	}
	if t.Offset < 0 {
		t.Offset = 0
	}
}

func (t *table) selected() *row {
	if t.Cursor < 0 || t.Cursor >= len(t.View) {
		return nil
	}
	return &t.Rows[t.View[t.Cursor]]
}

// headerLine is the column titles, with the sort marker.
func (t *table) headerLine(width int) string {
	var b strings.Builder
	b.WriteString("  ")
	on := shown(t.Cols, width)
	for i, c := range t.Cols {
		if !on[i] {
			continue
		}
		title := c.Title
		if i == t.SortCol {
			if t.Desc {
				title += "▼"
			} else {
				title += "▲"
			}
		}
		if c.Width == 0 {
			b.WriteString(title)
			continue
		}
		if c.Right {
			b.WriteString(fitRight(title, c.Width))
		} else {
			b.WriteString(fit(title, c.Width))
		}
		b.WriteByte(' ')
	}
	return fit(b.String(), width)
}

// line renders one row as plain text; the first two cells hold the cursor.
func (t *table) line(r *row, cursor bool, width int) string {
	var b strings.Builder
	b.Grow(width + 8)
	if cursor {
		b.WriteString("▶ ")
	} else {
		b.WriteString("  ")
	}
	on := shown(t.Cols, width)
	for i, c := range t.Cols {
		if !on[i] {
			continue
		}
		cell := ""
		if i < len(r.Cells) {
			cell = r.Cells[i]
		}
		if c.Width == 0 {
			b.WriteString(cell)
			continue
		}
		if c.Right {
			b.WriteString(fitRight(cell, c.Width))
		} else {
			b.WriteString(fit(cell, c.Width))
		}
		b.WriteByte(' ')
	}
	return fit(b.String(), width)
}

// ExplainsSummary says what a cause explains, by rule: "retransmissions on
// 3 flows, qp-error-state on 1 QP".
func ExplainsSummary(refs []rules.Ref) string {
	// Per rule, the distinct objects of each kind it is on: one rule can
	// be on a port (its counters) and on flows (the capture) at once, and
	// "on 2 ports" for one port and one flow read wrong.
	kinds := []string{"port", "priority", "QP", "flow"}
	var order []string
	objs := map[string]map[string]map[string]bool{} // rule → kind → object keys
	for _, r := range refs {
		if objs[r.Rule] == nil {
			order = append(order, r.Rule)
			objs[r.Rule] = map[string]map[string]bool{}
		}
		k := "host"
		switch {
		case r.Objects["flow"] != "":
			k = "flow"
		case r.Objects["qpn"] != "":
			k = "QP"
		case r.Objects["priority"] != "":
			k = "priority"
		case r.Objects["port"] != "":
			k = "port"
		}
		if objs[r.Rule][k] == nil {
			objs[r.Rule][k] = map[string]bool{}
		}
		objs[r.Rule][k][objects(r.Objects)] = true
	}
	var parts []string
	for _, rule := range order {
		var on []string
		for _, k := range kinds {
			if n := len(objs[rule][k]); n > 0 {
				if n > 1 {
					on = append(on, strconv.Itoa(n)+" "+k+"s")
				} else {
					on = append(on, "1 "+k)
				}
			}
		}
		if len(on) == 0 {
			parts = append(parts, rule) // host findings
			continue
		}
		parts = append(parts, rule+" on "+strings.Join(on, " and "))
	}
	return strings.Join(parts, ", ")
}

// qpFilter is a filter that is a number, decimal (420) or hex (0x1a4),
// in the one QP notation (0x0001a4), so that either finds the QP; "" when
// the filter is not a number.
func qpFilter(f string) string {
	base, digits := 10, f
	if h, ok := strings.CutPrefix(f, "0x"); ok {
		base, digits = 16, h
	}
	n, err := strconv.ParseUint(digits, base, 24)
	if err != nil || digits == "" {
		return ""
	}
	return probes.FormatQPN(uint32(n))
}
