package sysfs

import (
	"errors"
	"fmt"
	"io/fs"
	"strconv"

	"github.com/rdmatop/rdmatop/probes"
)

// ECN point directories of MLNX_OFED's sys/class/net/<if>/ecn.
const (
	ECNNotificationPoint = "roce_np" // receiver: CNP generation
	ECNReactionPoint     = "roce_rp" // sender: rate reduction on CNP
)

// ECNPoint is one ecn/<point> directory: per-priority enables and the
// numeric parameters, whatever names the driver has.
type ECNPoint struct {
	Enabled map[int]bool      `json:"enabled,omitempty"` // priority → enable/<p>; only priorities present
	Params  map[string]uint64 `json:"params,omitempty"`  // min_time_between_cnps, cnp_dscp, rpg_*, ...
}

// ECN is a netdev's MLNX_OFED congestion-control (DCQCN) settings.
type ECN struct {
	Netdev string              `json:"netdev"`
	Points map[string]ECNPoint `json:"points"` // roce_np, roce_rp
	Errors []FileError         `json:"errors,omitempty"`
}

// NP returns the notification point settings.
func (e *ECN) NP() (ECNPoint, bool) { p, ok := e.Points[ECNNotificationPoint]; return p, ok }

// RP returns the reaction point settings.
func (e *ECN) RP() (ECNPoint, bool) { p, ok := e.Points[ECNReactionPoint]; return p, ok }

// ReadECN reads sys/class/net/<netdev>/ecn. Upstream kernels have no such
// directory: the error then matches probes.ErrNotSupported.
func ReadECN(fsys fs.FS, netdev string) (ECN, error) {
	dir := netClass + "/" + netdev + "/ecn"
	e := ECN{Netdev: netdev, Points: map[string]ECNPoint{}}
	ents, err := fs.ReadDir(fsys, dir)
	if errors.Is(err, fs.ErrNotExist) {
		return e, fmt.Errorf("%s: no ecn/ (MLNX_OFED only): %w", netdev, probes.ErrNotSupported)
	}
	if err != nil {
		return e, permission(dir, err)
	}
	for _, ent := range ents {
		if !ent.IsDir() {
			continue
		}
		pdir := dir + "/" + ent.Name()
		pt := ECNPoint{Enabled: map[int]bool{}, Params: map[string]uint64{}}
		pents, err := fs.ReadDir(fsys, pdir)
		if err != nil {
			e.Errors = append(e.Errors, fileError(pdir, err))
			continue
		}
		for _, pe := range pents {
			if pe.IsDir() {
				if pe.Name() == "enable" {
					e.Errors = append(e.Errors, readEnables(fsys, pdir+"/enable", pt.Enabled)...)
				}
				continue
			}
			e.Errors = append(e.Errors, readParam(fsys, pdir, pe.Name(), pt.Params)...)
		}
		e.Points[ent.Name()] = pt
	}
	return e, nil
}

func readEnables(fsys fs.FS, dir string, into map[int]bool) []FileError {
	idx, errs := tableIndices(fsys, dir)
	for _, p := range idx {
		f := dir + "/" + strconv.Itoa(p)
		v, err := readValue(fsys, f)
		switch {
		case err != nil:
			errs = append(errs, fileError(f, err))
		case v == "0" || v == "1":
			into[p] = v == "1"
		default:
			errs = append(errs, parseError(f, fmt.Errorf("%q is not 0 or 1", v)))
		}
	}
	return errs
}

func readParam(fsys fs.FS, dir, name string, into map[string]uint64) []FileError {
	f := dir + "/" + name
	v, err := readValue(fsys, f)
	if err != nil {
		return []FileError{fileError(f, err)}
	}
	n, err := ParseCounter(v)
	if err != nil {
		return []FileError{parseError(f, err)}
	}
	into[name] = n
	return nil
}
