package dcb

import (
	"fmt"
	"sort"

	"github.com/rdmatop/rdmatop/internal/nlmsg"
)

// dcbmsg is the 4-byte family header after struct nlmsghdr.
const sizeDCBMsg = 4

// header checks struct dcbmsg and returns the attributes after it, in
// byte order o.
func header(o nlmsg.Order, payload []byte, want Command) ([]nlmsg.Attr, error) {
	if len(payload) < sizeDCBMsg {
		return nil, fmt.Errorf("%v reply: %d bytes, shorter than struct dcbmsg", want, len(payload))
	}
	if got := Command(payload[1]); got != want {
		return nil, fmt.Errorf("reply is for %v, want %v", got, want)
	}
	as, err := o.Attrs(payload[sizeDCBMsg:])
	if err != nil {
		return nil, fmt.Errorf("%v reply: %w", want, err)
	}
	return as, nil
}

// ParseIEEE decodes the payload (struct dcbmsg and attributes, i.e. what
// follows struct nlmsghdr) of a DCB_CMD_IEEE_GET reply.
func ParseIEEE(payload []byte) (Config, error) { return parseIEEE(nlmsg.Native, payload) }

func parseIEEE(o nlmsg.Order, payload []byte) (Config, error) {
	var c Config
	as, err := header(o, payload, CmdIEEEGet)
	if err != nil {
		return c, err
	}
	for _, a := range as {
		switch a.Type {
		case attrIfname:
			c.Ifname = a.String()
		case attrDCBX:
			if err := need("DCB_ATTR_DCBX", a.Data, 1); err != nil {
				return c, err
			}
			c.DCBX = parseDCBX(a.Data[0])
		case attrIEEE:
			if err := parseIEEENest(&c, a); err != nil {
				return c, err
			}
		}
	}
	c.Trust = DeriveTrust(c.AppTrust, c.Apps)
	c.DSCPMap = DSCPMap(c.Apps)
	return c, nil
}

func parseIEEENest(c *Config, nest nlmsg.Attr) error {
	as, err := nest.Attrs()
	if err != nil {
		return fmt.Errorf("DCB_ATTR_IEEE: %w", err)
	}
	for _, a := range as {
		switch a.Type {
		case ieeeETS:
			if c.ETS, err = parseETS("DCB_ATTR_IEEE_ETS", a.Data); err != nil {
				return err
			}
		case ieeePeerETS:
			if c.PeerETS, err = parseETS("DCB_ATTR_IEEE_PEER_ETS", a.Data); err != nil {
				return err
			}
		case ieeePFC:
			if c.PFC, err = parsePFC("DCB_ATTR_IEEE_PFC", a); err != nil {
				return err
			}
		case ieeePeerPFC:
			if c.PeerPFC, err = parsePFC("DCB_ATTR_IEEE_PEER_PFC", a); err != nil {
				return err
			}
		case ieeeAppTable:
			apps, _, err := parseApps("DCB_ATTR_IEEE_APP_TABLE", a)
			if err != nil {
				return err
			}
			if apps == nil {
				apps = []App{}
			}
			c.Apps = apps
		case ieeePeerApp:
			apps, info, err := parseApps("DCB_ATTR_IEEE_PEER_APP", a)
			if err != nil {
				return err
			}
			c.PeerApps, c.PeerAppInfo = apps, info
		case ieeeMaxRate:
			if err := need("DCB_ATTR_IEEE_MAXRATE", a.Data, sizeMaxRate); err != nil {
				return err
			}
			var r [8]uint64
			for i := range r {
				r[i] = a.Order().Uint64(a.Data[8*i:])
			}
			c.MaxRate = &r
		case ieeeBuffer:
			if err := need("DCB_ATTR_DCB_BUFFER", a.Data, sizeBuffer); err != nil {
				return err
			}
			var buf Buffer
			copy(buf.Prio2Buffer[:], a.Data[0:8])
			for i := range buf.BufferSize {
				buf.BufferSize[i] = a.Order().Uint32(a.Data[8+4*i:])
			}
			buf.TotalSize = a.Order().Uint32(a.Data[40:])
			c.Buffer = &buf
		case ieeeTrustTable:
			inner, err := a.Attrs()
			if err != nil {
				return fmt.Errorf("DCB_ATTR_DCB_APP_TRUST_TABLE: %w", err)
			}
			// Each entry is a u8 selector; kernels tag it DCB_ATTR_IEEE_APP
			// or DCB_ATTR_DCB_APP by selector (earlier drafts used
			// DCB_ATTR_DCB_APP_TRUST = 1): take the byte whatever the tag.
			trust := []uint8{}
			for _, e := range inner {
				if err := need("trusted selector", e.Data, 1); err != nil {
					return err
				}
				trust = append(trust, e.Data[0])
			}
			c.AppTrust = trust
		default:
			c.Skipped = append(c.Skipped, a.Type)
		}
	}
	return nil
}

func parseETS(name string, b []byte) (*ETS, error) {
	if err := need(name, b, sizeETS); err != nil {
		return nil, err
	}
	e := &ETS{Willing: b[0] != 0, ETSCap: b[1], CBS: b[2] != 0}
	arrays := []*[8]uint8{&e.TCTxBW, &e.TCRxBW, &e.TCTSA, &e.PrioTC, &e.TCRecoBW, &e.TCRecoTSA, &e.RecoPrio}
	for i, p := range arrays {
		copy(p[:], b[3+8*i:])
	}
	e.TSA = make([]string, 8)
	for i, t := range e.TCTSA {
		e.TSA[i] = tsaName(t)
	}
	return e, nil
}

