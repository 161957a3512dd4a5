package saved

import (
	"strconv"
	"strings"

	"github.com/rdmatop/rdmatop/internal/lazyre"
	"github.com/rdmatop/rdmatop/probes"
)

var (
	reDevinfoState = lazyre.New(`^PORT_([A-Z_]+) \(\d+\)$`)
	reDevinfoPhys  = lazyre.New(`^([A-Z_]+) \(\d+\)$`)
	reDevinfoGID   = lazyre.New(`^GID\[\s*(\d+)\]:\s*(\S+?),?\s*(RoCE v[12])?$`)
)

// devinfo reads `ibv_devinfo [-v]`: devices, firmware, port states, link
// layers and GIDs.
func (l *loader) devinfo(sec *section, in *Input) bool {
	var dev *probes.Device
	var port *portFacts
	devs := 0
	for _, s := range sec.lines {
		t := strings.TrimSpace(s)
		k, v, ok := strings.Cut(t, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch k {
		case "hca_id":
			dev, port = l.h.device(v), nil
			dev.Name = v
			devs++
			continue
		}
		if dev == nil {
			if t != "" && !strings.HasPrefix(t, "No IB devices") {
				return false // ibv_devinfo starts with hca_id
			}
			continue
		}
		switch {
		case k == "fw_ver":
			dev.FW = v
		case k == "node_guid":
			dev.NodeGUID = v
		case k == "board_id":
			dev.BoardID = v
		case k == "phys_port_cnt":
			dev.Ports, _ = strconv.Atoi(v)
		case k == "port":
			n, err := strconv.Atoi(v)
			if err == nil {
				port = l.h.port(dev.Name, n)
			}
		case port == nil:
		case k == "state":
			if m := reDevinfoState().FindStringSubmatch(v); m != nil {
				port.state = m[1]
			}
		case k == "phys_state":
			if m := reDevinfoPhys().FindStringSubmatch(v); m != nil {
				port.phys = physName(m[1])
			}
		case k == "link_layer":
			port.linkLayer = v
		case strings.HasPrefix(t, "GID["):
			if m := reDevinfoGID().FindStringSubmatch(t); m != nil {
				idx, _ := strconv.Atoi(m[1])
				g := probes.GID{Device: dev.Name, Port: port.port, Index: idx, GID: m[2]}
				switch m[3] {
				case "RoCE v2":
					g.Type = "RoCE v2"
				case "RoCE v1":
					g.Type = "IB/RoCE v1"
				}
				l.h.gids = append(l.h.gids, g)
			}
		}
	}
	if devs == 0 {
		return false
	}
	in.read("%s with their ports and GIDs", plural(devs, "RDMA device"))
	in.ignore("the netdev of each port is not in ibv_devinfo (rdma link show has it)")
	return true
}
