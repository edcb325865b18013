package main

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// openOutput opens a file the proxy writes (the log, the audit) for
// appending, created 0600 (it holds traffic: readable by its owner
// only), without blocking: open(2) of a FIFO with no reader waits for
// one, which would hang start-up before anything listens, so a FIFO with
// no reader is an error here instead.
func openOutput(flag, path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND|syscall.O_NONBLOCK, 0o600)
	if errors.Is(err, syscall.ENXIO) {
		return nil, fmt.Errorf("%s %s: a FIFO with no reader (start its reader first)", flag, path)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", flag, err)
	}
	return f, nil
}
