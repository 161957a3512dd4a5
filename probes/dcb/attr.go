package dcb

import (
	"encoding/binary"
	"fmt"
)

// ne is the byte order of netlink messages: the host's.
var ne = binary.NativeEndian

func need(name string, b []byte, n int) error {
	if len(b) < n {
		return fmt.Errorf("%s: %d bytes, want %d", name, len(b), n)
	}
	return nil
}
