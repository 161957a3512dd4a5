//go:build !linux

package flight

// allocArena: the heap, where there is no anonymous mapping to use.
func allocArena(n int) ([]byte, func([]byte)) { return make([]byte, n), nil }
