package capture

// nakCodes is the one list of NAK codes: JSON keys and metric labels
// (key), words for people (name), in the order of the JSON object. It
// drives NAKCounts' JSON, sums and differences, and what the exporter and
// the reports print; NAKCounts.slots gives the counters in this order.
var nakCodes = [...]struct{ key, name string }{
	{"psn_sequence_error", "PSN sequence error"},
	{"rnr", "RNR"},
	{"invalid_request", "invalid request"},
	{"remote_access_error", "remote access error"},
	{"remote_operational_error", "remote operational error"},
	{"invalid_rd_request", "invalid RD request"},
	{"reserved", "reserved code"},
}

// slots returns n's counters in nakCodes' order.
func (n *NAKCounts) slots() [len(nakCodes)]*uint64 {
	return [...]*uint64{&n.PSNSequenceError, &n.RNR, &n.InvalidRequest, &n.RemoteAccessError,
		&n.RemoteOperationalError, &n.InvalidRDRequest, &n.Reserved}
}

// NAKCode is the count of one NAK code.
type NAKCode struct {
	Key   string // as in JSON and metric labels: "psn_sequence_error"
	Name  string // for people: "PSN sequence error"
	Count uint64
}

// Codes returns the counts of every NAK code, zeros included.
func (n NAKCounts) Codes() []NAKCode {
	out := make([]NAKCode, len(nakCodes))
	for i, p := range n.slots() {
		out[i] = NAKCode{Key: nakCodes[i].key, Name: nakCodes[i].name, Count: *p}
	}
	return out
}

// Total returns the number of NAKs of any kind, RNR included.
func (n NAKCounts) Total() uint64 {
	var t uint64
	for _, p := range n.slots() {
		t += *p
	}
	return t
}

func (n *NAKCounts) add(o NAKCounts) {
	os := o.slots()
	for i, p := range n.slots() {
		*p += *os[i]
	}
}

// minus is n−o code by code, 0 where o is larger (see sub).
func (n NAKCounts) minus(o NAKCounts) NAKCounts {
	os := o.slots()
	for i, p := range n.slots() {
		*p = sub(*p, *os[i])
	}
	return n
}
