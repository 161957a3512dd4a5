package flight

import (
	"errors"
	"fmt"
	"time"

	"github.com/rdmatop/rdmatop/probes/bundle"
	"github.com/rdmatop/rdmatop/rules"
)

// Options configure a Recorder.
type Options struct {
	// Dir receives the incidents; it must exist and be writable.
	Dir string
	// Keep is how far back the memory reaches: host ticks and packets
	// older than this are let go. At least Before.
	Keep time.Duration
	// KeepPackets bounds the bytes of packets kept (their captured bytes,
	// cut to the snap length): a busy link fills it before Keep, and the
	// packets then reach back less far than the ticks.
	KeepPackets int64
	// Before and After are the incident's window around its trigger.
	Before, After time.Duration
	// MaxDisk bounds the bytes of incidents in Dir (oldest removed
	// first); 0: no bound.
	MaxDisk int64
	// Cooldown: an incident starts at most this long after the last one
	// started; triggers within it are counted, not written.
	Cooldown time.Duration
	// Severity: a finding at or above it triggers an incident.
	Severity rules.Severity
	// Silence: a port that carried RDMA traffic and then none for this
	// long while QPs on it stayed in RTS triggers an incident (0: off).
	Silence time.Duration
	// Header and Pcapng are the incident recording's, as `record` writes
	// them (Created is set per incident).
	Header bundle.Header
	Pcapng bundle.PcapngOptions
	// Log receives one line per incident written, and the failures of
	// the directory (a full disk); nil: nothing is said.
	Log func(string)
}

// Defaults of the rdmatop commands' flags.
const (
	DefaultKeep        = 10 * time.Minute
	DefaultKeepPackets = 64 << 20
	DefaultBefore      = 2 * time.Minute
	DefaultAfter       = time.Minute
	DefaultCooldown    = 5 * time.Minute
	DefaultMaxDisk     = 1 << 30
	// DefaultSilence is how long a port may carry no RDMA traffic while
	// its QPs stay in RTS. A training job's collectives run every step
	// (seconds), but evaluation, data loading and checkpoints pause them
	// for minutes; ByteDance's ByteRobust alerts on "0 RDMA traffic within
	// 10 minutes" in production. The recorder must still hold the moment
	// traffic stopped when it judges the silence (Silence + Before ≤
	// Keep), so with the default --keep of 10 minutes and --before of 2
	// it waits 5: past a checkpoint's pause, and an incident too many
	// costs a bounded file, not a page.
	DefaultSilence = 5 * time.Minute
)

// maxIncidentSpan bounds how long one incident can grow by triggers that
// keep coming: an hour, past which the next trigger (after the cooldown)
// starts a new one.
const maxIncidentSpan = time.Hour

func (o *Options) check() error {
	switch {
	case o.Dir == "":
		return errors.New("flight recorder: no directory")
	case o.Keep <= 0 || o.Before < 0 || o.After < 0:
		return fmt.Errorf("flight recorder: --keep %s, --before %s, --after %s: durations must be positive", o.Keep, o.Before, o.After)
	case o.Before > o.Keep:
		return fmt.Errorf("flight recorder: --before %s reaches further back than --keep %s keeps", o.Before, o.Keep)
	case o.KeepPackets < 0 || o.MaxDisk < 0 || o.Cooldown < 0 || o.Silence < 0:
		return errors.New("flight recorder: --keep-packets, --max-disk, --cooldown and --trigger-silence cannot be negative")
	case o.Silence > 0 && o.Silence+o.Before > o.Keep:
		return fmt.Errorf("flight recorder: --trigger-silence %s plus --before %s reaches further back than --keep %s keeps: "+
			"the moment traffic stopped would be gone when the silence is judged", o.Silence, o.Before, o.Keep)
	case o.Severity.Rank() == 0:
		return fmt.Errorf("flight recorder: --trigger-severity %q: info, warning or critical", o.Severity)
	}
	return nil
}
