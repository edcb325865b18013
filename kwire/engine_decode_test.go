package kwire_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/internal/wiretest"
	"github.com/kwirelabs/kwire/kwire"
)

type wideElem struct {
	A int16 `kafka:"v=0+"`
	B int16 `kafka:"v=0+"`
}

// An array length whose bytes (length times the element's smallest wire
// size) pass what an int holds on a 32-bit machine is refused as too long
// for the input, as it is on a 64-bit one: no guard may multiply in an
// int and overflow.
func TestDecodeArrayLengthPastTheWord(t *testing.T) {
	type structs struct {
		_     struct{}   `kafka:"versions=0-1,flexible=1+"`
		Elems []wideElem `kafka:"v=0+"`
	}
	type strs struct {
		_     struct{} `kafka:"versions=0-1,flexible=1+"`
		Elems []string `kafka:"v=0+"`
	}
	type ints struct {
		_     struct{} `kafka:"versions=0-1,flexible=1+"`
		Elems []int64  `kafka:"v=0+"`
	}
	zeros := make([]byte, 16)
	for _, tc := range []struct {
		name   string
		msg    any
		v      int16
		length []byte
	}{
		// 0x40000001 elements of 4 bytes: 2^32+4, 4 in 32 bits.
		{"structs", new(structs), 0, []byte{0x40, 0, 0, 1}},
		// 0x80000001 elements of 2 bytes: 2^32+2.
		{"strings", new(strs), 0, []byte{0x80, 0, 0, 1}},
		{"strings", new(strs), 0, []byte{0x7f, 0xff, 0xff, 0xff}},
		{"int64s", new(ints), 0, []byte{0x20, 0, 0, 1}},
		// Compact: 2^32-2 elements, which no 32-bit int holds.
		{"structs", new(structs), 1, []byte{0xff, 0xff, 0xff, 0xff, 0x0f}},
		{"strings", new(strs), 1, []byte{0xff, 0xff, 0xff, 0xff, 0x0f}},
		{"strings", new(strs), 1, []byte{0x81, 0x80, 0x80, 0x80, 0x08}},
		{"int64s", new(ints), 1, []byte{0x82, 0x80, 0x80, 0x80, 0x02}},
	} {
		body := append(append([]byte(nil), tc.length...), zeros...)
		err := kwire.Unmarshal(body, tc.msg, tc.v)
		require.ErrorIs(t, err, kwire.ErrInvalidLength, "%s v%d %x", tc.name, tc.v, tc.length)
		require.ErrorContains(t, err, "Elems", "%s v%d %x", tc.name, tc.v, tc.length)
	}
}

// A tagged field's size or a tag section's count past 2^31 is refused as
// too long for the input, not read as a negative int.
func TestDecodeTagSizePastTheWord(t *testing.T) {
	type tagged struct {
		_ struct{} `kafka:"versions=0,flexible=0+"`
		N int32    `kafka:"v=0+,tag=0,tagged=0+"`
	}
	for _, body := range [][]byte{
		{1, 0, 0x80, 0x80, 0x80, 0x80, 0x08, 0, 0, 0, 0}, // tag 0 of 2^31 bytes
		{1, 5, 0xff, 0xff, 0xff, 0xff, 0x0f, 0, 0, 0, 0}, // tag 5 of 2^32-1 bytes
		{0x80, 0x80, 0x80, 0x80, 0x08, 0, 0, 0, 0, 0, 0}, // 2^31 tagged fields
	} {
		err := kwire.Unmarshal(body, new(tagged), 0)
		require.ErrorIs(t, err, kwire.ErrInvalidLength, "%x", body)
	}
}

// Each type of message names its own strings, so that the plans' string
// hints (what the last decode of the type used) do not mix between tests.
type twoStrings struct {
	_ struct{} `kafka:"api=1001,versions=0,flexible=0+"`
	A string   `kafka:"v=0+"`
	B string   `kafka:"v=0+"`
}

