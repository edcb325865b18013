package kwire_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/internal/wiretest"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

func TestTraceRefusesWhatReadRefuses(t *testing.T) {
	// A null in arrays that cannot be null: the trace showed both as valid.
	resp := wiretest.Hex(t, "0000000c00000007ffffffff30303030") // ProduceResponse v1
	_, readErr := kwire.ReadResponse(resp, new(messages.ProduceResponse), 1)
	_, traceErr := kwire.TraceResponse(resp, new(messages.ProduceResponse), 1)
	require.ErrorIs(t, readErr, kwire.ErrNullNotAllowed)
	wiretest.SameVerdict(t, resp, readErr, traceErr)

	req := wiretest.Hex(t, "0000000e00030000000000010000ffffffff") // MetadataRequest v0
	_, _, readErr = messages.ReadRequest(req)
	_, traceErr = messages.TraceRequest(req)
	require.ErrorIs(t, readErr, kwire.ErrNullNotAllowed)
	wiretest.SameVerdict(t, req, readErr, traceErr)

	// Tagged fields out of order: HeartbeatRequest v4 whose body tags are
	// 1 then 0.
	req = wiretest.Hex(t, "00000019"+"000c0004000000010000"+"00"+"0267"+"00000000"+"026d"+"00"+"02"+"0100"+"0000")
	_, _, readErr = messages.ReadRequest(req)
	_, traceErr = messages.TraceRequest(req)
	require.ErrorIs(t, readErr, kwire.ErrBadTag)
	wiretest.SameVerdict(t, req, readErr, traceErr)
}

type marked struct {
	_     struct{}     `kafka:"api=1000,versions=0"`
	Inner *markedInner `kafka:"v=0+,nullable=0+"`
}

type markedInner struct {
	Name       string  `kafka:"v=0+"`
	Partitions []int32 `kafka:"v=0+"`
}

func TestTraceReadsPresenceMarkersAsReadDoes(t *testing.T) {
	for _, c := range []struct{ frame, want string }{
		{"0000000b" + "00000007" + "02" + "0000" + "00000000", "struct"}, // any non-negative marker: present
		{"00000005" + "00000007" + "80", "null"},                         // any negative one: null
		{"00000005" + "00000007" + "00", "truncated"},                    // present, then nothing
	} {
		frame := wiretest.Hex(t, c.frame)
		_, readErr := kwire.ReadResponse(frame, new(marked), 0)
		tree, traceErr := kwire.TraceResponse(frame, new(marked), 0)
		wiretest.SameVerdict(t, frame, readErr, traceErr)
		if c.want == "truncated" {
			assert.ErrorIs(t, readErr, kwire.ErrTruncated)
			continue
		}
		require.NoError(t, readErr)
		inner := tree.Children[2].Children[0]
		assert.Equal(t, c.want, inner.Value)
	}
}

// TestLayoutTaggedFields: a tagged field that is set shows as its own
// node; an unknown one as raw bytes; the trace covers the frame.
func TestLayoutTaggedFields(t *testing.T) {
	h := &Heartbeat{GroupID: "g", Rack: "r1", UnknownTags: kwire.NewUnknownTags(kwire.TaggedField{Tag: 9, Data: []byte{0xab}})}
	frame, tree, err := kwire.LayoutRequest(h, 1, 1, nil)
	require.NoError(t, err)
	text := tree.Format()
	assert.Contains(t, text, `+-- Rack string = "r1" (compact, len+1=3)`)
	assert.Contains(t, text, "+-- unknown bytes = ab")
	assert.Equal(t, len(frame), tree.Size)

	// A tagged field whose size prefix disagrees with its value is refused.
	bad := append([]byte(nil), frame...)
	for i := len(bad) - 1; i > 0; i-- {
		if bad[i] == 0x03 && bad[i-1] == 0x00 { // Rack: tag 0, size 3
			bad[i] = 0x04
			break
		}
	}
	_, err = kwire.TraceRequest(bad, func(int16, int16) (any, error) { return new(Heartbeat), nil })
	assert.ErrorIs(t, err, kwire.ErrBadTag)
}

// TestLayoutArrayNames: arrays of leaves are named by the wire type as
// Kafka's schemas spell it, arrays of structs by the field.
func TestLayoutArrayNames(t *testing.T) {
	type part struct {
		ID int32 `kafka:"v=0+"`
	}
	type dirs struct {
		_     struct{}     `kafka:"api=1001,versions=0,flexible=0+"`
		Dirs  []kwire.UUID `kafka:"v=0+"`
		Parts []part       `kafka:"v=0+"`
	}
	_, tree, err := kwire.LayoutRequest(&dirs{Dirs: []kwire.UUID{{}}, Parts: []part{{ID: 7}}}, 0, 1, nil)
	require.NoError(t, err)
	text := tree.Format()
	assert.Contains(t, text, "+-- Dirs []uuid = 1 element")
	assert.Contains(t, text, "+-- uuid[0] uuid = 00000000-0000-0000-0000-000000000000")
	assert.Contains(t, text, "+-- Parts[0] part = struct")
}
