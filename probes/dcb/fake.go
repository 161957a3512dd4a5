package dcb

import (
	"fmt"
	"syscall"

	"github.com/rdmatop/rdmatop/internal/nlmsg"
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

// Recorded is a Fake of replies recorded on a host whose byte order may
// not be this one's: what ReadContext reads from it decodes in that order.
type Recorded struct {
	Fake
	order nlmsg.Order
}

// NewRecorded answers from replies recorded on a host whose byte order is
// named byteOrder ("little" or "big", as a recording's header says).
func NewRecorded(replies map[string]Raw, byteOrder string) (Recorded, error) {
	o, err := nlmsg.OrderNamed(byteOrder)
	return Recorded{Fake: replies, order: o}, err
}
