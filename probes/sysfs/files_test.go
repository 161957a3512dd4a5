package sysfs

import (
	"io/fs"
	"reflect"
	"sync/atomic"
	"testing"
)

// runFS reads runs through ReadFiles, as the sampler's guard does, and
// counts them (ReadAllCounters reads devices in parallel).
type runFS struct {
	fsys  fs.FS
	runs  atomic.Int64
	files atomic.Int64
}

func (r *runFS) Open(name string) (fs.File, error)          { return r.fsys.Open(name) }
func (r *runFS) ReadFile(name string) ([]byte, error)       { return fs.ReadFile(r.fsys, name) }
func (r *runFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(r.fsys, name) }
func (r *runFS) Stat(name string) (fs.FileInfo, error)      { return fs.Stat(r.fsys, name) }
func (r *runFS) Lstat(name string) (fs.FileInfo, error)     { return fs.Lstat(r.fsys, name) }
func (r *runFS) ReadLink(name string) (string, error)       { return fs.ReadLink(r.fsys, name) }

func (r *runFS) ReadFiles(names []string, contents [][]byte, errs []error) {
	r.runs.Add(1)
	r.files.Add(int64(len(names)))
	for i, n := range names {
		contents[i], errs[i] = fs.ReadFile(r.fsys, n)
	}
}

// What is read in runs through a FilesFS is what is read file by file:
// devices, ports, GIDs, P_Keys, counters and netdevs, the failures (the
// rxe snapshot's EINVAL and EACCES files) included.
func TestFilesFSReadsTheSame(t *testing.T) {
	for _, c := range []struct {
		name string
		fsys fs.FS
	}{
		{"mlx5-roce-cx6dx-t0", fixture("mlx5-roce-cx6dx-t0")},
		{"mlx5-ib-cx6", fixture("mlx5-ib-cx6")},
		{"rxe tsv", rxeTSV(t, "sysfs-final.tsv")},
	} {
		read := func(fsys fs.FS) (devs []Device, sets []CounterSet, nds []Netdev, errs []string) {
			devs, err := Discover(fsys)
			if err != nil {
				errs = append(errs, err.Error())
			}
			sets, err = ReadAllCounters(fsys, devs)
			if err != nil {
				errs = append(errs, err.Error())
			}
			for _, d := range devs {
				for _, p := range d.Ports {
					ps, err := ReadPortState(fsys, d.Name, p.Num)
					if err != nil {
						errs = append(errs, err.Error())
					}
					ps.GIDs, ps.PKeys = p.GIDs, p.PKeys
					if !reflect.DeepEqual(ps, p) {
						errs = append(errs, "port state differs from discovery")
					}
				}
			}
			names, _ := Netdevs(fsys)
			nds, err = ReadNetdevs(fsys, names)
			if err != nil {
				errs = append(errs, err.Error())
			}
			return devs, sets, nds, errs
		}
		d1, s1, n1, e1 := read(c.fsys)
		r := &runFS{fsys: c.fsys}
		d2, s2, n2, e2 := read(r)
		if len(d1) == 0 || len(s1) == 0 {
			t.Errorf("%s: %d devices, %d counter sets", c.name, len(d1), len(s1))
		}
		if !reflect.DeepEqual(d1, d2) || !reflect.DeepEqual(s1, s2) || !reflect.DeepEqual(n1, n2) || !reflect.DeepEqual(e1, e2) {
			t.Errorf("%s: read in runs differs:\n%+v\n%+v\n%v\n%v", c.name, d1, d2, e1, e2)
		}
		if r.runs.Load() == 0 {
			t.Errorf("%s: no run read", c.name)
		}
		t.Logf("%s: %d runs, %d files", c.name, r.runs.Load(), r.files.Load())
	}
}
