package monitor

import (
	"context"
	"time"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/bundle"
	"github.com/rdmatop/rdmatop/probes/sampler"
)

// SamplerHost is a live host sampled by a sampler.Sampler.
type SamplerHost struct{ S *sampler.Sampler }

// Sample samples the host.
func (h SamplerHost) Sample(ctx context.Context, now time.Time) (*probes.Snapshot, *bundle.Tick, error) {
	return h.S.Sample(ctx, now), nil, nil
}

// RecorderHost is a live host sampled by a sampler.Recorder: each sample
// comes with the raw data the probes read, for the recording.
type RecorderHost struct{ R *sampler.Recorder }

// Sample samples the host and returns the sample's raw tick.
func (h RecorderHost) Sample(ctx context.Context, now time.Time) (*probes.Snapshot, *bundle.Tick, error) {
	return h.R.Sample(ctx, now)
}
