package sysfs

import (
	"errors"
	"io/fs"
	"math"
	"math/bits"
	"strconv"
	"sync"
)

// Source is the directory a counter was read from.
type Source string

// Counter sources.
const (
	SourcePMA Source = "counters"    // IBTA PMA counters (ports/N/counters)
	SourceHW  Source = "hw_counters" // driver counters (ports/N/hw_counters, or the device's)
)

// lifespan is hw_counters' cache lifetime in ms: a setting, not a counter.
const lifespan = "lifespan"

// Counter is one counter file's value.
type Counter struct {
	Name   string `json:"name"` // the file name, as the driver spells it
	Source Source `json:"source"`
	Value  uint64 `json:"value"`
	Meta   Meta   `json:"meta"`
}

// Bytes converts a counter of 4-byte words (or bytes) to bytes; false
// when the counter does not count bytes or the product overflows.
func (c Counter) Bytes() (uint64, bool) {
	if c.Meta.BytesPerUnit == 0 {
		return 0, false
	}
	hi, lo := bits.Mul64(c.Value, c.Meta.BytesPerUnit)
	return lo, hi == 0
}

// CounterError is a counter that could not be read or parsed; the others
// are read regardless. Name is "" for a directory that could not be
// listed.
type CounterError struct {
	Name   string `json:"name,omitempty"`
	Source Source `json:"source"`
	FileError
}

// CounterSet is every counter of one port (or the device-level
// hw_counters, Port 0) at one read.
type CounterSet struct {
	Device string `json:"device"`
	Port   int    `json:"port"` // 0: device-level hw_counters
	Driver string `json:"driver,omitempty"`
	// PMA and HW say whether counters/ and hw_counters/ exist (rxe has no
	// counters/): a missing directory is not a set of zeros.
	PMA    bool   `json:"pma"`
	HW     bool   `json:"hw"`
	PMASet PMASet `json:"pma_set,omitempty"`
	// LifespanMS is hw_counters/lifespan: reads within it return cached
	// values.
	LifespanMS *int           `json:"lifespan_ms,omitempty"`
	Counters   []Counter      `json:"counters"`
	Errors     []CounterError `json:"errors,omitempty"`
}

// Saturated reports whether the counter is stuck at its maximum, so its
// rate is unknown: a saturating counter (IBTA PMA) at 2^bits-1 of its
// known width; of unknown width, at the all-ones value of a PMA width (8,
// 16 or 32 bits) if it saturates, and at 2^64-1 whatever it does (a 64-bit
// counter never counts that far). A wrapping counter of known width passes
// through its maximum and is never flagged.
func (c Counter) Saturated() bool {
	if c.Meta.Bits > 0 {
		return c.Meta.Saturated(c.Value) || c.Meta.Bits >= 64 && c.Value == math.MaxUint64
	}
	switch c.Value {
	case math.MaxUint64:
		return true
	case math.MaxUint8, math.MaxUint16, math.MaxUint32:
		return c.Meta.Overflow == Saturates
	}
	return false
}

// Get returns the counter of that source and name.
func (s *CounterSet) Get(src Source, name string) (Counter, bool) {
	for _, c := range s.Counters {
		if c.Source == src && c.Name == name {
			return c, true
		}
	}
	return Counter{}, false
}

// ReadCounters reads every file in ports/N/counters and ports/N/hw_counters
// of a port, or the device-level hw_counters for port 0. driver (any
// spelling: mlx5_core, mlx5, rxe) selects the width metadata; "" guesses
// from the device name. A file that vanished between listing and reading,
// could not be read (EACCES, EAGAIN, EINVAL, EOPNOTSUPP, ...) or did not
// parse is left out and noted in Errors. The error is ErrGone when the
// device or port itself is gone.
func ReadCounters(fsys fs.FS, dev string, port int, driver string) (CounterSet, error) {
	if driver == "" {
		driver = guessDriver(dev, "", false)
	}
	base := ibClass + "/" + dev
	if port != 0 {
		base = portDir(dev, port)
	}
	s := CounterSet{Device: dev, Port: port, Driver: driver}
	var pmaNames []string
	if port != 0 {
		pmaNames, s.PMA = s.list(fsys, base, SourcePMA)
	}
	hwNames, hwOK := s.list(fsys, base, SourceHW)
	s.HW = hwOK
	if !s.PMA && !s.HW && len(s.Errors) == 0 {
		if _, err := fs.Stat(fsys, base); errors.Is(err, fs.ErrNotExist) {
			return s, &goneError{refName(dev, port)}
		}
		return s, nil
	}
	s.Counters = make([]Counter, 0, len(pmaNames)+len(hwNames))
	// Every file in one run (see FilesFS), in the order listed.
	paths := make([]string, 0, len(pmaNames)+len(hwNames))
	for _, n := range pmaNames {
		paths = append(paths, base+"/"+string(SourcePMA)+"/"+n)
	}
	for _, n := range hwNames {
		paths = append(paths, base+"/"+string(SourceHW)+"/"+n)
	}
	vals, errs := readValues(fsys, paths)
	tried, vanished := 0, 0
	for i, n := range pmaNames {
		tried++
		if s.read(paths[i], SourcePMA, n, Meta{}, vals[i], errs[i]) {
			vanished++
		}
	}
	for i, n := range hwNames {
		j := len(pmaNames) + i
		if n == lifespan {
			s.readLifespan(paths[j], vals[j], errs[j])
			continue
		}
		tried++
		if s.read(paths[j], SourceHW, n, hwCounterMeta(driver, n), vals[j], errs[j]) {
			vanished++
		}
	}
	if tried > 0 && vanished == tried {
		if _, err := fs.Stat(fsys, base); errors.Is(err, fs.ErrNotExist) {
			return s, &goneError{refName(dev, port)}
		}
	}
	s.fillPMAMeta()
	return s, nil
}

