package demo

import (
	"bytes"
	"embed"
	"encoding/json"

	"github.com/rdmatop/rdmatop/probes/dcb"
	"github.com/rdmatop/rdmatop/probes/ethtool"
	"github.com/rdmatop/rdmatop/probes/fsrec"
)

const treeFile = "mlx5-roce-cx6dx.json"

//go:embed testdata/mlx5-roce-cx6dx.json testdata/ethtool-eth0.txt testdata/dcb-mlx5.raw.json
var data embed.FS

// parseEthtool returns the embedded `ethtool -S eth0` dump (a copy of
// testdata/ethtool/mlx5_cx6dx_eth0_roce_pfc3_t0.txt).
func parseEthtool() (map[string]uint64, error) {
	b, err := data.ReadFile("testdata/ethtool-eth0.txt")
	if err != nil {
		return nil, err
	}
	return ethtool.ParseText(bytes.NewReader(b))
}

// baseTree returns the embedded sysfs tree.
func baseTree() (fsrec.Tree, error) {
	b, err := data.ReadFile("testdata/" + treeFile)
	if err != nil {
		return nil, err
	}
	var t fsrec.Tree
	err = json.Unmarshal(b, &t)
	return t, err
}

// dcbFake answers DCB netlink for both netdevs with the embedded replies
// (a copy of testdata/dcb/mlx5-like.raw.json: PFC on priority 3, DSCP
// trust, DSCP 26 → priority 3, CNPs on DSCP 48 → priority 6).
func dcbFake() (dcb.Fake, error) {
	b, err := data.ReadFile("testdata/dcb-mlx5.raw.json")
	if err != nil {
		return nil, err
	}
	var raw dcb.Raw
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, err
	}
	f := dcb.Fake{}
	for _, ifname := range []string{"eth0", "eth1"} {
		r := raw
		r.Ifname = ifname
		f[ifname] = r
	}
	return f, nil
}
