package kwire_test

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/kwire"
)

type manyBytes struct {
	_ struct{} `kafka:"versions=0"`
	B []int8   `kafka:"v=0+"`
}

type manyTags struct {
	_           struct{} `kafka:"versions=0,flexible=0+"`
	N           int32    `kafka:"v=0+"`
	UnknownTags kwire.UnknownTags
}

// arrayOf is a manyBytes body of n elements (a classic int32 count).
func arrayOf(n int) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(n)), make([]byte, n)...)
}

// tagsOf is a manyTags body with n empty tagged fields (tags 0..n-1).
func tagsOf(n int) []byte {
	b := binary.AppendUvarint([]byte{0, 0, 0, 7}, uint64(n))
	for i := range n {
		b = binary.AppendUvarint(b, uint64(i))
		b = append(b, 0)
	}
	return b
}

// Frames Kafka's reader refuses and kwire's default decoder reads: an
// array of 1,000,001 elements and a tagged section of 10,001 fields,
// their bytes all there. Decoder.KafkaLimits refuses them, naming the
// field and the offset of the count; one element or field fewer passes.
func TestKafkaLimits(t *testing.T) {
	limits := kwire.Decoder{KafkaLimits: true}
	for _, c := range []struct {
		name       string
		body       []byte
		msg        any
		refused    bool
		wantDetail string
	}{
		{"1,000,000 elements", arrayOf(1_000_000), &manyBytes{}, false, ""},
		{"1,000,001 elements", arrayOf(1_000_001), &manyBytes{}, true, "kwire: unmarshal kwire_test.manyBytes.B at offset 0: past Kafka's reader limits: 1000001 elements: Kafka's reader refuses arrays of more than 1000000 (Decoder.KafkaLimits)"},
		{"10,000 tagged fields", tagsOf(10_000), &manyTags{}, false, ""},
		{"10,001 tagged fields", tagsOf(10_001), &manyTags{}, true, "kwire: unmarshal kwire_test.manyTags at offset 4: past Kafka's reader limits: 10001 tagged fields: Kafka's reader refuses sections of more than 10000 (Decoder.KafkaLimits)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.NoError(t, kwire.Unmarshal(c.body, c.msg, 0), "kwire's default decoder reads it")
			err := limits.Unmarshal(c.body, c.msg, 0)
			if !c.refused {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.True(t, errors.Is(err, kwire.ErrKafkaLimit))
			assert.True(t, errors.Is(err, kwire.ErrTooLarge), "one sentinel for every decoding limit")
			assert.Equal(t, c.wantDetail, err.Error())
		})
	}
}
