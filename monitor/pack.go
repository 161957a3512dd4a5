package monitor

import "github.com/rdmatop/rdmatop/rules"

// packLoad is a rule pack compiling on its own goroutine. Compiling the
// built-in pack takes tens of milliseconds, a sixth of a replay of a
// 170 MB capture; it now overlaps the reading of the first interval.
type packLoad struct {
	done chan struct{}
	pack *rules.Pack
	err  error
}

func loadPack(load func() (*rules.Pack, error)) *packLoad {
	l := &packLoad{done: make(chan struct{})}
	go func() {
		defer close(l.done)
		l.pack, l.err = load()
	}()
	return l
}

// ready makes the run's rule engine, waiting for its pack to compile. It
// is called only from the goroutine that drives the run.
func (r *Run) ready() error {
	if r.engine != nil {
		return nil
	}
	<-r.loading.done
	if r.loading.err != nil {
		return r.loading.err
	}
	r.usePack(r.loading.pack)
	return nil
}

// usePack makes the run's engine of p, as the run's mode and config ask.
func (r *Run) usePack(p *rules.Pack) {
	r.pack, r.engine = p, rules.NewEngine(p)
	r.engine.IgnoreFor = r.cfg.OneShot
	if r.cfg.Mode == ModeLive {
		// A live run lasts days: findings that resolved long ago are
		// forgotten. A replay reports everything that fired (capped).
		r.engine.Retention, r.engine.MaxResolved = rules.LiveRetention, rules.LiveMaxResolved
	}
	if r.cfg.Retention > 0 {
		r.engine.Retention = r.cfg.Retention
	}
	if r.cfg.MaxResolved != 0 {
		r.engine.MaxResolved = r.cfg.MaxResolved
	}
}
