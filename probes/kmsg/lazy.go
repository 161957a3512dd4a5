package kmsg

import (
	"regexp"
	"sync"
)

// lazyRegexp returns a function that compiles expr on its first call and
// returns the same Regexp from then on. The package's patterns are
// compiled on first use, not at init: a command that never reads a kernel
// log should not pay for compiling them.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
