package rtnl

import (
	"context"
	"fmt"
	"io/fs"
)

// OS reads links. Implementations return errors that wrap ErrNoDevice for
// a link that does not exist (or vanished between two reads), and
// *probes.PermissionError when access is refused.
type OS interface {
	// Link is the link called name (or with that alternative name).
	Link(name string) (Link, error)
	// Links is every link of the namespace, in ifindex order.
	Links() ([]Link, error)
}

// ContextOS is an OS whose link reads can be abandoned: LinkContext
// returns, with an error wrapping ctx.Err(), as soon as ctx ends.
type ContextOS interface {
	OS
	LinkContext(ctx context.Context, name string) (Link, error)
}

// LinkContext reads the link called name through src, with ctx where src
// takes one; an OS without LinkContext is not asked once ctx has ended.
func LinkContext(ctx context.Context, src OS, name string) (Link, error) {
	if c, ok := src.(ContextOS); ok {
		return c.LinkContext(ctx, name)
	}
	if err := ctx.Err(); err != nil {
		return Link{}, fmt.Errorf("rtnl link %s: %w", name, err)
	}
	return src.Link(name)
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
