package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/kerr"
	"github.com/kwirelabs/kwire/kwire/record"
	"github.com/kwirelabs/kwire/messages"
)

func TestDecodeJSONRequest(t *testing.T) {
	// The reference page's ConsumerGroupHeartbeat v1 request.
	frameHex := "00000033 00440001 00000000 0000 00 0101 00000000 0101 00000000 0201 0101 02" +
		strings.Repeat("00", 16) + "02 00000000 00 00"
	var out bytes.Buffer
	require.NoError(t, run([]string{"decode", "-json", frameHex}, &out))
	assert.Equal(t, `{"dir":"request","api":"ConsumerGroupHeartbeat","key":68,"version":1,"correlation_id":0,"client_id":"",`+
		`"summary":"ConsumerGroupHeartbeatRequest v1 InstanceID=\"\" RackID=\"\" SubscribedTopicRegex=\"\" ServerAssignor=\"\" SubscribedTopicNames=1 TopicPartitions=1",`+
		`"body":{"GroupID":"","MemberID":"","MemberEpoch":0,"InstanceID":"","RackID":"","RebalanceTimeoutMs":0,"SubscribedTopicNames":[""],`+
		`"SubscribedTopicRegex":"","ServerAssignor":"","TopicPartitions":[{"TopicID":"00000000-0000-0000-0000-000000000000","Partitions":[0]}]}}`+"\n", out.String())
}

func TestDecodeJSONResponseWithRecordsAndErrors(t *testing.T) {
	recs, err := record.Build([]record.Record{{Key: []byte("k"), Value: []byte("v"), Timestamp: 5}})
	require.NoError(t, err)
	resp := &messages.FetchResponse{Responses: []messages.FetchResponseFetchableTopicResponse{{Topic: "t",
		Partitions: []messages.FetchResponsePartitionData{
			{PartitionIndex: 0, ErrorCode: int16(kerr.NotLeaderOrFollower)},
			{PartitionIndex: 1, HighWatermark: 1, Records: recs},
		}}}}
	frame, err := kwire.AppendResponse(nil, resp, 4, 77)
	require.NoError(t, err)

	var out bytes.Buffer
	require.NoError(t, run([]string{"decode", "-json", "-response", "-k", "1", "-v", "4", hex.EncodeToString(frame)}, &out))
	var got struct {
		Dir, API      string
		Key, Version  int16
		CorrelationID int32 `json:"correlation_id"`
		Summary       string
		Errors        []string
		Body          struct {
			Responses []struct {
				Partitions []struct{ Records json.RawMessage }
			}
		}
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &got), out.String())
	assert.Equal(t, "response", got.Dir)
	assert.Equal(t, "Fetch", got.API)
	assert.Equal(t, int16(1), got.Key)
	assert.Equal(t, int16(4), got.Version)
	assert.Equal(t, int32(77), got.CorrelationID)
	assert.Equal(t, []string{"Responses[0].Partitions[0].ErrorCode = NOT_LEADER_OR_FOLLOWER"}, got.Errors)
	assert.Contains(t, got.Summary, "FetchResponse v4 ")
	assert.Equal(t, `null`, string(got.Body.Responses[0].Partitions[0].Records))
	assert.Equal(t, `{"Batches":1,"Records":1,"Codec":"none","Bytes":70}`, string(got.Body.Responses[0].Partitions[1].Records))

	out.Reset()
	require.NoError(t, run([]string{"decode", "-json", "-records", "-response", "-k", "1", "-v", "4", hex.EncodeToString(frame)}, &out))
	assert.Contains(t, out.String(), `"Records":[{"Offset":0,"Timestamp":5,"Key":"k","Value":"v","Headers":[]}]`)

	assert.Error(t, run([]string{"decode", "-json", "-response", "-k", "1", "-v", "99", hex.EncodeToString(frame)}, &out))
	assert.Error(t, run([]string{"decode", "-json", "-response", "-k", "1", "-v", "4", hex.EncodeToString(frame[:20])}, &out))
}

// A file named where the hex goes is pointed to standard input.
func TestDecodeFileArgument(t *testing.T) {
	file := filepath.Join(t.TempDir(), "frame.hex")
	require.NoError(t, os.WriteFile(file, []byte("0000001a001200030000000700046b63617400066b7769726504312e3000\n"), 0o600))
	err := run([]string{"decode", file}, new(bytes.Buffer))
	require.ErrorContains(t, err, "is a file: give it on standard input (kwire decode < "+file+")")
	err = run([]string{"decode", "zz"}, new(bytes.Buffer))
	require.ErrorContains(t, err, "the frame is not hex")
}

// -records and -raw-records choose one form, and only for -json.
func TestDecodeRecordsFlags(t *testing.T) {
	hex := "0000001a001200030000000700046b63617400066b7769726504312e3000"
	err := run([]string{"decode", "-json", "-records", "-raw-records", hex}, new(bytes.Buffer))
	require.ErrorContains(t, err, "-records and -raw-records: give one")
	err = run([]string{"decode", "-records", hex}, new(bytes.Buffer))
	require.ErrorContains(t, err, "go with -json")
	err = runSend([]string{"-b", "127.0.0.1:1", "-records", "-raw-records"}, strings.NewReader("{}"), new(bytes.Buffer))
	require.ErrorContains(t, err, "send: -records and -raw-records: give one")
}

// TestDecodeUnsupportedAPIVersions (issue 27, case 13): a broker's v0
// answer to a too-new ApiVersions (KIP-511) decodes whatever -v the
// request had, with a note that it was read at v0.
func TestDecodeUnsupportedAPIVersions(t *testing.T) {
	const frame = "0000001000000000002300000001001200000001"
	var out bytes.Buffer
	require.NoError(t, runDecode([]string{"-response", "-k", "18", "-v", "3", frame}, nil, &out))
	assert.Contains(t, out.String(), "ApiVersionsResponse message v0")
	assert.Contains(t, out.String(), "ErrorCode int16 = 35")
	out.Reset()
	require.NoError(t, runDecode([]string{"-response", "-k", "18", "-v", "3", "-json", frame}, nil, &out))
	assert.Contains(t, out.String(), "UNSUPPORTED_VERSION")
}
