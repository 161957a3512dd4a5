package rdmanl

import (
	"encoding/binary"
	"errors"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/rdmatop/rdmatop/internal/nlmsg"
	"github.com/rdmatop/rdmatop/probes"
)

// msg builds one netlink message (test helper).
func msg(typ, flags uint16, payload ...[]byte) []byte {
	var p []byte
	for _, b := range payload {
		p = append(p, b...)
	}
	b := make([]byte, nlmsg.HdrLen, nlmsg.HdrLen+len(p))
	ne.PutUint32(b, uint32(nlmsg.HdrLen+len(p)))
	ne.PutUint16(b[4:], typ)
	ne.PutUint16(b[6:], flags)
	ne.PutUint32(b[8:], 42)
	return append(b, p...)
}

// tlv builds one attribute, padded.
func tlv(typ uint16, data ...[]byte) []byte {
	var d []byte
	for _, b := range data {
		d = append(d, b...)
	}
	b := make([]byte, nlmsg.AttrHdrLen, nlmsg.Align(nlmsg.AttrHdrLen+len(d)))
	ne.PutUint16(b, uint16(nlmsg.AttrHdrLen+len(d)))
	ne.PutUint16(b[2:], typ)
	b = append(b, d...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

func u32b(v uint32) []byte { b := make([]byte, 4); ne.PutUint32(b, v); return b }
func u64b(v uint64) []byte { b := make([]byte, 8); ne.PutUint64(b, v); return b }
func strb(s string) []byte { return append([]byte(s), 0) }

// negErrno is -n as the 4 bytes of a C int.
func negErrno(n int32) []byte { return u32b(uint32(-n)) }

func nlerr(errno int32, flags uint16, extra ...[]byte) []byte {
	orig := DevGetRequest(0)[:nlmsg.HdrLen] // capped: header only
	return msg(nlmsg.TypeError, flags, append([][]byte{u32b(uint32(-errno)), orig}, extra...)...)
}

func TestKernelErrors(t *testing.T) {
	// EPERM: permission, naming the capability nldev checks.
	_, err := ParseQPs([][]byte{nlerr(1, nlmsg.FlagCapped)})
	var pe *probes.PermissionError
	if !errors.As(err, &pe) || pe.What != "CAP_NET_ADMIN" || !errors.Is(err, os.ErrPermission) {
		t.Errorf("EPERM: %v", err)
	}
	if st := probes.StatusOf("rdma netlink qp", err); st.State != probes.StatePermissionDenied || !strings.Contains(st.Detail, "CAP_NET_ADMIN") {
		t.Errorf("EPERM status: %+v", st)
	}
	// EOPNOTSUPP: not supported by this kernel.
	_, err = ParseStats([][]byte{nlerr(95, nlmsg.FlagCapped)})
	if !errors.Is(err, probes.ErrNotSupported) {
		t.Errorf("EOPNOTSUPP: %v", err)
	}
	if st := probes.StatusOf("rdma netlink stat", err); st.State != probes.StateNotSupported {
		t.Errorf("EOPNOTSUPP status: %+v", st)
	}
	// EINVAL with an extended ack message, request capped.
	_, err = ParsePorts([][]byte{nlerr(22, nlmsg.FlagCapped|nlmsg.FlagAckTLVs, tlv(nlmsg.ErrAttrMsg, strb("no such port")))})
	var ne *Error
	if !errors.As(err, &ne) || ne.Errno != EINVAL || ne.Msg != "no such port" || ne.Cmd != "PORT_GET" {
		t.Errorf("EINVAL: %#v", err)
	}
	if errors.Is(err, probes.ErrNotSupported) || errors.Is(err, os.ErrPermission) {
		t.Errorf("EINVAL classified as %v", err)
	}
	if runtime.GOOS == "linux" && !errors.Is(err, syscall.EINVAL) {
		t.Errorf("EINVAL does not match syscall.EINVAL")
	}
	if probes.StatusOf("x", err).State != probes.StateFailed {
		t.Errorf("EINVAL status: %+v", probes.StatusOf("x", err))
	}
	// Extended ack after an uncapped (echoed) request.
	req := DevGetRequest(3)
	uncapped := msg(nlmsg.TypeError, nlmsg.FlagAckTLVs, negErrno(19), req, tlv(nlmsg.ErrAttrMsg, strb("gone")))
	_, err = ParseDevices([][]byte{uncapped})
	if !errors.As(err, &ne) || ne.Errno != ENODEV || ne.Msg != "gone" {
		t.Errorf("uncapped: %v", err)
	}
	if !strings.Contains(err.Error(), "rdma netlink GET: no such device: gone") {
		t.Errorf("text: %q", err.Error())
	}
	// A failed dump: the errno is in NLMSG_DONE (how res_get_common_dumpit
	// reports a device index that vanished).
	_, err = ParseQPs([][]byte{msg(nlmsg.TypeDone, nlmsg.FlagMulti, negErrno(22))})
	if !errors.As(err, &ne) || ne.Errno != EINVAL || ne.Cmd != "RES_QP_GET" {
		t.Errorf("DONE errno: %v", err)
	}
	// An ACK (error 0) ends a get; messages before it are kept.
	port := msg(MsgType(CmdGet), 0, tlv(attrDevIndex, u32b(0)), tlv(attrPortIndex, u32b(1)), tlv(attrPortState, []byte{1}))
	ps, err := ParsePorts([][]byte{port, nlerr(0, nlmsg.FlagCapped)})
	if err != nil || len(ps) != 1 || ps[0].State != PortDown {
		t.Errorf("ack: %v %v", ps, err)
	}
	// Overrun.
	if _, err = ParseQPs([][]byte{msg(nlmsg.TypeOverrun, 0)}); err == nil {
		t.Error("overrun accepted")
	}
	// Replies without an end: incomplete.
	if _, err = ParsePorts([][]byte{port}); !errors.Is(err, nlmsg.ErrIncomplete) {
		t.Errorf("no end: %v", err)
	}
	if _, err = ParseQPs(nil); !errors.Is(err, nlmsg.ErrIncomplete) {
		t.Errorf("nothing: %v", err)
	}
	// Unknown errno text.
	if s := Errno(200).Error(); s != "errno 200" {
		t.Errorf("Errno(200) = %q", s)
	}
}

// Attributes this package does not know, the u64 pad attribute, nested
// tables flagged NLA_F_NESTED or not, NOOP messages and messages of other
// types are all skipped; only the known fields change the result.
func TestUnknownSkipped(t *testing.T) {
	const nested = 0x8000
	entry := tlv(attrResQPEntry|nested,
		tlv(attrResLQPN, u32b(0x12)),
		tlv(250, strb("from the future")), // unknown
		tlv(attrPad),                      // 64-bit pad, empty
		tlv(attrResType, []byte{2}),
		tlv(attrResState, []byte{6}),
		tlv(attrResSQPSN, u32b(7)),
		tlv(attrResPID, u32b(99)),
		tlv(52, tlv(53, tlv(54, strb("sq_wqe_idx")), tlv(57, u32b(3)))), // driver table
	)
	body := [][]byte{
		tlv(attrDevIndex, u32b(4)),
		tlv(300, u64b(1)),
		tlv(attrDevName, strb("mlx5_2")),
		tlv(attrResQP, entry, tlv(999, u32b(0))),
	}
	bufs := [][]byte{
		append(msg(nlmsg.TypeNoop, 0), msg(0x1499, 0, tlv(1, u32b(0)))...),
		msg(MsgType(CmdResQPGet), nlmsg.FlagMulti, body...),
		msg(nlmsg.TypeDone, nlmsg.FlagMulti, u32b(0)),
	}
	qps, err := ParseQPs(bufs)
	if err != nil {
		t.Fatal(err)
	}
	want := QP{DevIndex: 4, Dev: "mlx5_2", LQPN: 0x12, Type: QPTypeRC, State: QPErr, SQPSN: 7, PID: 99, HasPID: true}
	if len(qps) != 1 || qps[0] != want {
		t.Fatalf("got %+v\nwant %+v", qps, want)
	}
}

func TestMalformed(t *testing.T) {
	good := fixture(t, "netlink", "res_show_qp", "08-recv.bin")
	done := fixture(t, "netlink", "res_show_qp", "09-recv.bin")
	// Cut anywhere: an error, never a panic and never a silent success
	// with a wrong count.
	for n := 0; n < len(good); n++ {
		qps, err := ParseQPs([][]byte{good[:n], done})
		if err == nil && n != 0 {
			t.Errorf("cut at %d accepted: %d QPs", n, len(qps))
		}
	}
	// An attribute whose length runs past its table.
	bad := append([]byte(nil), good...)
	ne.PutUint16(bad[nlmsg.HdrLen+8+12:], 0xfff0) // RES_QP table length
	if _, err := ParseQPs([][]byte{bad, done}); err == nil {
		t.Error("oversized attribute accepted")
	}
	// A u32 attribute with 2 bytes.
	short := msg(MsgType(CmdGet), 0, tlv(attrDevIndex, []byte{1, 0}))
	if _, err := ParseDevices([][]byte{short, msg(nlmsg.TypeDone, nlmsg.FlagMulti, u32b(0))}); err == nil {
		t.Error("short u32 accepted")
	}
	// A QP entry without LQPN.
	noLQPN := msg(MsgType(CmdResQPGet), 0, tlv(attrResQP, tlv(attrResQPEntry, tlv(attrResType, []byte{2}), tlv(attrResState, []byte{3}))))
	if _, err := ParseQPs([][]byte{noLQPN, msg(nlmsg.TypeDone, 0)}); err == nil {
		t.Error("QP without LQPN accepted")
	}
}

// ne is netlink's byte order, the host's: the helpers above build
// messages as the kernel of the machine running the tests would.
var ne = binary.NativeEndian
