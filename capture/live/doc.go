// Package live is a source of captured frames: an AF_PACKET TPACKET_V3
// ring on one interface (Open), or several in a PACKET_FANOUT group that
// splits the traffic by host pair (OpenFanout, FanoutShard), with the RoCE
// filter and snap length applied in the kernel (RoCEFilter). It keeps
// reading through a flap of the interface it captures (ErrLinkDown) and
// reports the kernel's drops (Stats). It knows nothing of RoCE beyond the
// filter; package capture analyses what it yields (capture.Source).
package live
