package kwire_test

import (
	"math/rand"
	"reflect"
	"testing"

	"github.com/kwirelabs/kwire/internal/wiretest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/kwire"
)

// TestNotAMessage: every entry point refuses what is not a message with
// the same error, whose detail says what it takes: a value it only reads
// may be a struct or a non-nil pointer to one, one it writes must be a
// non-nil pointer, and one whose type is all it needs may also be a nil
// pointer or a reflect.Type.
func TestNotAMessage(t *testing.T) {
	const (
		reads  = "need a struct or a non-nil pointer to one"
		writes = "need a non-nil pointer to a struct"
		types  = "need a struct, a pointer to one, or a reflect.Type of either"
	)
	var nilPtr *wiretest.Heartbeat
	body := func(msg any) func(int16, int16) (any, error) {
		return func(int16, int16) (any, error) { return msg, nil }
	}
	frame, err := kwire.AppendRequest(nil, wiretest.NewHeartbeat(), 1, 7, nil)
	require.NoError(t, err)
	resp, err := kwire.AppendResponse(nil, wiretest.NewHeartbeat(), 1, 7)
	require.NoError(t, err)
	noWalk := func(*kwire.Path, *kwire.Field, reflect.Value) error { return nil }
	for _, c := range []struct {
		name, want string
		call       func(msg any) error
		refused    []any
	}{
		{"Marshal", reads, func(m any) error { _, err := kwire.Marshal(m, 1); return err }, []any{nil, 42, nilPtr}},
		{"Append", reads, func(m any) error { _, err := kwire.Append(nil, m, 1); return err }, []any{nil, 42, nilPtr}},
		{"Size", reads, func(m any) error { _, err := kwire.Size(m, 1); return err }, []any{nil, 42, nilPtr}},
		{"AppendRequest", reads, func(m any) error { _, err := kwire.AppendRequest(nil, m, 1, 1, nil); return err }, []any{nil, 42, nilPtr}},
		{"AppendRequestWithHeader", reads, func(m any) error {
			_, err := kwire.AppendRequestWithHeader(nil, kwire.RequestHeader{APIVersion: 1}, m)
			return err
		}, []any{nil, 42, nilPtr}},
		{"AppendResponse", reads, func(m any) error { _, err := kwire.AppendResponse(nil, m, 1, 1); return err }, []any{nil, 42, nilPtr}},
		{"AppendResponseWithHeader", reads, func(m any) error {
			_, err := kwire.AppendResponseWithHeader(nil, kwire.ResponseHeader{}, m, 1)
			return err
		}, []any{nil, 42, nilPtr}},
		{"LayoutRequest", reads, func(m any) error { _, _, err := kwire.LayoutRequest(m, 1, 1, nil); return err }, []any{nil, 42, nilPtr}},
		{"LayoutResponse", reads, func(m any) error { _, _, err := kwire.LayoutResponse(m, 1, 1); return err }, []any{nil, 42, nilPtr}},
		{"TraceRequest", reads, func(m any) error { _, err := kwire.TraceRequest(frame, body(m)); return err }, []any{nil, 42, nilPtr}},
		{"TraceResponse", reads, func(m any) error { _, err := kwire.TraceResponse(resp, m, 1); return err }, []any{nil, 42, nilPtr}},
		{"Walk", reads, func(m any) error { return kwire.Walk(m, 1, noWalk) }, []any{nil, 42, nilPtr}},
		{"Unmarshal", writes, func(m any) error { return kwire.Unmarshal(nil, m, 1) }, []any{nil, 42, nilPtr, wiretest.Heartbeat{}}},
		{"Decoder.Unmarshal", writes, func(m any) error { return kwire.Decoder{Exact: true}.Unmarshal(nil, m, 1) }, []any{nil, 42, nilPtr, wiretest.Heartbeat{}}},
		{"ReadRequest", writes, func(m any) error { _, _, err := kwire.ReadRequest(frame, body(m)); return err }, []any{nil, 42, nilPtr, wiretest.Heartbeat{}}},
		{"ReadResponse", writes, func(m any) error { _, err := kwire.ReadResponse(resp, m, 1); return err }, []any{nil, 42, nilPtr, wiretest.Heartbeat{}}},
		{"FillMinimal", writes, func(m any) error { return kwire.FillMinimal(m, 1) }, []any{nil, 42, nilPtr, wiretest.Heartbeat{}}},
		{"FillRandom", writes, func(m any) error {
			return kwire.FillRandom(rand.New(rand.NewSource(1)), m, 1, kwire.RandomOptions{})
		}, []any{nil, 42, nilPtr, wiretest.Heartbeat{}}},
		{"Validate", types, func(m any) error { return kwire.Validate(m) }, []any{nil, 42, reflect.TypeOf(42)}},
		{"Describe", types, func(m any) error { _, err := kwire.MessageInfoOf(m); return err }, []any{nil, 42, reflect.TypeOf(42)}},
		{"SchemaOf", types, func(m any) error { _, err := kwire.SchemaOf(m, 1); return err }, []any{nil, 42, reflect.TypeOf(42)}},
	} {
		for _, m := range c.refused {
			err := c.call(m)
			var e *kwire.Error
			if assert.ErrorAs(t, err, &e, "%s(%#v)", c.name, m) {
				assert.ErrorIs(t, err, kwire.ErrNotAMessage, "%s(%#v)", c.name, m)
				assert.Equal(t, c.want, e.Detail, "%s(%#v)", c.name, m)
				assert.Equal(t, -1, e.Offset, "%s(%#v)", c.name, m)
			}
		}
		if c.want == types { // a nil pointer names its type
			assert.NoError(t, c.call(nilPtr), c.name)
		}
	}

	// A struct that names no API key is a message body, but not a frame's.
	_, err = kwire.AppendRequest(nil, &noAPI{}, 0, 1, nil)
	assert.ErrorIs(t, err, kwire.ErrNotAMessage)
	assert.ErrorContains(t, err, "the struct names no API key")
}

// noAPI is a message body that names no API key.
type noAPI struct {
	N int32 `kafka:"v=0+"`
}
