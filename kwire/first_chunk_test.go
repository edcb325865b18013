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

type ptrThenString struct {
	_ struct{} `kafka:"api=1002,versions=0,flexible=0+"`
	P *string  `kafka:"v=0+,nullable=0+"`
	S string   `kafka:"v=0+"`
}

// TestFirstChunkShapedByLastMessage: once a type has been decoded, the
// next decode takes its strings' room in one allocation made before the
// first string, with a *string target in it when the last message took
// one, and without one when it did not.
func TestFirstChunkShapedByLastMessage(t *testing.T) {
	in, err := kwire.Marshal(&twoStrings{A: "payments-consumers", B: "aB3dE5fG7hI9jK1lM3nO5p"}, 0)
	require.NoError(t, err)
	var out twoStrings
	allocs := testing.AllocsPerRun(20, func() {
		require.NoError(t, kwire.Unmarshal(in, &out, 0))
	})
	assert.Equal(t, 1.0, allocs, "two strings, one chunk")
	assert.Equal(t, twoStrings{A: "payments-consumers", B: "aB3dE5fG7hI9jK1lM3nO5p"}, out)

	p := "txn-1"
	withPtr, err := kwire.Marshal(&ptrThenString{P: &p, S: "orders"}, 0)
	require.NoError(t, err)
	var got ptrThenString
	allocs = testing.AllocsPerRun(20, func() {
		require.NoError(t, kwire.Unmarshal(withPtr, &got, 0))
	})
	assert.Equal(t, 1.0, allocs, "the *string target shares the chunk")
	require.NotNil(t, got.P)
	assert.Equal(t, "txn-1", *got.P)
	assert.Equal(t, "orders", got.S)

	// The same type with the *string null: after one decode the hint
	// drops the target, and the chunk alone is allocated.
	null, err := kwire.Marshal(&ptrThenString{S: "orders"}, 0)
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
}
