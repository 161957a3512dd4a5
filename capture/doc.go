// Package capture reads RoCE traffic, from a capture file or a live
// AF_PACKET socket, decodes it with the gopacket layers of package roce and
// tracks every queue pair's PSN stream: gaps, retransmissions, NAKs, CNPs,
// ECN marks, ICRC errors and request-to-ACK round trips.
//
// Decoding and tracking take bytes and capture timestamps and never read the
// clock: replay and live capture go through the same code.
package capture
