//go:build linux

package live

import (
	"sync/atomic"
	"unsafe"
)

// The block status word is how the kernel and the reader hand a ring
// block to each other: the kernel sets TP_STATUS_USER when the block is
// full or retired, the reader sets TP_STATUS_KERNEL when it is done with
// it. Both sides write it while the other may read it, so it is accessed
// atomically; this is the one place in capture that needs unsafe.

const (
	blockStatus     = 8 // tpacket_block_desc.hdr.bh1.block_status
	statusKernel    = 0 // TP_STATUS_KERNEL
	statusUserReady = 1 // TP_STATUS_USER
)

func statusWord(mem []byte, block int) *uint32 {
	return (*uint32)(unsafe.Pointer(&mem[block+blockStatus]))
}

// blockReady reports whether the kernel handed the block at offset block
// to the reader.
func blockReady(mem []byte, block int) bool {
	return atomic.LoadUint32(statusWord(mem, block))&statusUserReady != 0
}

// releaseBlock gives the block at offset block back to the kernel.
func releaseBlock(mem []byte, block int) {
	atomic.StoreUint32(statusWord(mem, block), statusKernel)
}
