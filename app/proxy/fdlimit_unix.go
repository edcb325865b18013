//go:build unix

package proxy

import "syscall"

// openFileLimit is how many descriptors the process may hold (the soft
// RLIMIT_NOFILE, which Go raises to the hard limit at start), 0 when
// unknown.
func openFileLimit() int {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil || r.Cur > 1<<30 {
		return 0
	}
	return int(r.Cur)
}
