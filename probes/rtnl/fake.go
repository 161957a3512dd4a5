package rtnl

import (
	"fmt"
	"slices"
)

// Fake is an OS for tests and replays: a fixed set of links. A link not
// in All is not found; Err, when set, is returned by every call. Fake is
// safe for concurrent reads; change it only between reads.
type Fake struct {
	All []Link
	Err error
}

var _ OS = (*Fake)(nil)

// Link returns the link called name.
func (f *Fake) Link(name string) (Link, error) {
	if f.Err != nil {
		return Link{}, f.Err
	}
	for _, l := range f.All {
		if l.Name == name {
			return clone(l), nil
		}
	}
	return Link{}, fmt.Errorf("rtnl link %s: %w", name, ErrNoDevice)
}

// Links returns every link, in ifindex order.
func (f *Fake) Links() ([]Link, error) {
	if f.Err != nil {
		return nil, f.Err
	}
	out := make([]Link, len(f.All))
	for i, l := range f.All {
		out[i] = clone(l)
	}
	slices.SortFunc(out, func(a, b Link) int { return a.Index - b.Index })
	return out, nil
}

// clone copies l deeply, so that callers cannot change the fake's answer.
func clone(l Link) Link {
	c := l
	c.Carrier = clonePtr(l.Carrier)
	c.CarrierChanges = clonePtr(l.CarrierChanges)
	c.CarrierUpCount = clonePtr(l.CarrierUpCount)
	c.CarrierDownCount = clonePtr(l.CarrierDownCount)
	c.SpeedMbps = clonePtr(l.SpeedMbps)
	c.ParentNetnsID = clonePtr(l.ParentNetnsID)
	c.VLANID = clonePtr(l.VLANID)
	if l.Stats != nil {
		s := *l.Stats
		s.RxNoHandler = clonePtr(l.Stats.RxNoHandler)
		s.RxOtherhostDropped = clonePtr(l.Stats.RxOtherhostDropped)
		c.Stats = &s
	}
	return c
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
