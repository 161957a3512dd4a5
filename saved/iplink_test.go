package saved

import "testing"

// `ip -s -s -d link` as iproute2 6.x prints it (the format, with made-up
// numbers: no public dump of a RoCE host's was at hand), and the JSON form.
func TestIPLink(t *testing.T) {
	const text = `1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN mode DEFAULT group default qlen 1000
    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00 promiscuity 0 allmulti 0 minmtu 0 maxmtu 0 
    RX:  bytes packets errors dropped  missed   mcast           
          5120      64      0       0       0       0 
    TX:  bytes packets errors dropped carrier collsns           
          5120      64      0       0       0       0 
2: enp59s0f0np0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state UP mode DEFAULT group default qlen 1000
    link/ether b8:ce:f6:00:00:01 brd ff:ff:ff:ff:ff:ff promiscuity 0 allmulti 0 minmtu 68 maxmtu 9978 
    altname enp59s0f0
    RX:  bytes packets errors dropped  missed   mcast           
     123456789   98765      0      12       3       0 
    RX errors:  length    crc   frame    fifo overrun
                     0      7       0       0       0
    TX:  bytes packets errors dropped carrier collsns           
     987654321   56789      0       0       0       0 
    TX errors: aborted   fifo window heartbt transns
                     0      0      0       0       2
`
	const js = `[{"ifindex":2,"ifname":"enp59s0f0np0","flags":["BROADCAST","MULTICAST","UP","LOWER_UP"],"mtu":9000,"qdisc":"mq","operstate":"UP","stats64":{"rx":{"bytes":123456789,"packets":98765,"errors":0,"dropped":12,"over_errors":0,"multicast":0},"tx":{"bytes":987654321,"packets":56789,"errors":0,"dropped":0,"carrier_errors":0,"collisions":0}}}]`
	for name, body := range map[string]string{"text": "$ ip -s -s -d link\n" + text, "json": "$ ip -j -s link\n" + js} {
		t.Run(name, func(t *testing.T) {
			res := load(t, write(t, map[string]string{"ip.txt": body}))
			p := portOf(t, last(res), "", 0, "enp59s0f0np0")
			if p.MTU == nil || *p.MTU != 9000 || p.RoCEMTU == nil || *p.RoCEMTU != 4096 {
				t.Errorf("MTU %v RoCE MTU %v", p.MTU, p.RoCEMTU)
			}
			for n, v := range map[string]uint64{"rx_bytes": 123456789, "tx_packets": 56789, "rx_dropped": 12} {
				if got := value(t, p, n); got != v {
					t.Errorf("%s = %d, want %d", n, got, v)
				}
			}
			if name == "text" {
				if got := value(t, p, "rx_crc_errors"); got != 7 {
					t.Errorf("rx_crc_errors %d", got)
				}
				if got := value(t, p, "rx_missed_errors"); got != 3 {
					t.Errorf("rx_missed_errors %d", got)
				}
			}
			if p.Counters[0].Name != "netdev_"+p.Counters[0].Native {
				t.Errorf("counter %+v: netdev statistics carry netdev_ names, as on a live host", p.Counters[0])
			}
		})
	}
}
