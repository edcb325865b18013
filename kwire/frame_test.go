package kwire_test

import (
	"encoding/binary"
	"testing"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPeekResponse(t *testing.T) {
	resp, err := kwire.AppendResponse(nil, newHeartbeat(), 1, 1234)
	require.NoError(t, err)
	for _, n := range []int{8, 12, len(resp)} {
		corr, err := kwire.PeekResponse(resp[:n])
		require.NoError(t, err)
		assert.EqualValues(t, 1234, corr)
	}
	_, err = kwire.PeekResponse(resp[:7])
	assert.ErrorIs(t, err, kwire.ErrTruncated)
	_, err = kwire.PeekResponse(rawFrame("abc"))
	assert.ErrorIs(t, err, kwire.ErrTruncated, "a 3-byte frame has no room for a correlation id")
	_, err = kwire.PeekResponse(append(rawFrame("abcd"), 0))
	assert.ErrorIs(t, err, kwire.ErrInvalidLength, "more bytes than the prefix says")
}

// TestSizePrefixRefusedAlike: a size prefix that is missing, negative or
// disagrees with the bytes that follow is refused with the same error by
// every reader of whole frames.
func TestSizePrefixRefusedAlike(t *testing.T) {
	req, err := kwire.AppendRequest(nil, newHeartbeat(), 1, 7, nil)
	require.NoError(t, err)
	resp, err := kwire.AppendResponse(nil, newHeartbeat(), 1, 7)
	require.NoError(t, err)
	newBody := func(int16, int16) (any, error) { return new(heartbeat), nil }
	bad := func(frame []byte, size int32) []byte {
		f := append([]byte(nil), frame...)
		binary.BigEndian.PutUint32(f, uint32(size))
		return f
	}
	for _, c := range []struct {
		name      string
		req, resp []byte
		want      error
	}{
		{"no size prefix", req[:3], resp[:3], kwire.ErrTruncated},
		{"negative", bad(req, -1), bad(resp, -1), kwire.ErrInvalidLength},
		{"more than follows", bad(req, int32(len(req))), bad(resp, int32(len(resp))), kwire.ErrInvalidLength},
		{"less than follows", bad(req, int32(len(req)-5)), bad(resp, int32(len(resp)-5)), kwire.ErrInvalidLength},
	} {
		_, _, readErr := kwire.ReadRequest(c.req, newBody)
		_, traceErr := kwire.TraceRequest(c.req, newBody)
		sizePrefixError(t, c.name, c.want, readErr, traceErr)
		_, readErr = kwire.ReadResponse(c.resp, new(heartbeat), 1)
		_, traceErr = kwire.TraceResponse(c.resp, new(heartbeat), 1)
		sizePrefixError(t, c.name, c.want, readErr, traceErr)
	}
}

// sizePrefixError checks that a read and a trace refused a frame's size
// prefix with the same *kwire.Error: Op "frame", offset 0, sentinel want.
func sizePrefixError(t *testing.T, name string, want, read, trace error) {
	t.Helper()
	var e *kwire.Error
	require.ErrorAs(t, read, &e, name)
	assert.ErrorIs(t, read, want, name)
	assert.Equal(t, "frame", e.Op, name)
	assert.Equal(t, 0, e.Offset, name)
	assert.Equal(t, read, trace, name)
}
