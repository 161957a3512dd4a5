package saved

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/rdmatop/rdmatop/probes/rdmanl"
	"github.com/rdmatop/rdmatop/probes/sampler"
)

// jsonObjects decodes a section that is one JSON array of objects.
func jsonObjects(sec *section) ([]map[string]json.RawMessage, bool) {
	text := strings.TrimSpace(strings.Join(sec.lines, "\n"))
	if !strings.HasPrefix(text, "[") {
		return nil, false
	}
	var objs []map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &objs); err != nil || len(objs) == 0 {
		return nil, false
	}
	return objs, true
}

func has(o map[string]json.RawMessage, keys ...string) bool {
	for _, k := range keys {
		if _, ok := o[k]; !ok {
			return false
		}
	}
	return true
}

func str(o map[string]json.RawMessage, k string) string {
	var s string
	_ = json.Unmarshal(o[k], &s)
	return s
}

func num(o map[string]json.RawMessage, k string) (uint64, bool) {
	var v uint64
	err := json.Unmarshal(o[k], &v)
	return v, err == nil
}

// rdmaStatJSON reads `rdma -j statistic show`: per port, hw_counters by
// name.
func (l *loader) rdmaStatJSON(sec *section, in *Input) bool {
	objs, ok := jsonObjects(sec)
	if !ok {
		return false
	}
	t := tree{}
	for _, o := range objs {
		if !has(o, "ifname", "port") || has(o, "lqpn") || has(o, "state") {
			return false
		}
		dev := str(o, "ifname")
		port, _ := num(o, "port")
		for k := range o {
			switch k {
			case "ifname", "ifindex", "port":
				continue
			}
			if v, ok := num(o, k); ok {
				t[fmt.Sprintf("sys/class/infiniband/%s/ports/%d/hw_counters/%s", dev, port, k)] = strconv.FormatUint(v, 10)
			}
		}
	}
	l.readTree(t, sec.time, in)
	return true
}

// rdmaStatText reads `rdma statistic show`: "link DEV/PORT name value ...".
func (l *loader) rdmaStatText(sec *section, in *Input) bool {
	t := tree{}
	n := 0
	for _, s := range nonBlank(sec.lines) {
		f := strings.Fields(s)
		if len(f) < 4 || f[0] != "link" || len(f)%2 != 0 {
			return false
		}
		dev, port, ok := devPort(f[1])
		if !ok {
			return false
		}
		for i := 2; i+1 < len(f); i += 2 {
			if _, err := strconv.ParseUint(f[i+1], 10, 64); err != nil {
				return false
			}
			t[fmt.Sprintf("sys/class/infiniband/%s/ports/%d/hw_counters/%s", dev, port, f[i])] = f[i+1]
		}
		n++
	}
	if n == 0 {
		return false
	}
	l.readTree(t, sec.time, in)
	return true
}

// devPort splits "mlx5_0/1".
func devPort(s string) (string, int, bool) {
	dev, p, ok := strings.Cut(s, "/")
	if !ok || dev == "" {
		return "", 0, false
	}
	n, err := strconv.Atoi(p)
	return dev, n, err == nil && n > 0
}

// rdmaQPJSON reads `rdma -j res show qp`.
func (l *loader) rdmaQPJSON(sec *section, in *Input) bool {
	objs, ok := jsonObjects(sec)
	if !ok || !has(objs[0], "lqpn") {
		return false
	}
	qps, err := rdmanl.ParseRdmaJSONQPs([]byte(strings.Join(sec.lines, "\n")))
	if err != nil {
		in.ignore("%v", err)
		return true
	}
	l.addQPs(qps, in)
	return true
}

