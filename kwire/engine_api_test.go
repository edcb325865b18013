package kwire_test

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"runtime"
	"testing"

	"github.com/kwirelabs/kwire/internal/wiretest"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func registry(key, _ int16) (any, error) {
	api, ok := messages.Lookup(key)
	if !ok {
		return nil, errors.New("no such API")
	}
	return api.NewRequest(), nil
}

// reencode writes a read request frame back, header tags included.
func reencode(t *testing.T, h kwire.RequestHeader, body any) []byte {
	t.Helper()
	out, err := kwire.AppendRequestWithHeader(nil, h, body)
	require.NoError(t, err)
	return out
}

// The three frames that decode accepted and encoding changed.
// Each is decided as Kafka's Java reader decides it: the default decode
// accepts it; where the bytes cannot come back (a Go bool or int has no
// room for how it was spelt), an exact decode refuses it, and where they
// can (a tagged field that was present), they do.
func TestOverlongVarintAcceptedAsJavaDoesRefusedWhenExact(t *testing.T) {
	// HeartbeatRequest v4: the body's tagged-field count is 80 00, a
	// two-byte zero.
	frame := wiretest.Hex(t, "00000016000c000400000001000000026700000000026d008000")
	h, body, err := kwire.ReadRequest(frame, registry)
	require.NoError(t, err)
	again := reencode(t, h, body)
	assert.Equal(t, len(frame)-1, len(again), "written back in its shortest form")

	_, _, err = kwire.Decoder{Exact: true}.ReadRequest(frame, registry)
	require.ErrorIs(t, err, kwire.ErrBadVarint)
	var ke *kwire.Error
	require.ErrorAs(t, err, &ke)
	assert.Equal(t, 24, ke.Offset)

	// Overflow past 32 bits stays an error (Java drops the bits).
	var m struct {
		_ struct{} `kafka:"versions=0,flexible=0+"`
	}
	assert.ErrorIs(t, kwire.Unmarshal(wiretest.Hex(t, "8080808010"), &m, 0), kwire.ErrBadVarint)
}

func TestBoolByteAcceptedAsJavaDoesRefusedWhenExact(t *testing.T) {
	// MetadataRequest v4: AllowAutoTopicCreation is 02.
	frame := wiretest.Hex(t, "0000000f00030004000000010000ffffffff02")
	h, body, err := kwire.ReadRequest(frame, registry)
	require.NoError(t, err)
	assert.True(t, body.(*messages.MetadataRequest).AllowAutoTopicCreation)
	assert.Equal(t, "0000000f00030004000000010000ffffffff01", hex.EncodeToString(reencode(t, h, body)))

	_, _, err = kwire.Decoder{Exact: true}.ReadRequest(frame, registry)
	require.ErrorIs(t, err, kwire.ErrValueOutOfRange)
	var ke *kwire.Error
	require.ErrorAs(t, err, &ke)
	assert.Equal(t, 18, ke.Offset)
	assert.Equal(t, "AllowAutoTopicCreation", ke.Path)
}

func TestTaggedFieldSentWithDefaultComesBack(t *testing.T) {
	// FetchRequest v12 with ClusterId (tag 0) present and null, its default.
	frame := wiretest.Hex(t, "0000002b0001000c00000001000000ffffffff00000000000000007fffffff0000000000ffffffff01010101000100")
	for _, dec := range []kwire.Decoder{{}, {Exact: true}} {
		h, body, err := dec.ReadRequest(frame, registry)
		require.NoError(t, err)
		req := body.(*messages.FetchRequest)
		assert.Nil(t, req.ClusterID)
		assert.Equal(t, hex.EncodeToString(frame), hex.EncodeToString(reencode(t, h, body)))

		// A value set afterwards replaces the kept bytes.
		id := "c"
		req.ClusterID = &id
		again := reencode(t, h, req)
		_, back, err := kwire.ReadRequest(again, registry)
		require.NoError(t, err)
		assert.Equal(t, "c", *back.(*messages.FetchRequest).ClusterID)
	}
}

