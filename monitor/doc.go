// Package monitor is rdmatop's pipeline, written once: a run is its
// sources — the host (a live sampler, or a recording), the wire (a live
// AF_PACKET capture, or a capture file), both or neither — the rule engine
// and one clock, and it yields Frames. Every front end (the screen,
// --once --json, check, replay, capture, record, demo, the exporter) is a
// consumer of Frames; none of them samples, reads packets or evaluates
// rules itself.
//
// One clock drives a run: the wall clock live, the recorded samples' and
// packets' timestamps in replay. Below this package no data is stamped
// with the clock (the probes measure how long a read took, socket
// deadlines and the live capture's filter start are timers, not data).
// Live, samples never overlap and ticks keep time like time.Ticker: a
// sample slower than the interval delays the next tick, which starts at
// once and says how late it was and how many intervals were lost
// (dropped, never caught up back to back). The screen, which may draw
// slower than the run, reads the newest Frame through a Latest, never an
// unbounded queue; serve's exporter and the flight recorder take each
// Frame inline, in the loop, and do no I/O there (the recorder queues
// what it writes to its own goroutine). In replay the consumer sets the pace: Frames are
// computed as they are asked for, in constant memory whatever the
// recording's size, and a Timeline gives the screen random access with a
// bounded window of past Frames.
package monitor
