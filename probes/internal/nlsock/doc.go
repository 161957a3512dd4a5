// Package nlsock is a netlink request/response socket whose waits honour a
// context. rdmatop's netlink probes (RDMA netlink, DCB, rtnetlink) send
// through it, so that a cancelled or timed-out sample never leaves a
// goroutine blocked in recvfrom: the socket is non-blocking, the Go
// runtime's poller does the waiting, and a read deadline (the request's
// timeout or the context's deadline, whichever comes first) or the
// context's cancellation wakes it.
//
// It is Linux-only; on other systems the package is empty.
package nlsock
