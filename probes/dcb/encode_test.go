package dcb

import "encoding/binary"

// A small encoder for DCB netlink replies, used to build fixtures. It
// follows the kernel's layouts in include/uapi/linux/dcbnl.h (Linux 6.x),
// as summarised in shared/reference/rdma-netlink.md §g:
//
//	struct dcbmsg      { __u8 dcb_family; __u8 cmd; __u16 dcb_pad; };          //   4 bytes
//	struct ieee_ets    { __u8 willing, ets_cap, cbs, tc_tx_bw[8], tc_rx_bw[8],
//	                     tc_tsa[8], prio_tc[8], tc_reco_bw[8], tc_reco_tsa[8],
//	                     reco_prio_tc[8]; };                                   //  59 bytes
//	struct ieee_pfc    { __u8 pfc_cap, pfc_en, mbc; __u16 delay;
//	                     __u64 requests[8], indications[8]; };                 // 136 bytes
//	struct ieee_maxrate { __u64 tc_maxrate[8]; };                              //  64 bytes
//	struct dcbnl_buffer { __u8 prio2buffer[8]; __u32 buffer_size[8], total_size; } // 44
//	struct dcb_app     { __u8 selector, priority; __u16 protocol; };           //   4 bytes
//	struct dcb_peer_app_info { __u8 willing, error; };                         //   2 bytes
//
// and the attribute order of dcbnl_ieee_fill() in net/dcb/dcbnl.c: IFNAME,
// then IEEE { ETS, MAXRATE, PFC, BUFFER, APP_TABLE, APP_TRUST_TABLE,
// PEER_ETS, PEER_PFC, PEER_APP }, then DCBX.

type enc struct{ b []byte }

// ne is the byte order the encoder writes: the host's, as its kernel
// would; encodedOn switches it to build a reply another host wrote.
var ne binary.AppendByteOrder = binary.NativeEndian

// encodedOn runs build with the encoder writing in byte order o.
func encodedOn(o binary.AppendByteOrder, build func()) {
	defer func(was binary.AppendByteOrder) { ne = was }(ne)
	ne = o
	build()
}

func (e *enc) u8(v uint8)   { e.b = append(e.b, v) }
func (e *enc) u16(v uint16) { e.b = ne.AppendUint16(e.b, v) }
func (e *enc) u32(v uint32) { e.b = ne.AppendUint32(e.b, v) }
func (e *enc) u64(v uint64) { e.b = ne.AppendUint64(e.b, v) }
func (e *enc) pad(n int)    { e.b = append(e.b, make([]byte, n)...) }

// attr appends a netlink attribute (len, type, payload, pad to 4).
func (e *enc) attr(typ uint16, payload []byte) {
	e.u16(uint16(4 + len(payload)))
	e.u16(typ)
	e.b = append(e.b, payload...)
	e.pad((4 - len(payload)%4) % 4)
}

func encETS(x *ETS) []byte {
	var e enc
	e.u8(b2u(x.Willing))
	e.u8(x.ETSCap)
	e.u8(b2u(x.CBS))
	for _, a := range []*[8]uint8{&x.TCTxBW, &x.TCRxBW, &x.TCTSA, &x.PrioTC, &x.TCRecoBW, &x.TCRecoTSA, &x.RecoPrio} {
		e.b = append(e.b, a[:]...)
	}
	return e.b
}

func encPFC(x *PFC) []byte {
	var e enc
	e.u8(x.Cap)
	e.u8(x.Mask)
	e.u8(b2u(x.MBC))
	e.pad(1) // C alignment of __u16 delay
	e.u16(x.Delay)
	e.pad(2) // C alignment of __u64 requests[]
	for _, v := range x.Requests {
		e.u64(v)
	}
	for _, v := range x.Indications {
		e.u64(v)
	}
	return e.b
}

func encMaxRate(r *[8]uint64) []byte {
	var e enc
	for _, v := range r {
		e.u64(v)
	}
	return e.b
}

func encBuffer(x *Buffer) []byte {
	var e enc
	e.b = append(e.b, x.Prio2Buffer[:]...)
	for _, v := range x.BufferSize {
		e.u32(v)
	}
	e.u32(x.TotalSize)
	return e.b
}

func encApp(a App) []byte {
	var e enc
	e.u8(a.Selector)
	e.u8(a.Priority)
	e.u16(a.Protocol)
	return e.b
}

// appAttrType is dcbnl_app_attr_type_get(): IEEE selectors go in
// DCB_ATTR_IEEE_APP, others (PCP) in DCB_ATTR_DCB_APP.
func appAttrType(sel uint8) uint16 {
	if sel >= SelEthertype && sel <= SelDSCP {
		return appIEEE
	}
	return appDCB
}

func encApps(apps []App, info *PeerAppInfo) []byte {
	var e enc
	if info != nil {
		e.attr(appUnspec, []byte{info.Willing, info.Error})
	}
	for _, a := range apps {
		e.attr(appAttrType(a.Selector), encApp(a))
	}
	return e.b
}

// encodeIEEE builds the payload (dcbmsg + attributes) of a DCB_CMD_IEEE_GET
// reply describing c. Only the fields a kernel would send are used.
func encodeIEEE(c Config) []byte {
	var n enc
	if c.ETS != nil {
		n.attr(ieeeETS, encETS(c.ETS))
	}
	if c.MaxRate != nil {
		n.attr(ieeeMaxRate, encMaxRate(c.MaxRate))
	}
	if c.PFC != nil {
		n.attr(ieeePFC, encPFC(c.PFC))
	}
	if c.Buffer != nil {
		n.attr(ieeeBuffer, encBuffer(c.Buffer))
	}
	n.attr(ieeeAppTable, encApps(c.Apps, nil)) // the kernel always opens the table
	if c.AppTrust != nil {
		var t enc
		for _, s := range c.AppTrust {
			t.attr(appAttrType(s), []byte{s})
		}
		n.attr(ieeeTrustTable, t.b)
	}
	if c.PeerETS != nil {
		n.attr(ieeePeerETS, encETS(c.PeerETS))
	}
	if c.PeerPFC != nil {
		n.attr(ieeePeerPFC, encPFC(c.PeerPFC))
	}
	if c.PeerAppInfo != nil || c.PeerApps != nil {
		n.attr(ieeePeerApp, encApps(c.PeerApps, c.PeerAppInfo))
	}
	e := enc{b: []byte{0, byte(CmdIEEEGet), 0, 0}} // AF_UNSPEC
	e.attr(attrIfname, append([]byte(c.Ifname), 0))
	e.attr(attrIEEE|0x8000, n.b) // NLA_F_NESTED
	if c.DCBX != nil {
		e.attr(attrDCBX, []byte{c.DCBX.Mode})
	}
	return e.b
}

func encodeU8Reply(cmd Command, typ uint16, v uint8) []byte {
	e := enc{b: []byte{0, byte(cmd), 0, 0}}
	e.attr(typ, []byte{v})
	return e.b
}

func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}
