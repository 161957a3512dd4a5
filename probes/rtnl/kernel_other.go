//go:build !linux

package rtnl

import (
	"context"
	"fmt"

	"github.com/rdmatop/rdmatop/probes"
)

// Kernel is the rtnetlink reader; it exists only on Linux.
type Kernel struct{}

var _ OS = (*Kernel)(nil)

var errNoRtnl = fmt.Errorf("rtnetlink is Linux-only: %w", probes.ErrNotSupported)

// Open fails: rtnetlink is Linux-only.
func Open() (*Kernel, error) { return nil, errNoRtnl }

// Close does nothing.
func (k *Kernel) Close() error { return nil }

// Link fails with probes.ErrNotSupported.
func (k *Kernel) Link(string) (Link, error) { return Link{}, errNoRtnl }

// LinkContext fails with probes.ErrNotSupported.
func (k *Kernel) LinkContext(context.Context, string) (Link, error) { return Link{}, errNoRtnl }

// Links fails with probes.ErrNotSupported.
func (k *Kernel) Links() ([]Link, error) { return nil, errNoRtnl }
