package kwire_test

import (
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/internal/wiretest"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// referenceRequest is the 55-byte frame of the reference page
// (shared/spec/ConsumerGroupHeartbeat-minimal-instance.txt), row by row as
// its object tree lays it out.
const referenceRequest = `
00000033                         # size 51
0044 0001 00000000 0000 00       # header v2: key 68, v1, corr 0, client "" (int16), no tags
01 01 00000000 01 01 00000000    # GroupId MemberId MemberEpoch InstanceId RackId RebalanceTimeoutMs
02 01                            # SubscribedTopicNames: 1 element, ""
01 01                            # SubscribedTopicRegex ServerAssignor
02 00000000000000000000000000000000 02 00000000 00   # TopicPartitions[0]: TopicId, Partitions [0], tags
00                               # body tags`

// referenceResponse is the page's 50-byte response with the one change
// Kafka makes on the wire: the nullable struct Assignment is preceded by
// an int8 presence marker (01 at 0x19), which the page leaves out. Apache
// Kafka's generated code and franz-go's kmsg both write it, so the frame is
// 51 bytes and the size prefix 47 rather than 46.
const referenceResponse = `
0000002f                         # size 47 (the page: 46)
00000000 00                      # header v1: corr 0, no tags
00000000 0000 01 01              # ThrottleTimeMs ErrorCode ErrorMessage MemberId
00000000 00000000                # MemberEpoch HeartbeatIntervalMs
01                               # Assignment presence marker (not on the page)
02 00000000000000000000000000000000 02 00000000 00   # Assignment.TopicPartitions[0]
00                               # Assignment tags
00                               # body tags`

func TestReferenceRequestBytes(t *testing.T) {
	want := wiretest.Hex(t, referenceRequest)
	require.Len(t, want, 55)

	var req messages.ConsumerGroupHeartbeatRequest
	require.NoError(t, kwire.FillMinimal(&req, 1))
	empty := ""
	got, err := kwire.AppendRequest(nil, &req, 1, 0, &empty)
	require.NoError(t, err)
	assert.Equal(t, hex.EncodeToString(want), hex.EncodeToString(got))

	hdr, body, err := kwire.ReadRequest(got, func(key, version int16) (any, error) {
		assert.Equal(t, int16(68), key)
		assert.Equal(t, int16(1), version)
		return new(messages.ConsumerGroupHeartbeatRequest), nil
	})
	require.NoError(t, err)
	assert.Equal(t, int16(2), hdr.Version)
	assert.Equal(t, "", *hdr.ClientID)
	assert.Equal(t, &req, body)
}

func TestReferenceResponseBytes(t *testing.T) {
	want := wiretest.Hex(t, referenceResponse)
	require.Len(t, want, 51, "the page's 50 bytes plus the presence marker")

	var resp messages.ConsumerGroupHeartbeatResponse
	require.NoError(t, kwire.FillMinimal(&resp, 1))
	got, err := kwire.AppendResponse(nil, &resp, 1, 0)
	require.NoError(t, err)
	assert.Equal(t, hex.EncodeToString(want), hex.EncodeToString(got))

	var back messages.ConsumerGroupHeartbeatResponse
	hdr, err := kwire.ReadResponse(got, &back, 1)
	require.NoError(t, err)
	assert.Equal(t, int16(1), hdr.Version)
	assert.Equal(t, resp, back)
}

// TestHeaderVersions: the header follows Kafka's rules, including its two
// exceptions: ControlledShutdown v0 has request header v0 (no client id),
// and ApiVersions responses always have header v0.
func TestHeaderVersions(t *testing.T) {
	client := "c"
	cases := []struct {
		name       string
		msg        any
		version    int16
		response   bool
		headerSize int
	}{
		{"ControlledShutdown v0 request: header v0", &messages.ControlledShutdownRequest{}, 0, false, 8},
		{"ControlledShutdown v1 request: header v1", &messages.ControlledShutdownRequest{}, 1, false, 8 + 3},
		{"ControlledShutdown v3 request: header v2", &messages.ControlledShutdownRequest{}, 3, false, 8 + 3 + 1},
		{"Heartbeat v4 request: header v2", &messages.HeartbeatRequest{}, 4, false, 12},
		{"Heartbeat v3 response: header v0", &messages.HeartbeatResponse{}, 3, true, 4},
		{"Heartbeat v4 response: header v1", &messages.HeartbeatResponse{}, 4, true, 5},
		{"ApiVersions v3 request: header v2", &messages.ApiVersionsRequest{}, 3, false, 12},
		{"ApiVersions v3 response: header v0 even when flexible", &messages.ApiVersionsResponse{}, 3, true, 4},
	}
	for _, c := range cases {
		body, err := kwire.Marshal(c.msg, c.version)
		require.NoError(t, err, c.name)
		var frame []byte
		if c.response {
			frame, err = kwire.AppendResponse(nil, c.msg, c.version, 7)
		} else {
			frame, err = kwire.AppendRequest(nil, c.msg, c.version, 7, &client)
		}
		require.NoError(t, err, c.name)
		assert.Equal(t, 4+c.headerSize+len(body), len(frame), c.name)
		if c.response {
			_, err := kwire.ReadResponse(frame, c.msg, c.version)
			assert.NoError(t, err, c.name)
			continue
		}
		hdr, _, err := messages.ReadRequest(frame)
		require.NoError(t, err, c.name)
		assert.Equal(t, int32(7), hdr.CorrelationID, c.name)
		if c.headerSize == 8 {
			assert.Nil(t, hdr.ClientID, c.name)
		} else {
			assert.Equal(t, client, *hdr.ClientID, c.name)
		}
	}
}

// TestFrameErrors: a size prefix that does not match, an unknown API key,
// a version the API lacks.
func TestFrameErrors(t *testing.T) {
	var req messages.ConsumerGroupHeartbeatRequest
	require.NoError(t, kwire.FillMinimal(&req, 1))
	empty := ""
	frame, err := kwire.AppendRequest(nil, &req, 1, 0, &empty) // the reference page's frame
	require.NoError(t, err)
	_, _, err = messages.ReadRequest(frame[:len(frame)-1])
	assert.ErrorIs(t, err, kwire.ErrInvalidLength)
	_, _, err = messages.ReadRequest(frame[:3])
	assert.ErrorIs(t, err, kwire.ErrTruncated)

	bad := append([]byte(nil), frame...)
	bad[4], bad[5] = 0x7f, 0x00 // API key 32512
	_, _, err = messages.ReadRequest(bad)
	assert.ErrorIs(t, err, kwire.ErrUnknownAPI)
	assert.NotErrorIs(t, err, kwire.ErrUnsupportedVersion)
	bad = append([]byte(nil), frame...)
	bad[7] = 9 // ConsumerGroupHeartbeat v9
	_, _, err = messages.ReadRequest(bad)
	assert.ErrorIs(t, err, kwire.ErrUnsupportedVersion)

	// An error inside the body names the field and the frame offset.
	bad = append([]byte(nil), frame...)
	bad[0x1f] = 0x7f // TopicPartitions claims 126 elements
	_, _, err = messages.ReadRequest(bad)
	var kerr *kwire.Error
	require.ErrorAs(t, err, &kerr)
	assert.Equal(t, "TopicPartitions", kerr.Path)
	assert.Equal(t, 0x1f, kerr.Offset)
	assert.ErrorIs(t, err, kwire.ErrInvalidLength)
}
