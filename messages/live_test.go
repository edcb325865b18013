package messages_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

func produceFrame(t *testing.T, version int16, acks int16, tid *string, corr int32) []byte {
	t.Helper()
	req := messages.NewProduceRequest()
	req.Acks, req.TransactionalID = acks, tid
	client := "tracker-test"
	h := kwire.RequestHeader{APIVersion: version, CorrelationID: corr, ClientID: &client}
	if version >= 9 {
		h.UnknownTags = kwire.NewUnknownTags(kwire.TaggedField{Tag: 5, Data: []byte{1, 2, 3}}) // skipped on the way to Acks
	}
	frame, err := kwire.AppendRequestWithHeader(nil, h, req)
	require.NoError(t, err)
	return frame
}

// TestTrackerProduceAcks: acks=0 Produce expects no response, at every
// version (Acks moves behind TransactionalId at v3, and compact strings
// and header tags arrive at v9).
func TestTrackerProduceAcks(t *testing.T) {
	txn := "a-transactional-id"
	for v := int16(0); v <= 12; v++ {
		for _, acks := range []int16{0, 1, -1} {
			tr := messages.NewTracker(10)
			var tid *string
			if v >= 3 && acks == -1 {
				tid = &txn
			}
			expect, err := tr.Request(produceFrame(t, v, acks, tid, 1))
			require.NoError(t, err, "v%d acks=%d", v, acks)
			assert.Equal(t, acks != 0, expect, "v%d acks=%d", v, acks)
			assert.Equal(t, map[bool]int{true: 1, false: 0}[acks != 0], tr.InFlight())
		}
	}
	_, err := messages.NewTracker(10).Request(produceFrame(t, 9, 0, &txn, 1)[:20])
	assert.ErrorIs(t, err, kwire.ErrInvalidLength, "a cut frame is refused, not guessed at")
}

func requestFrame(t *testing.T, msg any, version int16, corr int32) []byte {
	t.Helper()
	frame, err := kwire.AppendRequest(nil, msg, version, corr, nil)
	require.NoError(t, err)
	return frame
}

func responseFrame(t *testing.T, msg any, version int16, corr int32) []byte {
	t.Helper()
	frame, err := kwire.AppendResponse(nil, msg, version, corr)
	require.NoError(t, err)
	return frame
}

func TestTrackerPairs(t *testing.T) {
	tr := messages.NewTracker(3)
	for i, r := range []struct {
		msg     any
		version int16
	}{{messages.NewMetadataRequest(), 12}, {messages.NewHeartbeatRequest(), 4}, {messages.NewApiVersionsRequest(), 3}} {
		expect, err := tr.Request(requestFrame(t, r.msg, r.version, int32(10+i)))
		require.NoError(t, err)
		require.True(t, expect)
	}
	// Full: the fourth is refused and not recorded.
	_, err := tr.Request(requestFrame(t, messages.NewHeartbeatRequest(), 4, 99))
	require.ErrorIs(t, err, kwire.ErrTooManyInFlight)

	md := messages.NewMetadataResponse()
	md.Brokers = []messages.MetadataResponseBroker{{NodeID: 1, Host: "h", Port: 9092}}
	req, h, body, err := tr.ReadResponse(responseFrame(t, md, 12, 10))
	require.NoError(t, err)
	assert.Equal(t, kwire.SentRequest{APIKey: 3, APIVersion: 12, CorrelationID: 10, Sent: req.Sent}, req)
	assert.EqualValues(t, 10, h.CorrelationID)
	assert.Equal(t, md.Brokers, body.(*messages.MetadataResponse).Brokers)

	// ApiVersions answered before Heartbeat: decoded, and flagged.
	req, _, body, err = tr.ReadResponse(responseFrame(t, messages.NewApiVersionsResponse(), 3, 12))
	require.ErrorIs(t, err, kwire.ErrOutOfOrder)
	assert.IsType(t, &messages.ApiVersionsResponse{}, body)
	assert.EqualValues(t, 18, req.APIKey)

	_, _, _, err = tr.ReadResponse(responseFrame(t, messages.NewHeartbeatResponse(), 4, 99))
	require.ErrorIs(t, err, kwire.ErrUnknownCorrelation)
	_, _, body, err = tr.ReadResponse(responseFrame(t, messages.NewHeartbeatResponse(), 4, 11))
	require.NoError(t, err)
	assert.IsType(t, &messages.HeartbeatResponse{}, body)
	assert.Zero(t, tr.InFlight())

	// A response that does not decode as its request's API: the pairing
	// is still returned, with the decode error.
	_, err = tr.Request(requestFrame(t, messages.NewMetadataRequest(), 12, 20))
	require.NoError(t, err)
	req, _, _, err = tr.ReadResponse(responseFrame(t, messages.NewHeartbeatResponse(), 0, 20))
	require.Error(t, err)
	var ke *kwire.Error
	assert.True(t, errors.As(err, &ke))
	assert.EqualValues(t, 3, req.APIKey)
}

