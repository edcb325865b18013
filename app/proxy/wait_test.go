package proxy

import (
	"net"
	"strings"
	"testing"
	"time"
)

// testDeadline bounds every wait of these tests, so that a proxy that
// stops answering fails the test instead of hanging it.
const testDeadline = 20 * time.Second

// dialT connects to addr with every read and write bounded by
// testDeadline.
func dialT(t *testing.T, addr string) (net.Conn, error) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, testDeadline)
	if err == nil {
		c.SetDeadline(time.Now().Add(testDeadline))
	}
	return c, err
}

// waitUntil polls cond until it holds, failing the test after
// testDeadline.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(testDeadline)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up after %v waiting for %s", testDeadline, what)
		}
		time.Sleep(time.Millisecond)
	}
}

func waitFor(t *testing.T, log *syncBuffer, text string) {
	t.Helper()
	deadline := time.Now().Add(testDeadline)
	for !strings.Contains(log.String(), text) {
		if time.Now().After(deadline) {
			t.Fatalf("gave up after %v waiting for %q in the log:\n%s", testDeadline, text, log.String())
		}
		time.Sleep(time.Millisecond)
	}
}

// recv takes a value from ch, failing the test after testDeadline.
func recv[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(testDeadline):
		t.Fatalf("gave up after %v waiting on a channel", testDeadline)
		panic("unreachable")
	}
}
