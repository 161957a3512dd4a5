package sysfs

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
)

const maxLinks = 40 // like the kernel's MAXSYMLINKS

// resolver resolves symlinks, remembering the directory listings it read
// for the length of one operation (a discovery lists sys/class/net once,
// not once per netdev).
type resolver struct {
	fsys fs.FS
	dirs map[string][]fs.DirEntry
}

func newResolver(fsys fs.FS) *resolver {
	return &resolver{fsys: fsys, dirs: map[string][]fs.DirEntry{}}
}

// realPath resolves name with a resolver of its own.
func realPath(fsys fs.FS, name string) (string, error) { return newResolver(fsys).realPath(name) }

// realPath resolves every symlink in name, like realpath(3). It learns
// which components are links from their parent's listing and reads only
// those links: ReadDir and ReadLink are what a probes/fsrec recording
// keeps, so a recorded tree resolves the same way. An absolute link
// target is taken relative to the root of fsys, which is the host's "/".
func (r *resolver) realPath(name string) (string, error) {
	rest := strings.Split(name, "/")
	done := make([]string, 0, len(rest)+8)
	links := 0
	for len(rest) > 0 {
		elem := rest[0]
		rest = rest[1:]
		switch elem {
		case "", ".":
			continue
		case "..":
			if len(done) == 0 {
				return "", fmt.Errorf("resolve %s: a link leads above the root", name)
			}
			done = done[:len(done)-1]
			continue
		}
		dir := "."
		if len(done) > 0 {
			dir = strings.Join(done, "/")
		}
		link, err := r.isLink(dir, elem)
		if err != nil {
			return "", err
		}
		if !link {
			done = append(done, elem)
			continue
		}
		target, err := fs.ReadLink(r.fsys, path.Join(dir, elem))
		if err != nil {
			return "", err
		}
		if links++; links > maxLinks {
			return "", fmt.Errorf("resolve %s: too many links", name)
		}
		if strings.HasPrefix(target, "/") {
			done = done[:0]
		}
		rest = append(strings.Split(target, "/"), rest...)
	}
	return strings.Join(done, "/"), nil
}

// isLink reports whether dir/elem is a symlink, from dir's listing; an
// error matching fs.ErrNotExist when it is not there.
func (r *resolver) isLink(dir, elem string) (bool, error) {
	ents, ok := r.dirs[dir]
	if !ok {
		var err error
		if ents, err = fs.ReadDir(r.fsys, dir); err != nil {
			return false, err
		}
		r.dirs[dir] = ents
	}
	i, found := slices.BinarySearchFunc(ents, elem, func(e fs.DirEntry, n string) int { return strings.Compare(e.Name(), n) })
	if !found {
		for i = range ents { // not sorted by this file system
			if ents[i].Name() == elem {
				found = true
				break
			}
		}
	}
	if !found {
		return false, &fs.PathError{Op: "resolve", Path: path.Join(dir, elem), Err: fs.ErrNotExist}
	}
	return ents[i].Type()&fs.ModeSymlink != 0, nil
}

// isPCIAddr reports whether s looks like a PCI address, "0000:3b:00.0".
func isPCIAddr(s string) bool {
	if len(s) != 12 || s[4] != ':' || s[7] != ':' || s[10] != '.' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if i == 4 || i == 7 || i == 10 {
			continue
		}
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// pciAddr returns the PCI address nearest to the device in a resolved
// device path: the function itself, or the function an auxiliary device
// (mlx5_core.rdma.0) hangs off.
func pciAddr(devPath string) string {
	for p := devPath; p != "." && p != "/" && p != ""; p = path.Dir(p) {
		if b := path.Base(p); isPCIAddr(b) {
			return b
		}
	}
	return ""
}

// sameFunction reports whether an RDMA device and a netdev sit on the same
// device: the same directory, or one an auxiliary child of the other
// (mlx5_core.rdma.0 under the PCI function the netdev hangs off).
func sameFunction(ibDev, netDev string) bool {
	if ibDev == "" || netDev == "" {
		return false
	}
	return ibDev == netDev || path.Dir(ibDev) == netDev || path.Dir(netDev) == ibDev
}

// ibDeviceDir returns the resolved directory of the device an RDMA device
// hangs off, or "" for a virtual device (rxe, siw).
func ibDeviceDir(r *resolver, name string) string {
	base := ibClass + "/" + name
	if p, err := r.realPath(base + "/device"); err == nil && p != "" {
		return p
	}
	real, err := r.realPath(base)
	if err != nil {
		return ""
	}
	d := path.Dir(real)
	if path.Base(d) != "infiniband" {
		return ""
	}
	p := path.Dir(d)
	if !strings.HasPrefix(p, "sys/devices/") || strings.HasPrefix(p, "sys/devices/virtual") {
		return ""
	}
	return p
}

// driverOf returns the name of the driver bound to a resolved device
// directory, or "".
func driverOf(fsys fs.FS, devDir string) string {
	if devDir == "" {
		return ""
	}
	t, err := fs.ReadLink(fsys, devDir+"/driver")
	if err != nil {
		return ""
	}
	return path.Base(t)
}
