package probes

import "fmt"

// FormatQPN is rdmatop's one notation for a queue pair number: 0x and six
// lower-case hex digits (a QPN is 24 bits, as the BTH carries it), in
// findings, the screen, JSON object keys and exporter labels alike.
func FormatQPN(n uint32) string { return fmt.Sprintf("0x%06x", n) }
