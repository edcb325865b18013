package proxy

import (
	"errors"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/app/trafficlog"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// pastKafkaLimits is an ApiVersions v3 request whose body carries 10,001
// empty tagged fields: kwire's default decoder reads it, Kafka's reader
// (4.4 on) refuses it.
func pastKafkaLimits(t *testing.T) []byte {
	fields := make([]kwire.TaggedField, 10_001)
	for i := range fields {
		fields[i] = kwire.TaggedField{Tag: uint32(i), Data: []byte{}}
	}
	client := "c"
	frame, err := kwire.AppendRequest(nil, &messages.ApiVersionsRequest{ClientSoftwareName: "x", ClientSoftwareVersion: "1", UnknownTags: kwire.NewUnknownTags(fields...)}, 3, 1, &client)
	require.NoError(t, err)
	_, _, err = messages.ReadRequest(frame)
	require.NoError(t, err, "kwire's default decoder reads it")
	return frame
}

// TestProxyKafkaLimits: by default the proxy holds requests to Kafka's
// reader limits: one past them is logged, naming the limit, and its
// connection closed, the frame not relayed. PastKafkaLimits relays it.
func TestProxyKafkaLimits(t *testing.T) {
	frame := pastKafkaLimits(t)
	for _, past := range []bool{false, true} {
		up := startUpstream(t)
		log := &syncBuffer{}
		p := startProxy(t, Config{Upstream: up.ln.Addr().String(), PastKafkaLimits: past}, log, trafficlog.Options{})
		c, err := dialT(t, p.Addr().String())
		require.NoError(t, err)
		if past {
			up.answers <- frameOf(kwire.AppendResponse(nil, &messages.ApiVersionsResponse{}, 3, 1))
		}
		_, err = c.Write(frame)
		require.NoError(t, err)
		require.NoError(t, c.SetReadDeadline(time.Now().Add(10*time.Second)))
		if past {
			readFrame(t, c)
		} else {
			_, err := c.Read(make([]byte, 1))
			assert.True(t, errors.Is(err, io.EOF), "the proxy closes the connection: %v", err)
		}
		c.Close()
		require.NoError(t, p.close())
		if past {
			assert.Equal(t, frame, up.received(), "relayed with PastKafkaLimits")
			assert.NotContains(t, log.String(), "Kafka's reader")
			continue
		}
		assert.Empty(t, up.received(), "not relayed")
		assert.Contains(t, log.String(), "past Kafka's reader limits: 10001 tagged fields: Kafka's reader refuses sections of more than 10000 (Decoder.KafkaLimits)")
		assert.Contains(t, log.String(), "a request past Kafka's reader limits, not relayed: the broker refuses it")
	}
}
