package kwire_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/kwire"
)

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
