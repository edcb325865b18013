package kwire_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// sameVerdict checks that a trace and a read of the same frame agree: both
// succeed, or both fail with the same sentinel at the same offset and
// field path.
func sameVerdict(t *testing.T, read, trace error) {
	t.Helper()
	if read == nil || trace == nil {
		assert.Equal(t, read == nil, trace == nil, "read: %v\ntrace: %v", read, trace)
		return
	}
	var r, tr *kwire.Error
	require.True(t, errors.As(read, &r), "read: %v", read)
	require.True(t, errors.As(trace, &tr), "trace: %v", trace)
	assert.Equal(t, r.Err, tr.Err, "read: %v\ntrace: %v", read, trace)
	assert.Equal(t, r.Offset, tr.Offset, "read: %v\ntrace: %v", read, trace)
	assert.Equal(t, r.Path, tr.Path, "read: %v\ntrace: %v", read, trace)
}

func TestTraceRefusesWhatReadRefuses(t *testing.T) {
	// A null in arrays that cannot be null: the trace showed both as valid.
	resp := mustHex(t, "0000000c00000007ffffffff30303030") // ProduceResponse v1
	_, readErr := kwire.ReadResponse(resp, new(messages.ProduceResponse), 1)
	_, traceErr := kwire.TraceResponse(resp, new(messages.ProduceResponse), 1)
	require.ErrorIs(t, readErr, kwire.ErrNullNotAllowed)
	sameVerdict(t, readErr, traceErr)

	req := mustHex(t, "0000000e00030000000000010000ffffffff") // MetadataRequest v0
	_, _, readErr = messages.ReadRequest(req)
	_, traceErr = messages.TraceRequest(req)
	require.ErrorIs(t, readErr, kwire.ErrNullNotAllowed)
	sameVerdict(t, readErr, traceErr)

	// Tagged fields out of order: HeartbeatRequest v4 whose body tags are
	// 1 then 0.
	req = mustHex(t, "00000019"+"000c0004000000010000"+"00"+"0267"+"00000000"+"026d"+"00"+"02"+"0100"+"0000")
	_, _, readErr = messages.ReadRequest(req)
	_, traceErr = messages.TraceRequest(req)
	require.ErrorIs(t, readErr, kwire.ErrBadTag)
	sameVerdict(t, readErr, traceErr)
}

type marked struct {
	_     struct{} `kafka:"api=1000,versions=0"`
	Inner *topic   `kafka:"v=0+,nullable=0+"`
}

func TestTraceReadsPresenceMarkersAsReadDoes(t *testing.T) {
	for _, c := range []struct{ frame, want string }{
		{"0000000b" + "00000007" + "02" + "0000" + "00000000", "struct"}, // any non-negative marker: present
		{"00000005" + "00000007" + "80", "null"},                         // any negative one: null
		{"00000005" + "00000007" + "00", "truncated"},                    // present, then nothing
	} {
		frame := mustHex(t, c.frame)
		_, readErr := kwire.ReadResponse(frame, new(marked), 0)
		tree, traceErr := kwire.TraceResponse(frame, new(marked), 0)
		sameVerdict(t, readErr, traceErr)
		if c.want == "truncated" {
			assert.ErrorIs(t, readErr, kwire.ErrTruncated)
			continue
		}
		require.NoError(t, readErr)
		inner := tree.Children[2].Children[0]
		assert.Equal(t, c.want, inner.Value)
	}
}
