// Package placeholdertest says which placeholders of a printed command
// the input behind a finding could have filled, for the tests that walk
// testdata (monitor's recordings; cmd's saved outputs and captures). It
// is for tests only.
package placeholdertest

import "regexp"

// Pattern finds the placeholders a command may keep: the RDMA device,
// its port, the netdev, the peer, the priority.
var Pattern = regexp.MustCompile(`\b(DEV|IFACE|NETDEV|PEER_IP|PEER|PRIO)\b|/N\b`)

// Place is what an input knows without any finding: its one RDMA port
// (device and netdev) and its one peer, each "" when it has none or
// several.
type Place struct{ Device, Netdev, Peer string }

// Known reports whether placeholder ph, in a command of a finding with
// objects objs, has a value that the finding or the input's place holds:
// a device (with its port) the finding names, or the input's one port
// when the finding names no other device; the netdev likewise; the
// flow's destination or the one peer; the priority the finding names.
func Known(ph string, objs map[string]string, pl Place) bool {
	own := objs["device"]
	mine := own == "" || own == pl.Device // the place's port is the finding's
	switch ph {
	case "DEV", "/N":
		return own != "" && objs["port"] != "" || own == "" && pl.Device != ""
	case "IFACE", "NETDEV":
		return objs["netdev"] != "" || mine && pl.Netdev != ""
	case "PEER_IP", "PEER":
		return objs["dst"] != "" || mine && pl.Peer != ""
	case "PRIO":
		return objs["priority"] != ""
	}
	return false
}
