package kwire_test

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/kwirelabs/kwire/internal/wiretest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/kwire"
)

// taggedHeaderRequest is a wiretest.Heartbeat request frame whose header (v2)
// holds client and a tagged field, and that header.
func taggedHeaderRequest(t *testing.T, client string) (kwire.RequestHeader, []byte) {
	t.Helper()
	h := kwire.RequestHeader{APIVersion: 1, CorrelationID: 9, ClientID: &client,
		UnknownTags: kwire.NewUnknownTags(kwire.TaggedField{Tag: 3, Data: []byte{1, 2}})}
	frame, err := kwire.AppendRequestWithHeader(nil, h, wiretest.NewHeartbeat())
	require.NoError(t, err)
	return h, frame
}

func TestRequestHeaderTaggedFieldsRoundTrip(t *testing.T) {
	h, frame := taggedHeaderRequest(t, "proxy")
	got, body, err := kwire.ReadRequest(frame, func(key, v int16) (any, error) { return new(wiretest.Heartbeat), nil })
	require.NoError(t, err)
	assert.Equal(t, int16(68), got.APIKey)
	assert.Equal(t, int16(2), got.Version)
	assert.Equal(t, h.UnknownTags, got.UnknownTags)
	again, err := kwire.AppendRequestWithHeader(nil, got, body)
	require.NoError(t, err)
	assert.Equal(t, frame, again)

	key, v, corr, err := kwire.PeekRequest(frame)
	require.NoError(t, err)
	assert.Equal(t, []int{68, 1, 9}, []int{int(key), int(v), int(corr)})
	_, _, _, err = kwire.PeekRequest(frame[:12])
	assert.NoError(t, err, "the first 12 bytes are enough")
	_, _, _, err = kwire.PeekRequest(frame[:8])
	assert.ErrorIs(t, err, kwire.ErrTruncated)
}

// TestRequestClientIDErrors: a client id length that is cut short, below
// -1 or past the frame is refused with its field and the offset of the
// length (from the start of the frame, size prefix included).
func TestRequestClientIDErrors(t *testing.T) {
	client := "proxy"
	frame, err := kwire.AppendRequestWithHeader(nil, kwire.RequestHeader{APIVersion: 1, CorrelationID: 9, ClientID: &client}, wiretest.NewHeartbeat())
	require.NoError(t, err)
	const at = 12 // size 4, key 2, version 2, correlation id 4
	setLength := func(n uint16) []byte {
		f := append([]byte(nil), frame...)
		f[at], f[at+1] = byte(n>>8), byte(n)
		return f
	}
	cut := append([]byte(nil), frame[:at+1]...)
	cut[3] = at + 1 - 4 // the size prefix says what is there
	for name, c := range map[string]struct {
		frame []byte
		want  error
	}{
		"cut short":      {cut, kwire.ErrTruncated},
		"below -1":       {setLength(0xfffe), kwire.ErrInvalidLength},
		"past the frame": {setLength(uint16(len(frame))), kwire.ErrInvalidLength},
	} {
		_, _, err := kwire.ReadRequest(c.frame, func(key, v int16) (any, error) { return new(wiretest.Heartbeat), nil })
		var e *kwire.Error
		require.ErrorAs(t, err, &e, name)
		assert.ErrorIs(t, err, c.want, name)
		assert.Equal(t, "ClientID", e.Path, name)
		assert.Equal(t, at, e.Offset, name)
	}
}

// TestHeaderCutShortAgrees: a header cut at any byte is refused with the
// same error (sentinel, Op, type, field, offset) by ReadRequest,
// TraceRequest and, within the part every header version has,
// PeekRequest, whether the size prefix says the frame ends there or the
// caller has only read that far; likewise for responses.
func TestHeaderCutShortAgrees(t *testing.T) {
	_, frame := taggedHeaderRequest(t, "ab")
	newBody := func(int16, int16) (any, error) { return new(wiretest.Heartbeat), nil }
	const head, header = 4 + 8, 4 + 8 + 2 + 2 + 5 // size, key, version, correlation id; client id, tags
	for n := 4; n < header; n++ {
		cut := append([]byte(nil), frame[:n]...)
		binary.BigEndian.PutUint32(cut, uint32(n-4))
		_, _, readErr := kwire.ReadRequest(cut, newBody)
		want := headerError(t, readErr, "RequestHeader")
		_, traceErr := kwire.TraceRequest(cut, newBody)
		assert.Equal(t, want, headerError(t, traceErr, "RequestHeader"), "trace, cut at %d", n)
		if n < head {
			_, _, _, peekErr := kwire.PeekRequest(cut)
			assert.Equal(t, want, headerError(t, peekErr, "RequestHeader"), "peek, cut at %d", n)
			_, _, _, peekErr = kwire.PeekRequest(frame[:n])
			assert.Equal(t, want, headerError(t, peekErr, "RequestHeader"), "peek at the first %d bytes", n)
		}
	}

	resp, err := kwire.AppendResponse(nil, wiretest.NewHeartbeat(), 1, 5)
	require.NoError(t, err)
	for n := 4; n < 4+4+1; n++ { // correlation id, tags
		cut := append([]byte(nil), resp[:n]...)
		binary.BigEndian.PutUint32(cut, uint32(n-4))
		_, readErr := kwire.ReadResponse(cut, new(wiretest.Heartbeat), 1)
		want := headerError(t, readErr, "ResponseHeader")
		_, traceErr := kwire.TraceResponse(cut, new(wiretest.Heartbeat), 1)
		assert.Equal(t, want, headerError(t, traceErr, "ResponseHeader"), "trace, cut at %d", n)
		if n < 8 {
			_, peekErr := kwire.PeekResponse(cut)
			assert.Equal(t, want, headerError(t, peekErr, "ResponseHeader"), "peek, cut at %d", n)
		}
	}
}

// headerError is err as a *kwire.Error of a header: Op "frame", the
// header's type, a cut or a bad length.
func headerError(t *testing.T, err error, typ string) kwire.Error {
	t.Helper()
	var e *kwire.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, "frame", e.Op, "%v", err)
	assert.Equal(t, typ, e.Type, "%v", err)
	if !errors.Is(err, kwire.ErrTruncated) {
		assert.ErrorIs(t, err, kwire.ErrInvalidLength)
	}
	return *e
}
