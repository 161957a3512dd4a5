package flight

// arena is the memory the ring copies packets into: one block of
// KeepPackets bytes, written round and round, so that keeping packets
// allocates nothing. On Linux it is mapped outside the Go heap
// (arena_linux.go): 64 MiB of packets that live for minutes would
// otherwise be live heap the collector paces itself by, letting as much
// garbage again pile up before each collection (measured in the lab:
// serve's resident memory with the recorder went from 85 to 270 MB for
// 67 MB held).
type arena struct {
	buf  []byte
	w    int // where the next packet goes
	free func([]byte)
}

func newArena(n int) *arena {
	buf, free := allocArena(n)
	return &arena{buf: buf, free: free}
}

// release gives the block back; nothing may read the packets after.
func (a *arena) release() {
	if a != nil && a.free != nil {
		a.free(a.buf)
		a.buf, a.free = nil, nil
	}
}
