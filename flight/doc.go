// Package flight is rdmatop's flight recorder. A live run hands it what
// `rdmatop record` would write (host ticks and RoCE packets, in the order
// they were analysed), and it keeps the last minutes of them in memory,
// bounded in time and bytes. It watches the run's Frames for triggers (a
// link flap, a QP entering the error state, an NCCL warning, a finding at
// or above a severity, a signal from the operator) and, when one comes,
// writes the minutes before and after it as an incident: a recording in
// the format of `rdmatop record`, which `rdmatop replay` and `rdmatop
// check` read like any other, with a JSON sidecar saying what triggered
// it.
//
// An incident is written while it happens, each tick flushed, under a
// .partial name that becomes the final name when its window closes: a
// crash loses nothing before the last tick, and what it leaves replays.
// The directory is bounded (Options.MaxDisk, oldest incident removed
// first), incidents are at most one per Options.Cooldown, and triggers
// during an incident extend it instead of starting another.
package flight
