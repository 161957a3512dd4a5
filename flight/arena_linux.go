package flight

import "golang.org/x/sys/unix"

// allocArena maps n bytes of anonymous memory: outside the Go heap, not
// scanned, and resident only once written. A failed mapping falls back
// to the heap.
func allocArena(n int) ([]byte, func([]byte)) {
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return make([]byte, n), nil
	}
	return b, func(b []byte) { unix.Munmap(b) } //nolint:errcheck // a mapping of our own: nothing to do on failure
}
