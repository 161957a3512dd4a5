// Package capture analyses RoCE traffic: it decodes frames with the
// gopacket layers of package roce and tracks every queue pair's PSN
// stream: gaps, retransmissions, NAKs, CNPs, ECN marks, ICRC errors and
// request-to-ACK round trips, into a Summary.
//
// Sources and consumers are packages of their own, as in gopacket: frames
// come from a file (capture/pcapfile) or a live AF_PACKET ring
// (capture/live), both a Source here; capture/report writes a Summary for
// people.
//
// Decoding and tracking take bytes and capture timestamps and never read the
// clock: replay and live capture go through the same code.
package capture