// rdmaQPText reads `rdma res show qp`: "link DEV/PORT lqpn N ...", turned
// into iproute2's JSON shape and read as that.
func (l *loader) rdmaQPText(sec *section, in *Input) bool {
	var objs []map[string]any
	for _, s := range nonBlank(sec.lines) {
		f := strings.Fields(s)
		if len(f) < 4 || f[0] != "link" || f[2] != "lqpn" {
			return false
		}
		dev, port, ok := devPort(f[1])
		if !ok {
			return false
		}
		o := map[string]any{"ifindex": 0, "ifname": dev, "port": port}
		for i := 2; i+1 < len(f); i += 2 {
			k, v := f[i], f[i+1]
			if k == "comm" {
				if kern, ok := strings.CutPrefix(v, "["); ok {
					v = strings.TrimSuffix(kern, "]")
				}
				o[k] = v
				continue
			}
			if n, err := strconv.ParseUint(v, 10, 32); err == nil {
				o[k] = n
			} else {
				o[k] = v
			}
		}
		objs = append(objs, o)
	}
	if len(objs) == 0 {
		return false
	}
	b, _ := json.Marshal(objs)
	qps, err := rdmanl.ParseRdmaJSONQPs(b)
	if err != nil {
		in.ignore("%v", err)
		return true
	}
	l.addQPs(qps, in)
	return true
}

func (l *loader) addQPs(qps []rdmanl.QP, in *Input) {
	per := map[string]int{}
	for _, q := range qps {
		l.h.qps = append(l.h.qps, sampler.ProbeQP(q))
		l.h.device(q.Dev)
		per[q.Dev]++
	}
	for _, d := range sortedKeys(per) {
		in.read("%s of %s", plural(per[d], "QP"), d)
	}
	if len(qps) > 0 {
		in.ignore("memlock limits of the QPs' owners: not in this output")
	}
}

// rdmaLinkJSON reads `rdma -j link show`: port states and netdevs.
func (l *loader) rdmaLinkJSON(sec *section, in *Input) bool {
	objs, ok := jsonObjects(sec)
	if !ok || !has(objs[0], "ifname", "port", "state") || has(objs[0], "lqpn") {
		return false
	}
	for _, o := range objs {
		port, _ := num(o, "port")
		l.link(str(o, "ifname"), int(port), str(o, "state"), str(o, "physical_state"), str(o, "netdev"), in)
	}
	return true
}

// rdmaLinkText reads `rdma link show`: "link DEV/PORT state S
// physical_state P netdev N".
func (l *loader) rdmaLinkText(sec *section, in *Input) bool {
	type row struct {
		dev                 string
		port                int
		state, phys, netdev string
	}
	var rows []row
	for _, s := range nonBlank(sec.lines) {
		f := strings.Fields(s)
		if len(f) < 4 || f[0] != "link" || f[2] != "state" {
			return false
		}
		dev, port, ok := devPort(f[1])
		if !ok {
			return false
		}
		r := row{dev: dev, port: port}
		for i := 2; i+1 < len(f); i += 2 {
			switch f[i] {
			case "state":
				r.state = f[i+1]
			case "physical_state":
				r.phys = f[i+1]
			case "netdev":
				r.netdev = f[i+1]
			}
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		return false
	}
	for _, r := range rows {
		l.link(r.dev, r.port, r.state, r.phys, r.netdev, in)
	}
	return true
}

func (l *loader) link(dev string, port int, state, phys, netdev string, in *Input) {
	p := l.h.port(dev, port)
	l.h.device(dev)
	p.state, p.phys = state, physName(phys)
	if netdev != "" {
		p.netdev = netdev
	}
	what := fmt.Sprintf("%s port %d: %s", dev, port, state)
	if netdev != "" {
		what += " on " + netdev
	}
	in.read("%s", what)
}

// physName turns rdma's LINK_UP into sysfs's LinkUp, the spelling the
// rules compare with.
func physName(s string) string {
	switch s {
	case "LINK_UP":
		return "LinkUp"
	case "DISABLED":
		return "Disabled"
	case "POLLING":
		return "Polling"
	case "SLEEP":
		return "Sleep"
	case "LINK_ERROR_RECOVERY":
		return "LinkErrorRecovery"
	case "PHY_TEST":
		return "Phy Test"
	}
	return s
}
