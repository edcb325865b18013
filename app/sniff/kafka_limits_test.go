package sniff_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/app/sniff"
	"github.com/kwirelabs/kwire/app/sniff/capturetest"
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