// TestResponseHeaderTagsRoundTrip: a proxy re-encodes a flexible
// response, header tags included, to the same bytes.
func TestResponseHeaderTagsRoundTrip(t *testing.T) {
	md := messages.NewMetadataResponse()
	md.Brokers = []messages.MetadataResponseBroker{{NodeID: 1, Host: "h", Port: 9092}}
	h := kwire.ResponseHeader{CorrelationID: 5, UnknownTags: kwire.NewUnknownTags(kwire.TaggedField{Tag: 1, Data: []byte("x")})}
	frame, err := kwire.AppendResponseWithHeader(nil, h, md, 12)
	require.NoError(t, err)
	got, body, err := messages.ReadResponse(frame, 3, 12)
	require.NoError(t, err)
	assert.EqualValues(t, 1, got.Version)
	assert.Equal(t, h.UnknownTags, got.UnknownTags)
	again, err := kwire.AppendResponseWithHeader(nil, got, body, 12)
	require.NoError(t, err)
	assert.Equal(t, frame, again)
}

func TestNegotiation(t *testing.T) {
	theirs := []kwire.APIVersionRange{{APIKey: 3, MinVersion: 0, MaxVersion: 20}, {APIKey: 0, MinVersion: 3, MaxVersion: 5}, {APIKey: 9999, MinVersion: 0, MaxVersion: 1}, {APIKey: 1, MinVersion: 14, MaxVersion: 20}}
	ours := []kwire.APIVersionRange{{APIKey: 0, MinVersion: 0, MaxVersion: 12}, {APIKey: 1, MinVersion: 4, MaxVersion: 13}, {APIKey: 3, MinVersion: 0, MaxVersion: 13}}
	assert.Equal(t, []kwire.APIVersionRange{{APIKey: 0, MinVersion: 3, MaxVersion: 5}, {APIKey: 3, MinVersion: 0, MaxVersion: 13}},
		kwire.IntersectVersions(theirs, ours))
	v, ok := kwire.HighestCommonVersion(theirs, ours, 3)
	assert.True(t, ok)
	assert.EqualValues(t, 13, v)
	_, ok = kwire.HighestCommonVersion(theirs, ours, 1)
	assert.False(t, ok, "Fetch 14-20 against 4-13: nothing in common")

	// What kwire speaks: unstable versions only when asked for.
	for _, a := range messages.APIs() {
		if !a.LatestVersionUnstable {
			continue
		}
		stable, ok := kwire.HighestCommonVersion([]kwire.APIVersionRange{{APIKey: a.Key, MaxVersion: 99}}, messages.Versions(false), a.Key)
		if a.MaxVersion > a.MinVersion {
			assert.Equal(t, a.MaxVersion-1, stable, a.Name)
		} else {
			assert.False(t, ok, "%s has no stable version: not offered", a.Name)
		}
		all, _ := kwire.HighestCommonVersion([]kwire.APIVersionRange{{APIKey: a.Key, MaxVersion: 99}}, messages.Versions(true), a.Key)
		assert.Equal(t, a.MaxVersion, all, a.Name)
	}

	resp := messages.NewApiVersionsResponse()
	resp.ApiKeys = []messages.ApiVersionsResponseApiVersion{
		{ApiKey: 3, MinVersion: 0, MaxVersion: 99, UnknownTags: kwire.NewUnknownTags(kwire.TaggedField{Tag: 4, Data: []byte{7}})},
		{ApiKey: 9999, MinVersion: 0, MaxVersion: 1},
		{ApiKey: 18, MinVersion: 0, MaxVersion: 4},
	}
	md, _ := messages.Lookup(3)
	require.True(t, resp.Clamp(nil))
	assert.Equal(t, []messages.ApiVersionsResponseApiVersion{
		{ApiKey: 3, MinVersion: 0, MaxVersion: md.MaxStable(), UnknownTags: kwire.NewUnknownTags(kwire.TaggedField{Tag: 4, Data: []byte{7}})},
		{ApiKey: 18, MinVersion: 0, MaxVersion: 4},
	}, resp.ApiKeys)
	assert.False(t, resp.Clamp(nil), "clamping twice changes nothing")
}

