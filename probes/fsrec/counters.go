package fsrec

import (
	"sort"
	"strconv"
	"strings"
)

// PortCounters finds the port 1 counters of the RDMA devices in a recorded
// sysfs tree (…/infiniband/DEV/ports/1/{counters,hw_counters}/NAME) and
// reads them, by id "DEV/DIR/NAME". A tree may hold one file under several
// keys (through symlinks): paths lists them all, sorted. Scripted
// recordings (the demo, tools/gen-incidents) move these values.
func PortCounters(t Tree) (paths map[string][]string, values map[string]uint64) {
	paths, values = map[string][]string{}, map[string]uint64{}
	for k, e := range t {
		i := strings.Index(k, "/infiniband/")
		if i < 0 || e.Data == nil {
			continue
		}
		rest := strings.Split(k[i+len("/infiniband/"):], "/") // mlx5_0 ports 1 hw_counters name
		if len(rest) != 5 || rest[1] != "ports" || rest[2] != "1" || (rest[3] != "counters" && rest[3] != "hw_counters") {
			continue
		}
		v, err := strconv.ParseUint(strings.TrimSpace(*e.Data), 10, 64)
		if err != nil {
			continue
		}
		id := rest[0] + "/" + rest[3] + "/" + rest[4]
		paths[id] = append(paths[id], k)
		values[id] = v
	}
	for _, ks := range paths {
		sort.Strings(ks)
	}
	return paths, values
}
