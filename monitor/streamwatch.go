package monitor

import (
	"errors"
	"fmt"
	"time"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/capture/pcapfile"
	"github.com/rdmatop/rdmatop/capture/pcapstream"
)

// StreamWire is a wire read from a capture stream (pcapstream.Source)
// rather than from the host's own interface: a sniffer's pipe can stall,
// and its packets can come late or from another clock, which the wire's
// status says.
type StreamWire interface {
	// Stream names it: stdin, or the FIFO's path.
	Stream() string
	// Header is what its header said, once read.
	Header() (pcapstream.Header, bool)
}

// streamWatch follows how a stream keeps up: the age of its packets when
// the reader takes them (lag, looked at every icrcCheckEvery packets, on
// the run's clock) and since when it has given nothing (idle). Ring 0's
// pump writes it under the wire's lock; the cut reads it.
type streamWatch struct {
	src       StreamWire
	name      string // "": the wire is not a stream
	lag       time.Duration
	lagKnown  bool
	idleSince time.Time
}

// streamIdle is when a stream's status says it has been quiet. Quiet
// traffic is idle too, so idle is said, not judged; a sniffer writing
// with -U hands each packet over at once, so a stream that stalls looks
// exactly like this.
const streamIdle = 10 * time.Second

// detail is the stream's part of the wire's status at now, with tick
// the run's interval: its name, then how late its packets come or how
// long it has been quiet. A packet older than a tick when read is
// counted in a later interval than the host's sample of its time (the
// Frame would join things that did not happen together): said as such.
func (s *streamWatch) detail(now time.Time, tick time.Duration) string {
	if s.name == "" {
		return ""
	}
	d := "stream " + s.name
	switch {
	case !s.idleSince.IsZero() && now.Sub(s.idleSince) >= streamIdle:
		d += fmt.Sprintf(": no packet for %s", now.Sub(s.idleSince).Round(time.Second))
	case s.lagKnown && s.lag > tick:
		d += fmt.Sprintf(" %s behind the host clock: not now's traffic", lagText(s.lag))
	case s.lagKnown:
		d += fmt.Sprintf(", %s behind", s.lag.Round(time.Millisecond))
	}
	return d
}

// describe labels the analysis of a stream: its name, its format, link
// type and snap length once its header is read. It names no interface:
// the sniffer's device is not the host's netdev (-i), and commands are
// rendered with the host's.
func (s *streamWatch) describe(sum *capture.Summary) {
	sum.File, sum.Format, sum.LinkType, sum.Interface = s.name, "stream", "", ""
	if h, ok := s.src.Header(); ok {
		sum.Format = string(h.Format) + " stream"
		sum.LinkType, sum.Snaplen = capture.LinkName(h.Link), h.Snaplen
	}
}

// lagText writes a lag as a person reads it: tenths of a second under a
// minute, seconds under an hour, minutes beyond (179h35m, not 179h35m0s).
func lagText(d time.Duration) string {
	switch {
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	case d < time.Hour:
		return d.Round(time.Second).String()
	}
	d = d.Round(time.Minute)
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// damaged reports whether a live source stopped on damage in what it
// read (a stream that is no capture, a record cut short), rather than at
// its end or on a failure of the host (an interface removed).
func damaged(err error) bool {
	var end *pcapstream.EndError
	var in *pcapfile.InputError
	return err != nil && !errors.As(err, &end) && (errors.As(err, &in) || errors.Is(err, pcapstream.ErrNotCapture))
}
