package procinfo

import (
	"github.com/rdmatop/rdmatop/probes"
)

// Memory is the part of /proc/meminfo that bears on memory registration.
// A field is nil when the kernel does not report it.
type Memory struct {
	MemFreeBytes      *uint64 `json:"mem_free_bytes,omitempty"`
	MemAvailableBytes *uint64 `json:"mem_available_bytes,omitempty"`
	HugePagesTotal    *uint64 `json:"hugepages_total,omitempty"` // pages of the default huge page size
	HugePagesFree     *uint64 `json:"hugepages_free,omitempty"`
	HugePagesRsvd     *uint64 `json:"hugepages_rsvd,omitempty"` // reserved: promised to a mapping, not yet faulted in
	HugePagesSurp     *uint64 `json:"hugepages_surp,omitempty"` // surplus above nr_hugepages (overcommit)
	HugePageSizeBytes *uint64 `json:"hugepage_size_bytes,omitempty"`
}

// Memory reads /proc/meminfo.
func (f *FS) Memory() (Memory, error) {
	mi, err := f.proc.Meminfo()
	if err != nil {
		return Memory{}, readError(f.path("meminfo"), err)
	}
	return Memory{
		MemFreeBytes:      mi.MemFreeBytes,
		MemAvailableBytes: mi.MemAvailableBytes,
		HugePagesTotal:    mi.HugePagesTotal,
		HugePagesFree:     mi.HugePagesFree,
		HugePagesRsvd:     mi.HugePagesRsvd,
		HugePagesSurp:     mi.HugePagesSurp,
		HugePageSizeBytes: mi.HugepagesizeBytes,
	}, nil
}

// Snapshot returns the snapshot model's memory configuration from m and,
// when known, fr.
func (m Memory) Snapshot(fr *Fragmentation) probes.MemoryConfig {
	kb := func(b *uint64) *uint64 {
		if b == nil {
			return nil
		}
		v := *b / 1024
		return &v
	}
	c := probes.MemoryConfig{
		HugePagesTotal: m.HugePagesTotal,
		HugePagesFree:  m.HugePagesFree,
		HugePageSizeKB: kb(m.HugePageSizeBytes),
		MemAvailableKB: kb(m.MemAvailableBytes),
	}
	if fr != nil {
		c.HighOrderFreeKB = kb(&fr.HighOrderBytes)
	}
	return c
}
