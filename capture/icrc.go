package capture

// ICRCMode says which packets' ICRC an Analyzer verifies. Verifying is the
// most expensive step of decoding (a CRC-32 over the whole packet).
type ICRCMode uint8

// ICRC modes (--icrc).
const (
	// ICRCAuto verifies every packet unless the run asks the analyzer to
	// sample (SampleICRC) because its reader falls behind the wire; the
	// summary then says so (Summary.ICRC "sampled", ICRCUnchecked).
	ICRCAuto ICRCMode = iota
	// ICRCOn verifies every packet, however far behind it falls.
	ICRCOn
	// ICRCOff verifies none.
	ICRCOff
)

// ParseICRCMode reads "auto", "on" or "off".
func ParseICRCMode(s string) (ICRCMode, bool) {
	switch s {
	case "auto":
		return ICRCAuto, true
	case "on":
		return ICRCOn, true
	case "off":
		return ICRCOff, true
	}
	return 0, false
}

// ICRC verification as a summary reports it.
const (
	ICRCVerifiedAll = "all"
	ICRCSampled     = "sampled"
	ICRCNotVerified = "off"
)

func (c *Config) icrcOff() bool { return c.NoICRC || c.ICRC == ICRCOff }

// SampleICRC makes the analyzer verify the ICRC of one packet in every
// (1: all of them), when its mode is ICRCAuto; otherwise it does nothing.
// Packets left unchecked are counted (Summary.ICRCUnchecked).
func (a *Analyzer) SampleICRC(every int) {
	if a.cfg.ICRC != ICRCAuto || a.cfg.icrcOff() {
		return
	}
	a.icrcEvery = uint64(max(every, 1))
	if a.icrcEvery > 1 {
		a.icrcSampled = true
	}
}

// verifyThis says whether the next packet's ICRC is verified.
func (a *Analyzer) verifyThis() bool {
	return !a.cfg.icrcOff() && (a.icrcEvery <= 1 || (a.packets+1)%a.icrcEvery == 0)
}

// icrcVerdict is what a summary says of its ICRC verification.
func (a *Analyzer) icrcVerdict() string {
	switch {
	case a.cfg.icrcOff():
		return ICRCNotVerified
	case a.icrcSampled:
		return ICRCSampled
	}
	return ICRCVerifiedAll
}