func TestMaxAllocRefusesBeforeAllocating(t *testing.T) {
	// MetadataRequest v4 naming 1,000 topics of 100 bytes each.
	req := messages.NewMetadataRequest()
	for i := 0; i < 1000; i++ {
		name := string(make([]byte, 100))
		req.Topics = append(req.Topics, messages.MetadataRequestTopic{Name: &name})
	}
	body, err := kwire.Marshal(req, 4)
	require.NoError(t, err)

	var got messages.MetadataRequest
	require.NoError(t, kwire.Decoder{MaxAlloc: 1 << 20}.Unmarshal(body, &got, 4))
	err = kwire.Decoder{MaxAlloc: 50_000}.Unmarshal(body, &got, 4)
	require.ErrorIs(t, err, kwire.ErrTooLarge)
	var ke *kwire.Error
	require.ErrorAs(t, err, &ke)
	assert.Greater(t, ke.Offset, 0)
	assert.Contains(t, ke.Path, "Topics[")

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_ = kwire.Decoder{MaxAlloc: 50_000}.Unmarshal(body, &got, 4)
	runtime.ReadMemStats(&after)
	assert.LessOrEqual(t, after.TotalAlloc-before.TotalAlloc, uint64(50_000+4096), "allocated past the budget")

	// Frames carry the budget through header and body.
	frame, err := kwire.AppendRequest(nil, req, 4, 1, nil)
	require.NoError(t, err)
	_, _, err = kwire.Decoder{MaxAlloc: 50_000}.ReadRequest(frame, registry)
	require.ErrorIs(t, err, kwire.ErrTooLarge)
	resp := messages.NewMetadataResponse()
	for i := 0; i < 1000; i++ {
		name := string(make([]byte, 100))
		resp.Topics = append(resp.Topics, messages.MetadataResponseTopic{Name: &name})
	}
	rframe, err := kwire.AppendResponse(nil, resp, 4, 1)
	require.NoError(t, err)
	_, err = kwire.Decoder{MaxAlloc: 50_000}.ReadResponse(rframe, new(messages.MetadataResponse), 4)
	require.ErrorIs(t, err, kwire.ErrTooLarge)
	_, err = kwire.Decoder{MaxAlloc: 1 << 20}.ReadResponse(rframe, new(messages.MetadataResponse), 4)
	require.NoError(t, err)
}

// A bool inside a run of fixed-width fields, which decode reads as one
// block, is refused when exact just as a lone one is, named by its path.
func TestBoolByteInFixedRunRefusedWhenExact(t *testing.T) {
	type run struct {
		_ struct{} `kafka:"versions=0"`
		A int32    `kafka:"v=0+"`
		B bool     `kafka:"v=0+"`
		C int16    `kafka:"v=0+"`
	}
	in := wiretest.Hex(t, "00000007"+"02"+"0009")
	var m run
	require.NoError(t, kwire.Unmarshal(in, &m, 0))
	assert.Equal(t, run{A: 7, B: true, C: 9}, m)
	err := kwire.Decoder{Exact: true}.Unmarshal(in, &m, 0)
	require.ErrorIs(t, err, kwire.ErrValueOutOfRange)
	var ke *kwire.Error
	require.ErrorAs(t, err, &ke)
	assert.Equal(t, 4, ke.Offset)
	assert.Equal(t, "B", ke.Path)
	err = kwire.Unmarshal(in[:5], &m, 0)
	require.ErrorIs(t, err, kwire.ErrTruncated)
	require.ErrorAs(t, err, &ke)
	assert.Equal(t, 5, ke.Offset)
	assert.Equal(t, "C", ke.Path)
}

func TestPeekResponse(t *testing.T) {
	resp, err := kwire.AppendResponse(nil, wiretest.NewHeartbeat(), 1, 1234)
	require.NoError(t, err)
	for _, n := range []int{8, 12, len(resp)} {
		corr, err := kwire.PeekResponse(resp[:n])
		require.NoError(t, err)
		assert.EqualValues(t, 1234, corr)
	}
	_, err = kwire.PeekResponse(resp[:7])
	assert.ErrorIs(t, err, kwire.ErrTruncated)
	_, err = kwire.PeekResponse(wiretest.Frame("abc"))
	assert.ErrorIs(t, err, kwire.ErrTruncated, "a 3-byte frame has no room for a correlation id")
	_, err = kwire.PeekResponse(append(wiretest.Frame("abcd"), 0))
	assert.ErrorIs(t, err, kwire.ErrInvalidLength, "more bytes than the prefix says")
}

// TestSizePrefixRefusedAlike: a size prefix that is missing, negative or
// disagrees with the bytes that follow is refused with the same error by
// every reader of whole frames.
func TestSizePrefixRefusedAlike(t *testing.T) {
	req, err := kwire.AppendRequest(nil, wiretest.NewHeartbeat(), 1, 7, nil)
	require.NoError(t, err)
	resp, err := kwire.AppendResponse(nil, wiretest.NewHeartbeat(), 1, 7)
	require.NoError(t, err)
	newBody := func(int16, int16) (any, error) { return new(wiretest.Heartbeat), nil }
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
		_, readErr = kwire.ReadResponse(c.resp, new(wiretest.Heartbeat), 1)
		_, traceErr = kwire.TraceResponse(c.resp, new(wiretest.Heartbeat), 1)
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
