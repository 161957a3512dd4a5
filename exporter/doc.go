// Package exporter publishes rdmatop's Frames to Prometheus: canonical
// counters in base units, PFC per priority and direction, DCQCN, link
// state, QPs by state, events, the active findings of the rules and the
// health of every source. It is one more consumer of monitor.Frames: it
// never samples, evaluates rules or talks to the OS.
//
// Every Frame goes through Update (one goroutine); Update builds the whole
// metric set once and scrapes send it, so a scrape never waits on a probe
// and any number of scrapes may run at once.
//
// Counters stay monotonic whatever the host's counters do: each exported
// counter starts at the host's reading and then grows by the sampler's
// deltas, which already account for 32-bit wraps and saturation; across a
// reset (driver reload) the sampler gives no delta and the exported
// counter holds. rate() is therefore right across wraps and resets. A
// restart of rdmatop restarts the counters from the host's readings, which
// Prometheus sees as an ordinary counter reset.
package exporter