func refName(dev string, port int) string {
	if port == 0 {
		return dev
	}
	return dev + " port " + strconv.Itoa(port)
}

// list returns the file names in base/<src>; false when the directory is
// absent or could not be listed (noted).
func (s *CounterSet) list(fsys fs.FS, base string, src Source) ([]string, bool) {
	dir := base + "/" + string(src)
	ents, err := fs.ReadDir(fsys, dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			s.Errors = append(s.Errors, CounterError{Source: src, FileError: fileError(dir, err)})
		}
		return nil, false
	}
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		if !e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return names, true
}

// read takes in one counter file p, read as v or err; it reports whether
// the file had vanished.
func (s *CounterSet) read(p string, src Source, name string, meta Meta, v string, err error) (vanished bool) {
	if err != nil {
		fe := fileError(p, err)
		s.Errors = append(s.Errors, CounterError{Name: name, Source: src, FileError: fe})
		return fe.Kind == KindVanished
	}
	n, na, err := ParseCounterValue(v)
	switch {
	case na:
		// Noted, not a zero: a device without a PMA has no such value.
		s.Errors = append(s.Errors, CounterError{Name: name, Source: src, FileError: FileError{Path: p, Kind: KindUnavailable, Err: errUnavailable}})
		return false
	case err != nil:
		s.Errors = append(s.Errors, CounterError{Name: name, Source: src, FileError: parseError(p, err)})
		return false
	}
	s.Counters = append(s.Counters, Counter{Name: name, Source: src, Value: n, Meta: meta})
	return false
}

func (s *CounterSet) readLifespan(p string, v string, err error) {
	if err != nil {
		s.Errors = append(s.Errors, CounterError{Name: lifespan, Source: SourceHW, FileError: fileError(p, err)})
		return
	}
	ms, err := parseInt(v)
	if err != nil {
		s.Errors = append(s.Errors, CounterError{Name: lifespan, Source: SourceHW, FileError: parseError(p, err)})
		return
	}
	s.LifespanMS = &ms
}

// fillPMAMeta sets the metadata of the PMA counters once the set is known.
func (s *CounterSet) fillPMAMeta() {
	if !s.PMA {
		return
	}
	s.PMASet = PMALegacyOrNoIETF
	for _, c := range s.Counters {
		if c.Source != SourcePMA {
			continue
		}
		switch {
		case c.Name == "unicast_xmit_packets" || c.Name == "unicast_rcv_packets" ||
			c.Name == "multicast_xmit_packets" || c.Name == "multicast_rcv_packets":
			s.PMASet = PMAExtended
		case pmaWide[c.Name] && c.Value > math.MaxUint32 && s.PMASet != PMAExtended:
			s.PMASet = PMANoIETF
		}
	}
	for i := range s.Counters {
		if c := &s.Counters[i]; c.Source == SourcePMA {
			c.Meta = pmaCounterMeta(c.Name, s.PMASet)
		}
	}
}

// ReadAllCounters reads the counters of every port of every device, and
// the device-level hw_counters where a device has them, one goroutine per
// device (reads are syscalls, and firmware commands on mlx5). Sets come
// in device then port order. Devices that are gone are skipped and
// reported in the joined error (matching ErrGone).
func ReadAllCounters(fsys fs.FS, devs []Device) ([]CounterSet, error) {
	type result struct {
		sets []CounterSet
		errs []error
	}
	res := make([]result, len(devs))
	var wg sync.WaitGroup
	for di := range devs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[di].sets, res[di].errs = readDeviceCounters(fsys, &devs[di])
		}()
	}
	wg.Wait()
	var out []CounterSet
	var errs []error
	for _, r := range res {
		out = append(out, r.sets...)
		errs = append(errs, r.errs...)
	}
	return out, errors.Join(errs...)
}

func readDeviceCounters(fsys fs.FS, d *Device) ([]CounterSet, []error) {
	var out []CounterSet
	var errs []error
	if _, err := fs.Stat(fsys, ibClass+"/"+d.Name+"/hw_counters"); err == nil {
		if s, err := ReadCounters(fsys, d.Name, 0, d.Driver); err == nil {
			out = append(out, s)
		}
	}
	for _, p := range d.Ports {
		s, err := ReadCounters(fsys, d.Name, p.Num, d.Driver)
		if err != nil {
			errs = append(errs, err)
			if errors.Is(err, ErrGone) {
				break
			}
			continue
		}
		out = append(out, s)
	}
	return out, errs
}
