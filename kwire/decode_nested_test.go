package kwire_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/internal/wiretest"
	"github.com/kwirelabs/kwire/kwire"
)

// A tree deeper than decode's stack of parents (two levels), with nested
// structs, defaults for tagged fields not sent and empty and null arrays
// between the elements, so that decoding enters, leaves and falls back to
// recursion at every level.
type deep struct {
	_      struct{}    `kafka:"api=1001,versions=0-1,flexible=1+"`
	Levels []deepLevel `kafka:"v=0+"`
	After  int16       `kafka:"v=0+"`
}

type deepLevel struct {
	Name  string    `kafka:"v=0+"`
	Inner deepInner `kafka:"v=0+"`
	Mid   []deepMid `kafka:"v=0+,nullable=0+"`
	Tag   int32     `kafka:"v=1+,tag=0,tagged=1+,default=-1"`
	Last  int8      `kafka:"v=0+"`
}

type deepInner struct {
	A   int32  `kafka:"v=0+"`
	B   string `kafka:"v=0+"`
	Def int64  `kafka:"v=1+,tag=0,tagged=1+,default=-7"`
}

type deepMid struct {
	Leaves []deepLeaf `kafka:"v=0+"`
	ID     int32      `kafka:"v=0+"`
}

type deepLeaf struct {
	Inner deepInner `kafka:"v=0+"`
	Names []string  `kafka:"v=0+"`
	X     int64     `kafka:"v=0+"`
}

func deepValue() *deep {
	leaf := func(i int) deepLeaf {
		return deepLeaf{Inner: deepInner{A: int32(i), B: "leaf", Def: -7}, Names: []string{"a", "bc"}, X: int64(i) << 40}
	}
	return &deep{
		Levels: []deepLevel{
			{Name: "one", Inner: deepInner{A: 1, B: "x", Def: -7}, Mid: []deepMid{
				{Leaves: []deepLeaf{leaf(1), leaf(2)}, ID: 10},
				{Leaves: []deepLeaf{}, ID: 11},
				{Leaves: []deepLeaf{leaf(3)}, ID: 12},
			}, Tag: -1, Last: 5},
			{Name: "two", Inner: deepInner{Def: -7}, Mid: nil, Tag: -1, Last: 6},
			{Name: "", Inner: deepInner{A: 3, Def: -7}, Mid: []deepMid{{Leaves: []deepLeaf{leaf(4)}, ID: 13}}, Tag: -1, Last: 7},
		},
		After: 99,
	}
}

func TestDecodeNestedPastTheStack(t *testing.T) {
	for _, v := range []int16{0, 1} {
		want := deepValue()
		frame, err := kwire.AppendResponse(nil, want, v, 1)
		require.NoError(t, err)
		var got deep
		_, err = kwire.ReadResponse(frame, &got, v)
		require.NoError(t, err)
		assert.Equal(t, want, &got, "v%d", v)

		// Every prefix and every byte changed: the read and the trace
		// (the general path) give the same verdict, path and offset.
		for n := 4; n < len(frame); n++ {
			cut := append([]byte(nil), frame[:n]...)
			cut[0], cut[1], cut[2], cut[3] = 0, 0, byte((n-4)>>8), byte(n-4)
			_, readErr := kwire.ReadResponse(cut, new(deep), v)
			_, traceErr := kwire.TraceResponse(cut, new(deep), v)
			require.Error(t, readErr, "v%d, %d bytes", v, n)
			wiretest.SameVerdict(t, cut, readErr, traceErr)
		}
		for i := 4; i < len(frame); i++ {
			for _, b := range []byte{0x00, 0x01, 0x02, 0x7f, 0x80, 0xff} {
				bad := append([]byte(nil), frame...)
				bad[i] = b
				_, readErr := kwire.ReadResponse(bad, new(deep), v)
				_, traceErr := kwire.TraceResponse(bad, new(deep), v)
				wiretest.SameVerdict(t, bad, readErr, traceErr)
			}
		}
	}
}
