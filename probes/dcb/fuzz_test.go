package dcb

import (
	"reflect"
	"testing"
)

// FuzzParse feeds arbitrary bytes to every reply parser: none may panic,
// and whatever ParseIEEE accepts must re-encode and parse to the same.
func FuzzParse(f *testing.F) {
	f.Add(encodeIEEE(mlx5Like()))
	f.Add(encodeIEEE(withPeers()))
	f.Add(encodeU8Reply(CmdGetDCBX, attrDCBX, 0x0a))
	f.Add(encodeU8Reply(CmdGetState, attrState, 1))
	f.Add([]byte{0, 21, 0, 0, 5, 0, 1, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := ParseIEEE(b)
		_, _ = ParseDCBX(b)
		_, _ = ParseState(b)
		_, _ = Decode(Raw{Ifname: "f", Replies: []Reply{{Cmd: CmdIEEEGet, Payload: b}, {Cmd: CmdGetDCBX, Payload: b}, {Cmd: CmdGetState, Payload: b}}})
		if err != nil {
			return
		}
		_ = c.Snapshot()
		// Re-encode what was understood; it must decode to the same. The
		// encoder always sends an APP table and drops skipped attributes.
		c.Skipped = nil
		if c.Apps == nil {
			c.Apps = []App{}
			c.Trust = DeriveTrust(c.AppTrust, c.Apps)
		}
		again, err := ParseIEEE(encodeIEEE(c))
		if err != nil {
			t.Fatalf("re-encoded reply does not parse: %v", err)
		}
		if !reflect.DeepEqual(again, c) {
			t.Fatalf("re-encoded reply decodes differently:\n%+v\n%+v", again, c)
		}
	})
}
