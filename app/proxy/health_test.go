package proxy

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadiness (issue 27, case 7): not ready before the listener opens;
// ready once it does and the upstream answers ApiVersions; not ready
// again once the upstream stops answering.
func TestReadiness(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	up := startAnswering(t, ln)
	p := New(Config{Upstream: up.ln.Addr().String()})
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	r := p.Readiness(ctx, 20*time.Millisecond)
	assert.ErrorContains(t, r.Ready(), "the Kafka listener is not open yet")
	pl, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	served := make(chan error, 1)
	go func() { served <- p.ServeListener(ctx, pl) }()
	recv(t, p.Ready())
	waitUntil(t, "ready", func() bool { return r.Ready() == nil })
	up.ln.Close() // the upstream goes away
	waitUntil(t, "not ready", func() bool { return r.Ready() != nil })
	assert.ErrorContains(t, r.Ready(), "last answered an ApiVersions")
	stop()
	require.NoError(t, recv(t, served))
}
