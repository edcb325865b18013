package kwire_test

import (
	"testing"

	"github.com/kwirelabs/kwire/internal/wiretest"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestErrorPathAndOffset(t *testing.T) {
	// Topics[1].Partitions claims 3 int32s but has 2.
	in := wiretest.Hex(t, "00000002 0001 61 00000000 0001 62 00000003 00000001 00000002")
	err := kwire.Unmarshal(in, new(outer), 0)
	var kerr *kwire.Error
	require.ErrorAs(t, err, &kerr)
	assert.ErrorIs(t, err, kwire.ErrInvalidLength)
	assert.Equal(t, "Topics[1].Partitions", kerr.Path)
	assert.Equal(t, 14, kerr.Offset, "where the bad length starts")
}
