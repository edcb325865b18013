package kwire_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/kwire"
)

func TestRequestHeaderTaggedFieldsRoundTrip(t *testing.T) {
	client := "proxy"
	h := kwire.RequestHeader{APIVersion: 1, CorrelationID: 9, ClientID: &client,
		UnknownTags: kwire.UnknownTags{{Tag: 3, Data: []byte{1, 2}}}}
	frame, err := kwire.AppendRequestWithHeader(nil, h, newHeartbeat())
	require.NoError(t, err)
	got, body, err := kwire.ReadRequest(frame, func(key, v int16) (any, error) { return new(heartbeat), nil })
	require.NoError(t, err)
	assert.Equal(t, int16(68), got.APIKey)
	assert.Equal(t, int16(2), got.Version)
	assert.Equal(t, h.UnknownTags, got.UnknownTags)
	again, err := kwire.AppendRequestWithHeader(nil, got, body)
	require.NoError(t, err)
	assert.Equal(t, frame, again)

	key, v, corr, err := kwire.PeekRequest(frame)
	require.NoError(t, err)
	assert.Equal(t, []int{68, 1, 9}, []int{int(key), int(v), int(corr)})
	_, _, _, err = kwire.PeekRequest(frame[:8])
	assert.ErrorIs(t, err, kwire.ErrInvalidLength)
}