func parsePFC(name string, a nlmsg.Attr) (*PFC, error) {
	b, o := a.Data, a.Order()
	if err := need(name, b, sizePFC); err != nil {
		return nil, err
	}
	p := &PFC{Cap: b[0], Mask: b[1], MBC: b[2] != 0, Delay: o.Uint16(b[4:6])}
	for i := range 8 {
		p.Enabled[i] = p.Mask&(1<<i) != 0
		p.Requests[i] = o.Uint64(b[8+8*i:])
		p.Indications[i] = o.Uint64(b[72+8*i:])
	}
	return p, nil
}

// parseApps decodes a nested APP table; a peer table may start with a
// struct dcb_peer_app_info in an UNSPEC attribute.
func parseApps(name string, nest nlmsg.Attr) ([]App, *PeerAppInfo, error) {
	as, err := nest.Attrs()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	var apps []App
	var info *PeerAppInfo
	for _, a := range as {
		switch a.Type {
		case appIEEE, appDCB:
			if err := need(name+" entry", a.Data, sizeApp); err != nil {
				return nil, nil, err
			}
			sel := a.Data[0]
			apps = append(apps, App{Selector: sel, SelectorName: SelectorName(sel), Priority: a.Data[1], Protocol: a.Order().Uint16(a.Data[2:4])})
		case appUnspec:
			if len(a.Data) >= sizePeerApp {
				info = &PeerAppInfo{Willing: a.Data[0], Error: a.Data[1]}
			}
		}
	}
	return apps, info, nil
}

func parseDCBX(mode uint8) *DCBX {
	d := &DCBX{Mode: mode, Flags: []string{}}
	for _, f := range []struct {
		bit  uint8
		name string
	}{{DCBXHost, "host"}, {DCBXLLDManaged, "lld_managed"}, {DCBXVerCEE, "cee"}, {DCBXVerIEEE, "ieee"}, {DCBXStatic, "static"}} {
		if mode&f.bit != 0 {
			d.Flags = append(d.Flags, f.name)
		}
	}
	return d
}

// ParseDCBX decodes a DCB_CMD_GDCBX reply payload.
func ParseDCBX(payload []byte) (*DCBX, error) { return parseDCBXReply(nlmsg.Native, payload) }

func parseDCBXReply(o nlmsg.Order, payload []byte) (*DCBX, error) {
	as, err := header(o, payload, CmdGetDCBX)
	if err != nil {
		return nil, err
	}
	for _, a := range as {
		if a.Type == attrDCBX {
			if err := need("DCB_ATTR_DCBX", a.Data, 1); err != nil {
				return nil, err
			}
			return parseDCBX(a.Data[0]), nil
		}
	}
	return nil, fmt.Errorf("%v reply without DCB_ATTR_DCBX", CmdGetDCBX)
}

// ParseState decodes a DCB_CMD_GSTATE reply payload.
func ParseState(payload []byte) (bool, error) { return parseState(nlmsg.Native, payload) }

func parseState(o nlmsg.Order, payload []byte) (bool, error) {
	as, err := header(o, payload, CmdGetState)
	if err != nil {
		return false, err
	}
	for _, a := range as {
		if a.Type == attrState {
			if err := need("DCB_ATTR_STATE", a.Data, 1); err != nil {
				return false, err
			}
			return a.Data[0] != 0, nil
		}
	}
	return false, fmt.Errorf("%v reply without DCB_ATTR_STATE", CmdGetState)
}

// DeriveTrust works out the trust mode. With a trust table (drivers with
// dcbnl_getapptrust) it is the first trusted selector. Without one it is
// inferred as mlx5 behaves: DSCP while the APP table holds DSCP entries,
// PCP otherwise. With neither a trust table nor an APP table it is unknown.
func DeriveTrust(trust []uint8, apps []App) Trust {
	if trust != nil {
		t := Trust{Source: TrustFromTable, Order: make([]string, 0, len(trust)), Mode: trustModeNone}
		for _, s := range trust {
			t.Order = append(t.Order, SelectorName(s))
		}
		if len(trust) > 0 {
			t.Mode = SelectorName(trust[0])
		}
		return t
	}
	if apps == nil {
		return Trust{}
	}
	for _, a := range apps {
		if a.Selector == SelDSCP {
			return Trust{Mode: trustModeDSCP, Source: TrustFromDSCPApps}
		}
	}
	return Trust{Mode: trustModePCP, Source: TrustFromNoDSCPApps}
}

// DSCPMap returns the DSCP-selector APP entries as a DSCP→priority list
// sorted by DSCP, then priority (the kernel allows several priorities for
// one DSCP; drivers use one). It is never nil.
func DSCPMap(apps []App) []DSCPPrio {
	m := []DSCPPrio{}
	for _, a := range apps {
		if a.Selector == SelDSCP && a.Protocol <= uint16(dscpMax) {
			m = append(m, DSCPPrio{DSCP: uint8(a.Protocol), Priority: a.Priority})
		}
	}
	sort.Slice(m, func(i, j int) bool {
		if m[i].DSCP != m[j].DSCP {
			return m[i].DSCP < m[j].DSCP
		}
		return m[i].Priority < m[j].Priority
	})
	return m
}
