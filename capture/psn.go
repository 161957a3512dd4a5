package capture

// PSNs are 24-bit sequence numbers that wrap: all arithmetic is modulo 2^24
// and "ahead" means less than half the space ahead (IBTA 9.7.1).

const (
	psnMask = 1<<24 - 1
	psnHalf = 1 << 23
)

// psnAdd returns p+n modulo 2^24.
func psnAdd(p uint32, n int) uint32 { return uint32(int(p)+n) & psnMask }

// psnDiff returns b-a as a signed distance in (-2^23, 2^23].
func psnDiff(a, b uint32) int {
	d := int((b - a) & psnMask)
	if d > psnHalf {
		d -= 1 << 24
	}
	return d
}
