package testbroker_test

import (
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/app/testbroker"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// TestServe: a request is answered with the function's response and its
// correlation id; a nil answer closes the connection.
func TestServe(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	testbroker.Serve(t, ln, func(h kwire.RequestHeader, msg any) any {
		if _, ok := msg.(*messages.HeartbeatRequest); !ok {
			return nil
		}
		return testbroker.Empty(h, msg)
	})
	c, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	req, err := kwire.AppendRequest(nil, messages.NewHeartbeatRequest(), 4, 42, nil)
	require.NoError(t, err)
	_, err = c.Write(req)
	require.NoError(t, err)
	frames := kwire.NewFrameReader(c, 0)
	f, err := frames.Next()
	require.NoError(t, err)
	_, resp, err := messages.ReadResponse(f, 12, 4)
	require.NoError(t, err)
	assert.IsType(t, &messages.HeartbeatResponse{}, resp)
	corr, err := kwire.PeekResponse(f)
	require.NoError(t, err)
	assert.EqualValues(t, 42, corr)

	req, err = kwire.AppendRequest(nil, messages.NewMetadataRequest(), 12, 43, nil)
	require.NoError(t, err)
	_, err = c.Write(req)
	require.NoError(t, err)
	_, err = frames.Next()
	assert.Error(t, err, "a nil answer closes the connection")
}
