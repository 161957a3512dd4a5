// Package roce decodes and encodes the InfiniBand transport carried by
// RoCE: the Base Transport Header, the extended headers each opcode
// requires (RDETH, DETH, XRCETH, RETH, AtomicETH, AETH, AtomicAckETH,
// ImmDt, IETH), the payload, pad and the invariant CRC, as the IBTA
// specification (vol. 1, chapter 9) and its RoCEv2 annex (A17) define
// them. Decoding is one pass into a reusable Packet, without allocating;
// layers.go registers RoCEv2 (UDP 4791) and RoCEv1 (EtherType 0x8915) as
// gopacket layers, and serialize.go writes packets for the test
// generators. The ICRC is computed as A17 specifies, over the packet with
// its variant fields masked.
package roce
