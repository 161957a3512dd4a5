package saved

import (
	"encoding/json"
	"strconv"
	"strings"
	"sync"

	"github.com/rdmatop/rdmatop/internal/lazyre"
)

// ipColumn returns a map of ip's column names to the netdev statistics'
// sysfs names, the names a live host's counters carry. Built on first use,
// not at package init.
var ipColumn = sync.OnceValue(func() map[string]map[string]string {
	return map[string]map[string]string{
		"rx": {"bytes": "rx_bytes", "packets": "rx_packets", "errors": "rx_errors", "dropped": "rx_dropped",
			"missed": "rx_missed_errors", "overrun": "rx_over_errors", "over_errors": "rx_over_errors",
			"mcast": "multicast", "multicast": "multicast", "crc": "rx_crc_errors", "length": "rx_length_errors",
			"frame": "rx_frame_errors", "fifo": "rx_fifo_errors"},
		"tx": {"bytes": "tx_bytes", "packets": "tx_packets", "errors": "tx_errors", "dropped": "tx_dropped",
			"carrier": "tx_carrier_errors", "carrier_errors": "tx_carrier_errors", "collsns": "collisions",
			"collisions": "collisions", "aborted": "tx_aborted_errors", "fifo": "tx_fifo_errors",
			"window": "tx_window_errors", "heartbeat": "tx_heartbeat_errors", "transns": "tx_transns"},
	}
})

// ipLinkJSON reads `ip -j -s link`.
func (l *loader) ipLinkJSON(sec *section, in *Input) bool {
	objs, ok := jsonObjects(sec)
	if !ok || !has(objs[0], "ifname", "mtu") || !has(objs[0], "stats64") && !has(objs[0], "stats") {
		return false
	}
	for _, o := range objs {
		name := str(o, "ifname")
		raw := o["stats64"]
		if raw == nil {
			raw = o["stats"]
		}
		var st map[string]map[string]uint64
		if err := json.Unmarshal(raw, &st); err != nil {
			in.ignore("%s: statistics: %v", name, err)
			continue
		}
		vals := map[string]uint64{}
		for dir, cols := range st {
			for col, v := range cols {
				if n := ipColumn()[dir][col]; n != "" {
					vals[n] = v
				}
			}
		}
		l.ipLink(name, vals, o, sec, in)
	}
	return true
}

func (l *loader) ipLink(name string, vals map[string]uint64, o map[string]json.RawMessage, sec *section, in *Input) {
	n := l.h.netdev(name)
	if mtu, ok := num(o, "mtu"); ok {
		m := int(mtu)
		n.mtu = &m
	}
	n.link = mergeReading(n.link, reading{time: sec.time, counters: netdevStatCounters(vals)})
	in.read("%s: MTU and %s", name, plural(len(vals), "statistic"))
}

var reIPLinkHead = lazyre.New(`^\d+: ([^:@\s]+)(?:@\S+)?: <[^>]*>.*\bmtu (\d+)`)

// ipLinkText reads `ip -s [-s] [-d] link`.
func (l *loader) ipLinkText(sec *section, in *Input) bool {
	lines := nonBlank(sec.lines)
	if len(lines) == 0 || !reIPLinkHead().MatchString(lines[0]) {
		return false
	}
	var name string
	var mtu json.RawMessage
	vals := map[string]uint64{}
	flush := func() {
		if name != "" {
			l.ipLink(name, vals, map[string]json.RawMessage{"mtu": mtu}, sec, in)
		}
	}
	for i := 0; i < len(lines); i++ {
		s := strings.TrimSpace(lines[i])
		if m := reIPLinkHead().FindStringSubmatch(lines[i]); m != nil {
			flush()
			name, mtu, vals = m[1], json.RawMessage(m[2]), map[string]uint64{}
			continue
		}
		dir := ""
		var cols []string
		switch {
		case strings.HasPrefix(s, "RX errors:"), strings.HasPrefix(s, "TX errors:"):
			dir, cols = strings.ToLower(s[:2]), strings.Fields(s[len("RX errors:"):])
		case strings.HasPrefix(s, "RX:"), strings.HasPrefix(s, "TX:"):
			dir, cols = strings.ToLower(s[:2]), strings.Fields(s[3:])
		default:
			continue
		}
		if i+1 >= len(lines) {
			break
		}
		nums := strings.Fields(lines[i+1])
		for j, c := range cols {
			if j >= len(nums) {
				break
			}
			v, err := strconv.ParseUint(nums[j], 10, 64)
			if n := ipColumn()[dir][c]; n != "" && err == nil {
				vals[n] = v
			}
		}
		i++
	}
	flush()
	return true
}
