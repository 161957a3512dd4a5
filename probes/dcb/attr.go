package dcb

import "fmt"

func need(name string, b []byte, n int) error {
	if len(b) < n {
		return fmt.Errorf("%s: %d bytes, want %d", name, len(b), n)
	}
	return nil
}