type stringThenPtr struct {
	_ struct{} `kafka:"api=1002,versions=0,flexible=0+"`
	S string   `kafka:"v=0+"`
	P *string  `kafka:"v=0+,nullable=0+"`
}

// TestFirstChunkShapedByLastMessage: once a type has been decoded, the
// next decode takes its strings' room in one allocation made before the
// first string, with a *string target in it when the last message took
// one. The cases are ones a decode without the hint makes two
// allocations for: strings past the 64 bytes of a first chunk taken by
// the first string, and a *string met after a string has taken the
// chunk.
func TestFirstChunkShapedByLastMessage(t *testing.T) {
	a, b := "payments-consumers-eu-west-1-primary-00", "aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5zA7"
	in, err := kwire.Marshal(&twoStrings{A: a, B: b}, 0)
	require.NoError(t, err)
	var out twoStrings
	allocs := testing.AllocsPerRun(20, func() {
		require.NoError(t, kwire.Unmarshal(in, &out, 0))
	})
	assert.Equal(t, 1.0, allocs, "two strings, one chunk")
	assert.Equal(t, twoStrings{A: a, B: b}, out)

	p := "txn-1"
	withPtr, err := kwire.Marshal(&stringThenPtr{P: &p, S: "orders"}, 0)
	require.NoError(t, err)
	var got stringThenPtr
	allocs = testing.AllocsPerRun(20, func() {
		require.NoError(t, kwire.Unmarshal(withPtr, &got, 0))
	})
	assert.Equal(t, 1.0, allocs, "the *string target shares the chunk")
	require.NotNil(t, got.P)
	assert.Equal(t, "txn-1", *got.P)
	assert.Equal(t, "orders", got.S)

	// The same type with the *string null: still one allocation. (After
	// one decode the hint drops the target, so the chunk is allocated
	// alone; an object count cannot see that, the chunk and the chunk
	// with a target being one object each.)
	null, err := kwire.Marshal(&stringThenPtr{S: "orders"}, 0)
	require.NoError(t, err)
	allocs = testing.AllocsPerRun(20, func() {
		require.NoError(t, kwire.Unmarshal(null, &got, 0))
	})
	assert.Equal(t, 1.0, allocs)
	assert.Nil(t, got.P)
	assert.Equal(t, "orders", got.S)
}

// TestFirstChunkBoundedByInputAndBudget: a hint from a message with long
// strings neither sizes a short message's chunk past its own bytes nor
// fails a decode whose budget it exceeds; the strings then take chunks as
// they need them, and the budget is still enforced on what they take.
func TestFirstChunkBoundedByInputAndBudget(t *testing.T) {
	long := string(make([]byte, 3000))
	big, err := kwire.Marshal(&twoStrings{A: long, B: long}, 0)
	require.NoError(t, err)
	var out twoStrings
	require.NoError(t, kwire.Unmarshal(big, &out, 0)) // the hint is now 4,096 bytes

	small, err := kwire.Marshal(&twoStrings{A: "a", B: "bc"}, 0)
	require.NoError(t, err)
	require.NoError(t, kwire.Decoder{MaxAlloc: 8}.Unmarshal(small, &out, 0), "3 string bytes fit a budget of 8")
	assert.Equal(t, twoStrings{A: "a", B: "bc"}, out)

	require.NoError(t, kwire.Unmarshal(big, &out, 0))
	err = kwire.Decoder{MaxAlloc: 1000}.Unmarshal(big, &out, 0)
	assert.True(t, errors.Is(err, kwire.ErrTooLarge), "%v", err)

	// One string, which the hinted chunk holds whole: the budget
	// refuses the chunk itself, not only a string past it.
	one, err := kwire.Marshal(&twoStrings{A: long}, 0)
	require.NoError(t, err)
	require.NoError(t, kwire.Unmarshal(one, &out, 0)) // the hint is now 3,000 bytes
	err = kwire.Decoder{MaxAlloc: 1000}.Unmarshal(one, &out, 0)
	assert.True(t, errors.Is(err, kwire.ErrTooLarge), "%v", err)
}

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
