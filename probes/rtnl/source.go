package rtnl

import (
	"fmt"
	"io/fs"
)

// OS reads links. Implementations return errors that wrap ErrNoDevice for
// a link that does not exist (or vanished between two reads), and
// *probes.PermissionError when access is refused.
type OS interface {
	// Link is the link called name (or with that alternative name).
	Link(name string) (Link, error)
	// LinkByIndex is the link with that ifindex: a Link's MasterIndex or
	// ParentIndex resolved (the bond under a RoCE LAG, a VLAN's lower device).
	LinkByIndex(index int) (Link, error)
	// Links is every link of the namespace, in ifindex order.
	Links() ([]Link, error)
}

// ErrNoDevice is wrapped by errors about a link that does not exist. It
// also matches os.ErrNotExist.
var ErrNoDevice error = noDevice{}

type noDevice struct{}

func (noDevice) Error() string        { return "no such network interface" }
func (noDevice) Is(target error) bool { return target == fs.ErrNotExist }

// maxAltNameLen is ALTIFNAMSIZ minus the NUL: the longest name rtnetlink
// looks up (names of 16 bytes and more are alternative names).
const maxAltNameLen = 127

func checkName(name string) error {
	switch {
	case name == "" || name == "." || name == "..":
		return fmt.Errorf("rtnl: invalid interface name %q", name)
	case len(name) > maxAltNameLen:
		return fmt.Errorf("rtnl: interface name of %d bytes, longer than %d", len(name), maxAltNameLen)
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; c <= ' ' || c == '/' || c == ':' || c == 0x7f {
			return fmt.Errorf("rtnl: invalid interface name %q", name)
		}
	}
	return nil
}

func checkIndex(index int) error {
	if index <= 0 || index > 1<<31-1 {
		return fmt.Errorf("rtnl: ifindex %d: must be positive", index)
	}
	return nil
}
