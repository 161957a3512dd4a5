package saved

import (
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
	"testing/fstest"
	"time"

	"github.com/rdmatop/rdmatop/internal/lazyre"
	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/sysfs"
)

// tree is sysfs files read from a listing or a copied tree, as paths
// relative to / ("sys/class/infiniband/mlx5_0/ports/1/counters/...").
type tree map[string]string

var (
	reIBPort  = lazyre.New(`^sys/class/infiniband/([^/]+)/ports/(\d+)/(counters|hw_counters)/([^/]+)$`)
	reIBAttr  = lazyre.New(`^sys/class/infiniband/([^/]+)/ports/(\d+)/(state|phys_state|link_layer|rate)$`)
	reIBGID   = lazyre.New(`^sys/class/infiniband/([^/]+)/ports/(\d+)/gid_attrs/ndevs/(\d+)$`)
	reNetStat = lazyre.New(`^sys/class/net/([^/]+)/statistics/([^/]+)$`)
	reNetAttr = lazyre.New(`^sys/class/net/([^/]+)/(mtu|operstate|speed)$`)
	// grep . FILES, grep -r . DIR, grep -H: "PATH:VALUE".
	reGrepLine = lazyre.New(`^((?:/|\./|sys/|ports/|counters/|hw_counters/|statistics/)?[\w.:/-]*?(?:counters|hw_counters|statistics)/[\w.-]+|(?:/|sys/)[\w.:/-]*/(?:state|phys_state|link_layer|rate|mtu|operstate|speed|gid_attrs/ndevs/\d+)):(.*)$`)
	// find | xargs head, head FILES: "==> PATH <=="; a loop echoing "=== PATH ===".
	reCatHeader = lazyre.New(`^(?:==> (.+) <==|=== (.+) ===)$`)
)

// resolve makes a listed path absolute against the prompt's directory and
// relative to /.
func resolve(cwd, p string) string {
	if !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "sys/") {
		if cwd == "" || !strings.HasPrefix(cwd, "/") {
			return ""
		}
		p = path.Join(cwd, p)
	}
	return strings.TrimPrefix(path.Clean(p), "/")
}

// sysfsGrep reads `grep . /sys/class/infiniband/*/ports/*/hw_counters/*`
// style listings.
func (l *loader) sysfsGrep(sec *section, in *Input) bool {
	lines := nonBlank(sec.lines)
	if len(lines) == 0 {
		return false
	}
	t := tree{}
	unresolved := 0
	for _, s := range lines {
		m := reGrepLine().FindStringSubmatch(strings.TrimSpace(s))
		if m == nil {
			return false
		}
		if p := resolve(sec.cwd, m[1]); p != "" {
			t[p] = m[2]
		} else {
			unresolved++
		}
	}
	if unresolved > 0 {
		in.ignore("%d relative paths with no directory to resolve them against (paste the prompt, or grep absolute paths)", unresolved)
	}
	l.readTree(t, sec.time, in)
	return true
}

// sysfsCat reads "=== ./name ===" / "==> path <==" listings, each header
// followed by the file's content.
func (l *loader) sysfsCat(sec *section, in *Input) bool {
	t := tree{}
	cur := ""
	headers, unresolved := 0, 0
	for _, s := range sec.lines {
		s = strings.TrimSpace(s)
		if m := reCatHeader().FindStringSubmatch(s); m != nil {
			headers++
			cur = resolve(sec.cwd, m[1]+m[2])
			if cur == "" {
				unresolved++
			}
			continue
		}
		if headers == 0 || cur == "" || s == "" {
			continue // a pasted loop's body before the first header
		}
		if _, seen := t[cur]; !seen {
			t[cur] = s
		}
	}
	if headers == 0 {
		return false
	}
	if unresolved > 0 {
		in.ignore("%d relative paths with no directory to resolve them against (paste the prompt, or list absolute paths)", unresolved)
	}
	l.readTree(t, sec.time, in)
	return true
}

// sysfsFile takes one file of a copied sysfs tree (a sosreport holds
// sys/class/net/*/statistics/); Load reads the tree once all are in.
func (l *loader) sysfsFile(f file, in *Input) bool {
	i := strings.Index(f.name, "sys/class/")
	if i < 0 {
		return false
	}
	rel := f.name[i:]
	if !reIBPort().MatchString(rel) && !reIBAttr().MatchString(rel) && !reIBGID().MatchString(rel) &&
		!reNetStat().MatchString(rel) && !reNetAttr().MatchString(rel) {
		return false
	}
	root := strings.TrimSuffix(f.path, f.name[i:])
	if l.trees == nil {
		l.trees = map[string]tree{}
	}
	if l.trees[root] == nil {
		l.trees[root] = tree{}
		l.treeOrder = append(l.treeOrder, root)
	}
	l.trees[root][rel] = strings.TrimSpace(string(f.data))
	in.Kind = KindSysfsFile
	return true
}

