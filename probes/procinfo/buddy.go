package procinfo

import "fmt"

// HighOrderBytes is the block size from which free memory counts as
// unfragmented: 2 MiB, a huge page on x86-64 and the size a large memory
// registration or a huge-page-backed buffer needs in one piece.
const HighOrderBytes = 2 << 20

// ZoneFree is one line of /proc/buddyinfo: free blocks per order in one
// memory zone of one NUMA node.
type ZoneFree struct {
	Node string `json:"node"`
	Zone string `json:"zone"`
	// Blocks[i] is the number of free blocks of 2^i pages.
	Blocks         []uint64 `json:"free_blocks"`
	FreeBytes      uint64   `json:"free_bytes"`
	HighOrderBytes uint64   `json:"high_order_free_bytes"`
}

// Fragmentation summarises /proc/buddyinfo. FreeBytes counts the buddy
// allocator's free lists only; in VMs that initialise memory lazily or
// report free pages to the hypervisor it can be far below MemFree.
type Fragmentation struct {
	PageSize int `json:"page_size"`
	// HighOrder is the lowest order counted as high: blocks of 2^HighOrder
	// pages are at least HighOrderBytes (9 with 4 KiB pages).
	HighOrder      int        `json:"high_order"`
	Zones          []ZoneFree `json:"zones"`
	FreeBytes      uint64     `json:"free_bytes"`
	HighOrderBytes uint64     `json:"high_order_free_bytes"`
	// HighOrderFraction is HighOrderBytes/FreeBytes: near 1 when free
	// memory is in large blocks, near 0 when it is fragmented. Absent
	// when nothing is free.
	HighOrderFraction *float64 `json:"high_order_fraction,omitempty"`
}

// Fragmentation reads /proc/buddyinfo.
func (f *FS) Fragmentation() (Fragmentation, error) {
	bi, err := f.proc.BuddyInfo()
	if err != nil {
		return Fragmentation{}, readError(f.path("buddyinfo"), err)
	}
	fr := Fragmentation{PageSize: f.pageSize, HighOrder: highOrder(f.pageSize), Zones: []ZoneFree{}}
	for _, b := range bi {
		z := ZoneFree{Node: b.Node, Zone: b.Zone, Blocks: make([]uint64, len(b.Sizes))}
		for order, n := range b.Sizes {
			if n < 0 || n != float64(uint64(n)) {
				return fr, fmt.Errorf("%s: node %s zone %s order %d: count %v", f.path("buddyinfo"), b.Node, b.Zone, order, n)
			}
			z.Blocks[order] = uint64(n)
			bytes := uint64(n) << order * uint64(f.pageSize)
			z.FreeBytes += bytes
			if order >= fr.HighOrder {
				z.HighOrderBytes += bytes
			}
		}
		fr.FreeBytes += z.FreeBytes
		fr.HighOrderBytes += z.HighOrderBytes
		fr.Zones = append(fr.Zones, z)
	}
	if fr.FreeBytes > 0 {
		v := float64(fr.HighOrderBytes) / float64(fr.FreeBytes)
		fr.HighOrderFraction = &v
	}
	return fr, nil
}

// highOrder is the smallest order whose blocks reach HighOrderBytes.
func highOrder(pageSize int) int {
	o := 0
	for uint64(pageSize)<<o < HighOrderBytes {
		o++
	}
	return o
}
