package sysfs

import (
	"errors"
	"io/fs"
	"path"
)

// PeerMemModules are the kernel modules that let an RDMA NIC's driver
// map GPU memory for GPUDirect RDMA: NVIDIA's nvidia_peermem, shipped
// with its driver since 465, and the older Mellanox nv_peer_mem.
var PeerMemModules = []string{"nvidia_peermem", "nv_peer_mem"}

// ReadModules says which of names are loaded (sys/module/NAME exists).
// ok is false when sys/module itself is not there (a container without
// it, a fixture tree): then nothing is known, and absent is not
// unloaded. A module built into the kernel shows only when it has
// parameters; the GPU driver and the peer-memory modules are loadable.
func ReadModules(fsys fs.FS, names ...string) (loaded []string, ok bool, err error) {
	if _, err := fs.Stat(fsys, "sys/module"); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, false, nil
		}
		return nil, false, err
	}
	for _, n := range names {
		_, err := fs.Stat(fsys, path.Join("sys/module", n))
		switch {
		case err == nil:
			loaded = append(loaded, n)
		case !errors.Is(err, fs.ErrNotExist):
			return loaded, false, err
		}
	}
	return loaded, true, nil
}
