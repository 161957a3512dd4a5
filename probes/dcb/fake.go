package dcb

import (
	"fmt"
	"syscall"
)

// Fake is a Querier that answers from recorded replies, keyed by netdev:
// a Raw per netdev (as Read returns it). A netdev it does not know answers
// ENODEV, like the kernel; a command missing from a known netdev's Raw
// answers EOPNOTSUPP.
type Fake map[string]Raw

// Query implements Querier.
func (f Fake) Query(ifname string, cmd Command) ([]byte, error) {
	raw, ok := f[ifname]
	if !ok {
		return nil, fmt.Errorf("fake dcb: %w", syscall.ENODEV)
	}
	for _, r := range raw.Replies {
		if r.Cmd == cmd {
			if r.Errno != 0 {
				return nil, syscall.Errno(r.Errno)
			}
			return r.Payload, nil
		}
	}
	return nil, syscall.EOPNOTSUPP
}
