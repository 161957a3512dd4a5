package nlmsg

// Request builds one request message: the header, a family's fixed
// header (struct ifinfomsg, struct dcbmsg, none), then attributes.
type Request struct{ b []byte }

// NewRequest starts a message of type typ with NLM_F_REQUEST and flags,
// followed by fixed (padded to 4 bytes). The sequence number is the
// socket's to set.
func NewRequest(typ, flags uint16, fixed []byte) *Request {
	r := &Request{b: make([]byte, HdrLen, HdrLen+Align(len(fixed))+32)}
	ne.PutUint16(r.b[4:], typ)
	ne.PutUint16(r.b[6:], FlagRequest|flags)
	r.b = append(r.b, fixed...)
	r.pad()
	return r
}

// U32 adds a u32 attribute in host order.
func (r *Request) U32(typ uint16, v uint32) *Request {
	var d [4]byte
	ne.PutUint32(d[:], v)
	return r.Attr(typ, d[:])
}

// String adds a NUL-terminated string attribute.
func (r *Request) String(typ uint16, s string) *Request {
	return r.Attr(typ, append([]byte(s), 0))
}

// Attr adds an attribute with data as its value.
func (r *Request) Attr(typ uint16, data []byte) *Request {
	r.b = AppendAttr(r.b, typ, data)
	return r
}

func (r *Request) pad() {
	for len(r.b)%4 != 0 {
		r.b = append(r.b, 0)
	}
}

// Flags returns the request's flags (NLM_F_REQUEST and those it was
// made with): ReadReply's to know what ends the answer.
func (r *Request) Flags() uint16 { return ne.Uint16(r.b[6:]) }

// Bytes returns the message with its length set.
func (r *Request) Bytes() []byte {
	ne.PutUint32(r.b[0:], uint32(len(r.b)))
	return r.b
}
