// Package testbroker is the stand-in Kafka broker of this repository's
// tests: it reads each request a connection sends and writes the
// response a test's function gives.
package testbroker

import (
	"net"
	"testing"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// Serve accepts connections on ln, each served on its own goroutine, and
// answers every request with what answer returns for it; nil closes the
// connection unanswered, as does a request that does not decode. ln is
// closed when the test ends.
func Serve(t testing.TB, ln net.Listener, answer func(h kwire.RequestHeader, msg any) any) {
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go ServeConn(c, answer)
		}
	}()
	t.Cleanup(func() { ln.Close() })
}

// ServeConn is Serve for one connection, c, which it closes when done.
func ServeConn(c net.Conn, answer func(h kwire.RequestHeader, msg any) any) {
	defer c.Close()
	frames := kwire.NewFrameReader(c, 0)
	for {
		f, err := frames.Next()
		if err != nil {
			return
		}
		h, msg, err := messages.ReadRequest(f)
		if err != nil {
			return
		}
		resp := answer(h, msg)
		if resp == nil {
			return
		}
		out, err := kwire.AppendResponse(nil, resp, h.APIVersion, h.CorrelationID)
		if err != nil {
			return
		}
		if _, err := c.Write(out); err != nil {
			return
		}
	}
}

// Empty answers every request with its API's empty response.
func Empty(h kwire.RequestHeader, _ any) any {
	resp, err := messages.Default.ResponseFor(h.APIKey, h.APIVersion)
	if err != nil {
		return nil
	}
	return resp
}