// readTree turns sysfs files into port and netdev facts: one reading of
// each port and netdev it holds.
func (l *loader) readTree(t tree, at *time.Time, in *Input) {
	fsys := fstest.MapFS{}
	ports := map[string][2]string{} // "dev/port" → dev, port
	netStats := map[string]map[string]uint64{}
	ignored := 0
	for p, v := range t {
		fsys[p] = &fstest.MapFile{Data: []byte(v + "\n")}
		switch {
		case reIBPort().MatchString(p):
			m := reIBPort().FindStringSubmatch(p)
			ports[m[1]+"/"+m[2]] = [2]string{m[1], m[2]}
		case reIBAttr().MatchString(p):
			m := reIBAttr().FindStringSubmatch(p)
			n, _ := strconv.Atoi(m[2])
			l.portAttr(m[1], n, m[3], v)
		case reIBGID().MatchString(p):
			m := reIBGID().FindStringSubmatch(p)
			n, _ := strconv.Atoi(m[2])
			if v != "" {
				l.h.port(m[1], n).netdev = v
			}
		case reNetStat().MatchString(p):
			m := reNetStat().FindStringSubmatch(p)
			x, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				ignored++
				continue
			}
			if netStats[m[1]] == nil {
				netStats[m[1]] = map[string]uint64{}
			}
			netStats[m[1]][m[2]] = x
		case reNetAttr().MatchString(p):
			m := reNetAttr().FindStringSubmatch(p)
			if m[2] == "mtu" {
				if x, err := strconv.Atoi(v); err == nil {
					l.h.netdev(m[1]).mtu = &x
				}
			}
		default:
			ignored++
		}
	}
	keys := make([]string, 0, len(ports))
	for k := range ports {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		dev, port := ports[k][0], ports[k][1]
		n, _ := strconv.Atoi(port)
		set, err := sysfs.ReadCounters(fsys, dev, n, "")
		if err != nil {
			in.ignore("%s port %d: %v", dev, n, err)
			continue
		}
		for _, e := range set.Errors {
			in.ignore("%s port %d: %s", dev, n, e.Error())
		}
		cs := set.ProbeCounters()
		for _, c := range cs {
			if c.Saturated {
				in.ignore("%s port %d: %s is stuck at its maximum (%d): saturated, its true count is unknown", dev, n, c.Native, c.Value)
			}
		}
		pf := l.h.port(dev, n)
		pf.readings = mergeReading(pf.readings, reading{time: at, counters: cs})
		l.h.device(dev)
		in.read("%s port %d: %s", dev, n, plural(len(cs), "counter"))
	}
	for _, nd := range sortedKeys(netStats) {
		cs := netdevStatCounters(netStats[nd])
		n := l.h.netdev(nd)
		n.link = mergeReading(n.link, reading{time: at, counters: cs})
		in.read("%s: %s", nd, plural(len(cs), "netdev statistic"))
	}
	if ignored > 0 {
		in.ignore("%d files rdmatop does not read", ignored)
	}
}

// mergeReading adds r to rs: into the last reading when it holds none of
// r's counters and was taken at the same time (counters/ and hw_counters/
// pasted apart), else as a new reading.
func mergeReading(rs []reading, r reading) []reading {
	if len(rs) > 0 {
		last := &rs[len(rs)-1]
		if sameTime(last.time, r.time) && disjoint(last.counters, r.counters) {
			last.counters = append(last.counters, r.counters...)
			return rs
		}
	}
	return append(rs, r)
}

func sameTime(a, b *time.Time) bool {
	return a == nil && b == nil || a != nil && b != nil && a.Equal(*b)
}

func disjoint(a, b []probes.Counter) bool {
	seen := make(map[string]bool, len(a))
	for _, c := range a {
		seen[c.Source+"\x00"+c.Native] = true
	}
	for _, c := range b {
		if seen[c.Source+"\x00"+c.Native] {
			return false
		}
	}
	return true
}

// netdevStatCounters are a netdev's kernel statistics under the names a
// live host gives them (netdev_rx_bytes, ...).
func netdevStatCounters(st map[string]uint64) []probes.Counter {
	names := make([]string, 0, len(st))
	for n := range st {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]probes.Counter, 0, len(names))
	for _, n := range names {
		unit := "packets"
		if strings.HasSuffix(n, "_bytes") {
			unit = "bytes"
		}
		out = append(out, probes.Counter{Name: "netdev_" + n, Native: n, Source: "rtnl", Value: st[n], Unit: unit})
	}
	return out
}

// portAttr records a port's state as sysfs prints it ("4: ACTIVE").
func (l *loader) portAttr(dev string, port int, attr, v string) {
	p := l.h.port(dev, port)
	l.h.device(dev)
	name := v
	if e, err := sysfs.ParseEnum(v); err == nil {
		name = e.Name
	}
	switch attr {
	case "state":
		p.state = name
	case "phys_state":
		p.phys = name
	case "link_layer":
		p.linkLayer = v
	}
}

// finishTrees reads the sysfs trees of copied files.
func (l *loader) finishTrees() []Input {
	var out []Input
	for _, root := range l.treeOrder {
		in := Input{Path: root + "sys/", Kind: KindSysfsTree}
		l.readTree(l.trees[root], nil, &in)
		if len(in.Read) == 0 {
			in.ignore("no RDMA port or netdev statistics in it")
		}
		in.Read = append([]string{fmt.Sprintf("%d files", len(l.trees[root]))}, in.Read...)
		out = append(out, in)
	}
	return out
}
