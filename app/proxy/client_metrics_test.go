package proxy

import (
	"io"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/app/trafficlog"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// clientCounts is a ClientMetrics recording the client ids it is given.
type clientCounts struct {
	mu  sync.Mutex
	ids []string // "<nil>" for none
}

func (c *clientCounts) ConnOpened()                                        {}
func (c *clientCounts) ConnClosed()                                        {}
func (c *clientCounts) Request(int16, int16, int)                          {}
func (c *clientCounts) Response(int16, int16, int, time.Duration, []int16) {}
func (c *clientCounts) Undecodable(trafficlog.Dir)                         {}
func (c *clientCounts) ClientRequest(id []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if id == nil {
		c.ids = append(c.ids, "<nil>")
		return
	}
	c.ids = append(c.ids, string(id))
}

// TestProxyClientMetrics: the proxy tells a ClientMetrics each request's
// client id (read from the header, decoded or not); a null one counts as
// the connection's first client id (a KIP-1313 client names itself on
// its first request only), or nil before there is one.
func TestProxyClientMetrics(t *testing.T) {
	kgo, empty := "kgo", ""
	got := countedClientIDs(t, &syncBuffer{}, []*string{nil, &kgo, nil, &empty})
	assert.Equal(t, []string{"<nil>", "kgo", "kgo", ""}, got)
}

// TestProxyClientMetricsWithoutLog: with metrics and neither log nor
// filters the proxy decodes few requests (a Metadata not at all), and a
// KIP-1313 client's later requests, which leave the client id out, still
// count under the id its first request gave.
func TestProxyClientMetricsWithoutLog(t *testing.T) {
	kgo, empty := "kgo", ""
	got := countedClientIDs(t, nil, []*string{nil, &kgo, nil, &empty, nil})
	assert.Equal(t, []string{"<nil>", "kgo", "kgo", "", "kgo"}, got)
}

// countedClientIDs sends one Metadata request a client id of ids through
// a proxy logging to log (nil: no log), on one connection, and returns
// the client ids its metrics counted.
func countedClientIDs(t *testing.T, log io.Writer, ids []*string) []string {
	up := startUpstream(t)
	counts := &clientCounts{}
	p := startProxy(t, Config{Upstream: up.ln.Addr().String(), Metrics: counts}, log, trafficlog.Options{})
	c, err := dialT(t, p.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	for i, id := range ids {
		up.answers <- frameOf(kwire.AppendResponse(nil, &messages.MetadataResponse{}, 12, int32(i)))
		_, err := c.Write(frameOf(kwire.AppendRequest(nil, &messages.MetadataRequest{}, 12, int32(i), id)))
		require.NoError(t, err)
		readFrame(t, c)
	}
	c.Close()
	require.NoError(t, p.close())
	counts.mu.Lock()
	defer counts.mu.Unlock()
	return counts.ids
}

func TestPeekClientID(t *testing.T) {
	id := "abc"
	frame := frameOf(kwire.AppendRequest(nil, &messages.MetadataRequest{}, 12, 1, &id))
	assert.Equal(t, []byte("abc"), peekClientID(messages.Default, frame, 3, 12))
	assert.Nil(t, peekClientID(messages.Default, frame[:15], 3, 12), "cut short")
	assert.Nil(t, peekClientID(messages.Default, frame, 7, 0), "ControlledShutdown v0's header has no client id")
}