// TestUnsupportedAPIVersions: the hand-written canned answer is the
// frame the generated struct makes, and says what Kafka's does.
func TestUnsupportedAPIVersions(t *testing.T) {
	av := kwire.APIVersionRange{APIKey: 18, MinVersion: 0, MaxVersion: 4}
	frame := kwire.AppendUnsupportedAPIVersions([]byte{0xee}, 77, av)[1:]
	want := messages.NewApiVersionsResponse()
	want.ErrorCode = 35
	want.ApiKeys = []messages.ApiVersionsResponseApiVersion{{ApiKey: 18, MinVersion: 0, MaxVersion: 4}}
	assert.Equal(t, responseFrame(t, want, 0, 77), frame)
	h, body, err := messages.ReadResponse(frame, 18, 0)
	require.NoError(t, err)
	assert.EqualValues(t, 77, h.CorrelationID)
	assert.EqualValues(t, 35, body.(*messages.ApiVersionsResponse).ErrorCode)
}

// TestClampFeatures: a feature named is offered with the levels both the
// given range and the node's have, its finalized level capped alike; one
// whose ranges share no level goes, finalized level too, as does one named
// with Max below Min; others pass untouched.
func TestClampFeatures(t *testing.T) {
	resp := func() *messages.ApiVersionsResponse {
		r := messages.NewApiVersionsResponse()
		r.SupportedFeatures = []messages.ApiVersionsResponseSupportedFeatureKey{
			{Name: "metadata.version", MinVersion: 7, MaxVersion: 33},
			{Name: "group.version", MinVersion: 0, MaxVersion: 1},
		}
		r.FinalizedFeatures = []messages.ApiVersionsResponseFinalizedFeatureKey{
			{Name: "metadata.version", MinVersionLevel: 33, MaxVersionLevel: 33},
			{Name: "group.version", MinVersionLevel: 1, MaxVersionLevel: 1},
		}
		return r
	}

	r := resp()
	assert.True(t, r.ClampFeatures([]messages.FeatureRange{{Name: "metadata.version", Min: 1, Max: 19}}))
	assert.Equal(t, []messages.ApiVersionsResponseSupportedFeatureKey{
		{Name: "metadata.version", MinVersion: 7, MaxVersion: 19}, // not 1: the node has no level below 7
		{Name: "group.version", MinVersion: 0, MaxVersion: 1},
	}, r.SupportedFeatures)
	assert.Equal(t, []messages.ApiVersionsResponseFinalizedFeatureKey{
		{Name: "metadata.version", MinVersionLevel: 19, MaxVersionLevel: 19},
		{Name: "group.version", MinVersionLevel: 1, MaxVersionLevel: 1},
	}, r.FinalizedFeatures)

	// Never above the node's own maximum.
	r = resp()
	assert.False(t, r.ClampFeatures([]messages.FeatureRange{{Name: "metadata.version", Min: 7, Max: 40}}))
	assert.Equal(t, resp(), r)

	// Ranges meeting at one level offer that level.
	r = resp()
	assert.True(t, r.ClampFeatures([]messages.FeatureRange{{Name: "metadata.version", Min: 1, Max: 7}}))
	assert.Equal(t, messages.ApiVersionsResponseSupportedFeatureKey{Name: "metadata.version", MinVersion: 7, MaxVersion: 7}, r.SupportedFeatures[0])
	assert.Equal(t, messages.ApiVersionsResponseFinalizedFeatureKey{Name: "metadata.version", MinVersionLevel: 7, MaxVersionLevel: 7}, r.FinalizedFeatures[0])

	// Ranges sharing no level, a node newer or older than the range
	// named, and a range with Max below Min: the feature goes.
	for _, named := range []messages.FeatureRange{{Min: 1, Max: 6}, {Min: 34, Max: 45}, {Min: 0, Max: -1}} {
		named.Name = "metadata.version"
		r = resp()
		assert.True(t, r.ClampFeatures([]messages.FeatureRange{named}), named)
		assert.Equal(t, []messages.ApiVersionsResponseSupportedFeatureKey{{Name: "group.version", MinVersion: 0, MaxVersion: 1}}, r.SupportedFeatures, named)
		assert.Equal(t, []messages.ApiVersionsResponseFinalizedFeatureKey{{Name: "group.version", MinVersionLevel: 1, MaxVersionLevel: 1}}, r.FinalizedFeatures, named)
	}

	r = resp()
	assert.False(t, r.ClampFeatures(nil))
	assert.Equal(t, resp(), r)
}
