package sniff_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/app/sniff"
	"github.com/kwirelabs/kwire/app/sniff/capturetest"
	"github.com/kwirelabs/kwire/gen"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// TestSniffNamesKafkaLimits: a request past Kafka's reader limits (an
// ApiVersions v3 body with 10,001 tagged fields) is decoded and shown, and
// its record says that Kafka refuses it; the answer, within them, says
// nothing of the kind.
func TestSniffNamesKafkaLimits(t *testing.T) {
	fields := make([]kwire.TaggedField, 10_001)
	for i := range fields {
		fields[i] = kwire.TaggedField{Tag: uint32(i), Data: []byte{}}
	}
	client := "c"
	req, err := kwire.AppendRequest(nil, &messages.ApiVersionsRequest{ClientSoftwareName: "x", ClientSoftwareVersion: "1", UnknownTags: kwire.NewUnknownTags(fields...)}, 3, 1, &client)
	require.NoError(t, err)
	resp, err := kwire.AppendResponse(nil, &messages.ApiVersionsResponse{}, 3, 1)
	require.NoError(t, err)

	c := capturetest.New()
	conn := c.Dial("10.0.0.5:40001", "10.0.0.9:9092", true)
	conn.Send(true, req, 1460)
	conn.Send(false, resp, 1460)
	conn.Close()
	var recs []*sniff.Record
	_, err = sniff.Read(bytes.NewReader(c.Pcap()), sniff.Options{}, func(r *sniff.Record) {
		if r.Kind == sniff.Request || r.Kind == sniff.Response {
			cp := *r
			recs = append(recs, &cp)
		}
	})
	require.NoError(t, err)
	require.Len(t, recs, 2)
	assert.NoError(t, recs[0].Err)
	assert.IsType(t, &messages.ApiVersionsRequest{}, recs[0].Msg, "decoded all the same")
	assert.Contains(t, recs[0].Note, "past Kafka's reader limits: Kafka refuses this frame (10001 tagged fields: Kafka's reader refuses sections of more than 10000 (Decoder.KafkaLimits))")
	assert.False(t, strings.Contains(recs[1].Note, "Kafka's reader"), recs[1].Note)
}

// TestSniffClientInstanceID: with the KIP-1313 fixture as a dialect, a
// connection whose first request names the client and its instance and
// whose second names neither: both requests and both responses carry
// the two ids.
func TestSniffClientInstanceID(t *testing.T) {
	apis, err := gen.LoadAPIs("../../gen/testdata/kip1313")
	require.NoError(t, err)
	reg := messages.Default.Clone()
	_, err = reg.Replace(apis[0])
	require.NoError(t, err)
	client := "kip-client"
	id := kwire.UUID{0xc0, 15: 0xff}
	c := capturetest.New()
	conn := c.Dial("10.0.0.5:40001", "10.0.0.9:9092", true)
	for corr, h := range []kwire.RequestHeader{
		{APIVersion: 1, CorrelationID: 0, ClientID: &client, ClientInstanceID: id},
		{APIVersion: 1, CorrelationID: 1},
	} {
		req, err := kwire.AppendRequestWithHeader(nil, h, apis[0].NewRequest())
		require.NoError(t, err)
		resp, err := kwire.AppendResponse(nil, apis[0].NewResponse(), 1, int32(corr))
		require.NoError(t, err)
		conn.Send(true, req, 1460)
		conn.Send(false, resp, 1460)
	}
	conn.Close()
	n := 0
	_, err = sniff.Read(bytes.NewReader(c.Pcap()), sniff.Options{Registry: reg}, func(r *sniff.Record) {
		if r.Kind != sniff.Request && r.Kind != sniff.Response {
			return
		}
		n++
		assert.NoError(t, r.Err)
		if assert.NotNil(t, r.ClientID, "%s corr %d", r.Kind, r.CorrelationID) {
			assert.Equal(t, client, *r.ClientID)
		}
		assert.Equal(t, id, r.ClientInstanceID, "%s corr %d", r.Kind, r.CorrelationID)
	})
	require.NoError(t, err)
	assert.Equal(t, 4, n)
}
