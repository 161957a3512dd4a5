package sysfs

import (
	"errors"
	"io/fs"
	"slices"
	"strconv"
)

// Port states (enum ib_port_state) and physical states, as sysfs numbers
// them.
const (
	StateDown        = 1
	StateInit        = 2
	StateArmed       = 3
	StateActive      = 4
	StateActiveDefer = 5

	PhysSleep             = 1
	PhysPolling           = 2
	PhysDisabled          = 3
	PhysTraining          = 4
	PhysLinkUp            = 5
	PhysLinkErrorRecovery = 6
	PhysPhyTest           = 7
)

// Port is one port of an RDMA device.
type Port struct {
	Num       int     `json:"port"`
	State     *Enum   `json:"state,omitempty"`      // 4: ACTIVE
	PhysState *Enum   `json:"phys_state,omitempty"` // 5: LinkUp
	Rate      *Rate   `json:"rate,omitempty"`
	LinkLayer *string `json:"link_layer,omitempty"` // Ethernet (RoCE) or InfiniBand
	LID       *uint16 `json:"lid,omitempty"`
	SMLID     *uint16 `json:"sm_lid,omitempty"` // meaningful on InfiniBand only
	SMSL      *uint8  `json:"sm_sl,omitempty"`
	LMC       *uint8  `json:"lid_mask_count,omitempty"`
	CapMask   *uint32 `json:"cap_mask,omitempty"`
	// GIDs holds the populated GID entries (all-zero ones are skipped);
	// nil when the table was not read (ReadPortState).
	GIDs []GID `json:"gids,omitempty"`
	// PKeys holds the non-zero P_Key entries.
	PKeys  []PKey      `json:"pkeys,omitempty"`
	Errors []FileError `json:"errors,omitempty"`
}

// PKey is one P_Key table entry.
type PKey struct {
	Index int    `json:"index"`
	Value uint16 `json:"value"`
}

// Active reports whether the port's logical state is ACTIVE.
func (p *Port) Active() bool { return p.State != nil && p.State.Value == StateActive }

// Ethernet reports whether the port is RoCE (link layer Ethernet).
func (p *Port) Ethernet() bool { return p.LinkLayer != nil && *p.LinkLayer == "Ethernet" }

func portDir(dev string, port int) string {
	return ibClass + "/" + dev + "/ports/" + strconv.Itoa(port)
}

// ReadPortState reads a port's state, physical state, rate, link layer and
// LIDs: the cheap part, for every sample. It fails with ErrGone when the
// port is not there.
func ReadPortState(fsys fs.FS, dev string, port int) (Port, error) {
	dir := portDir(dev, port)
	p := Port{Num: port}
	a := attrs{fsys: fsys, dir: dir}
	a.prefetch("state", "phys_state", "rate", "link_layer", "lid", "sm_lid", "sm_sl", "lid_mask_count", "cap_mask")
	p.State = parsed(&a, "state", ParseEnum)
	if p.State == nil && len(a.errs) == 0 {
		if _, err := fs.Stat(fsys, dir); errors.Is(err, fs.ErrNotExist) {
			return p, &goneError{dev + " port " + strconv.Itoa(port)}
		}
	}
	p.PhysState = parsed(&a, "phys_state", ParseEnum)
	p.Rate = parsed(&a, "rate", ParseRate)
	p.LinkLayer = strPtr(&a, "link_layer")
	p.LID = parsed(&a, "lid", parseHex16)
	p.SMLID = parsed(&a, "sm_lid", parseHex16)
	p.SMSL = parsed(&a, "sm_sl", parseUint8)
	p.LMC = parsed(&a, "lid_mask_count", parseUint8)
	p.CapMask = parsed(&a, "cap_mask", parseHex32)
	p.Errors = a.errs
	return p, nil
}

// ReadPort reads ReadPortState and the port's GID and P_Key tables.
func ReadPort(fsys fs.FS, dev string, port int) (Port, error) {
	p, err := ReadPortState(fsys, dev, port)
	if err != nil {
		return p, err
	}
	dir := portDir(dev, port)
	var errs []FileError
	p.GIDs, errs = readGIDs(fsys, dir)
	p.Errors = append(p.Errors, errs...)
	p.PKeys, errs = readPKeys(fsys, dir)
	p.Errors = append(p.Errors, errs...)
	return p, nil
}

// tableIndices lists a numbered table directory (gids/, pkeys/) in order.
func tableIndices(fsys fs.FS, dir string) ([]int, []FileError) {
	ents, err := fs.ReadDir(fsys, dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, []FileError{fileError(dir, err)}
	}
	idx := make([]int, 0, len(ents))
	for _, e := range ents {
		if i, err := strconv.Atoi(e.Name()); err == nil && i >= 0 {
			idx = append(idx, i)
		}
	}
	slices.Sort(idx)
	return idx, nil
}

func readPKeys(fsys fs.FS, port string) ([]PKey, []FileError) {
	dir := port + "/pkeys"
	idx, errs := tableIndices(fsys, dir)
	a := attrs{fsys: fsys, dir: dir, errs: errs}
	if _, ok := fsys.(FilesFS); ok {
		names := make([]string, len(idx))
		for j, i := range idx {
			names[j] = strconv.Itoa(i)
		}
		a.prefetch(names...)
	}
	var out []PKey
	for _, i := range idx {
		v := parsed(&a, strconv.Itoa(i), parseHex16)
		if v != nil && *v&0x7fff != 0 { // 0x0000 and 0x8000 are empty slots
			out = append(out, PKey{Index: i, Value: *v})
		}
	}
	return out, a.errs
}
