package rtnl

import "sync"

// maxPendingAddrs bounds the announcements kept between two drains: a
// host renumbering every address at once has a few hundred; beyond the
// bound they are counted as lost, and the sampler rereads the GID tables
// all the same.
const maxPendingAddrs = 1024

// pending is the announcements received and not yet drained, shared by
// the receiving goroutine and the sampler; no I/O happens under its lock.
type pending struct {
	mu   sync.Mutex
	evs  []AddrEvent
	lost int
}

func (p *pending) add(e AddrEvent) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.evs) >= maxPendingAddrs {
		p.lost++
		return
	}
	p.evs = append(p.evs, e)
}

func (p *pending) addLost(n int) {
	p.mu.Lock()
	p.lost += n
	p.mu.Unlock()
}

// Drain returns the address changes announced since the last Drain, in
// the order the kernel sent them, and how many were lost (the socket
// overran, or more than maxPendingAddrs came).
func (p *pending) Drain() (evs []AddrEvent, lost int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	evs, lost = p.evs, p.lost
	p.evs, p.lost = nil, 0
	return evs, lost
}

// AddrSource hands over the address changes announced since it was last
// asked (AddrWatch on Linux, a fake in tests).
type AddrSource interface {
	Drain() (evs []AddrEvent, lost int)
}

// FakeAddrs is an AddrSource whose announcements a test adds with Add.
type FakeAddrs struct{ pending }

// Add announces e.
func (f *FakeAddrs) Add(e AddrEvent) { f.add(e) }

// AddLost counts n announcements as lost.
func (f *FakeAddrs) AddLost(n int) {
	if n > 0 {
		f.addLost(n)
	}
}

var _ AddrSource = (*FakeAddrs)(nil)
