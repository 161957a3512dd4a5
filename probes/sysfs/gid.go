package sysfs

import (
	"io/fs"
	"net/netip"
	"strconv"
)

// GIDType is a GID entry's type as gid_attrs/types prints it.
type GIDType string

// GID types. IB/RoCE v1 is both native InfiniBand and RoCE v1 (Ethertype
// 0x8915, not routable); RoCE v2 is UDP port 4791 over IP.
const (
	GIDTypeIBRoCEv1 GIDType = "IB/RoCE v1"
	GIDTypeRoCEv2   GIDType = "RoCE v2"
)

// GID is one populated GID table entry.
type GID struct {
	Index int        `json:"index"`
	GID   netip.Addr `json:"gid"`
	// Type is "" when the kernel gives none (the read fails: EINVAL).
	Type GIDType `json:"type,omitempty"`
	// Netdev is the netdev the entry belongs to; "" on InfiniBand ports
	// and when the kernel gives none.
	Netdev string `json:"netdev,omitempty"`
}

// IPv4 returns the IPv4 address of an IPv4-mapped GID
// (::ffff:192.168.10.11), or false.
func (g GID) IPv4() (netip.Addr, bool) {
	if g.GID.Is4In6() {
		return g.GID.Unmap(), true
	}
	return netip.Addr{}, false
}

// readGIDs reads a port's GID table. Empty entries read as the all-zero
// GID and are skipped without reading their attributes; an entry whose
// read fails with ENOENT or EINVAL has no entry. Only the attributes of
// populated entries are read.
func readGIDs(fsys fs.FS, port string) ([]GID, []FileError) {
	dir := port + "/gids"
	idx, errs := tableIndices(fsys, dir)
	gids := attrs{fsys: fsys, dir: dir, errs: errs}
	types := attrs{fsys: fsys, dir: port + "/gid_attrs/types"}
	ndevs := attrs{fsys: fsys, dir: port + "/gid_attrs/ndevs"}
	names := make([]string, len(idx))
	for j, i := range idx {
		names[j] = strconv.Itoa(i)
	}
	gids.prefetch(names...)
	var out []GID
	for j, i := range idx {
		name := names[j]
		s, ok := gids.strOrNone(name)
		if !ok {
			continue
		}
		a, err := ParseGID(s)
		if err != nil {
			gids.errs = append(gids.errs, parseError(dir+"/"+name, err))
			continue
		}
		if a.IsUnspecified() {
			continue
		}
		g := GID{Index: i, GID: a}
		if t, ok := types.strOrNone(name); ok {
			g.Type = GIDType(t)
		}
		g.Netdev, _ = ndevs.strOrNone(name)
		out = append(out, g)
	}
	return out, append(append(gids.errs, types.errs...), ndevs.errs...)
}

// ReadPortGIDs reads one port's GID table again (a port that went down or
// came up re-registers its GIDs, maybe at other indexes). ok is false when
// the table cannot be listed at all, which is not an empty table: a
// recording replays only the files read when it was made.
func ReadPortGIDs(fsys fs.FS, dev string, port int) (gids []GID, ok bool) {
	dir := portDir(dev, port)
	if _, err := fs.ReadDir(fsys, dir+"/gids"); err != nil {
		return nil, false
	}
	gids, _ = readGIDs(fsys, dir)
	return gids, true
}
