package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/pretty"
	"github.com/kwirelabs/kwire/kwire/record"
	"github.com/kwirelabs/kwire/messages"
)

// decodeLine is what the encode tests read of a `kwire decode -json` line.
type decodeLine struct {
	Dir           string          `json:"dir"`
	Key           int16           `json:"key"`
	Version       int16           `json:"version"`
	CorrelationID int32           `json:"correlation_id"`
	ClientID      *string         `json:"client_id"`
	Body          json.RawMessage `json:"body"`
}

// reencode runs `kwire decode -json -raw-records HEX` on frame, feeds the
// line's body to `kwire encode` with the line's API, version, direction,
// correlation id and client id as flags, and returns encode's output; it
// also checks that the whole line, given to encode without flags, gives
// the same output.
func reencode(t *testing.T, frame []byte, response bool, key, version int16) string {
	t.Helper()
	args := []string{"decode", "-json", "-raw-records"}
	if response {
		args = append(args, "-response", "-k", strconv.Itoa(int(key)), "-v", strconv.Itoa(int(version)))
	}
	var out bytes.Buffer
	require.NoError(t, run(append(args, hex.EncodeToString(frame)), &out))
	var line decodeLine
	require.NoError(t, json.Unmarshal(out.Bytes(), &line), out.String())

	enc := []string{"-k", strconv.Itoa(int(line.Key)), "-v", strconv.Itoa(int(line.Version)), "-corr", strconv.Itoa(int(line.CorrelationID))}
	if line.Dir == "response" {
		enc = append(enc, "-response")
	}
	if line.ClientID != nil {
		enc = append(enc, "-client", *line.ClientID)
	}
	var fromBody, fromLine bytes.Buffer
	require.NoError(t, runEncode(enc, bytes.NewReader(line.Body), &fromBody), "%s", line.Body)
	require.NoError(t, runEncode(nil, bytes.NewReader(out.Bytes()), &fromLine), "%s", out.Bytes())
	assert.Equal(t, fromBody.String(), fromLine.String(), "the whole line and its body with flags")
	return strings.TrimSpace(fromBody.String())
}

// For every API and version, the smallest request and response: decoded
// to JSON and encoded again, the frame is the same hex.
func TestEncodeGivesBackTheDecodedFrame(t *testing.T) {
	client := "kwire-test"
	frames := 0
	for _, api := range messages.APIs() {
		for v := api.MinVersion; v <= api.MaxVersion; v++ {
			req := api.NewRequest()
			require.NoError(t, kwire.FillMinimal(req, v))
			clientID := &client
			if v%2 == 1 {
				clientID = nil // a null client id, left out of the line
			}
			frame, err := kwire.AppendRequest(nil, req, v, int32(v)*1000+7, clientID)
			require.NoError(t, err)
			require.Equal(t, hex.EncodeToString(frame), reencode(t, frame, false, api.Key, v), "%s v%d request", api.Name, v)

			resp := api.NewResponse()
			require.NoError(t, kwire.FillMinimal(resp, v))
			frame, err = kwire.AppendResponse(nil, resp, v, -int32(v)-1)
			require.NoError(t, err)
			require.Equal(t, hex.EncodeToString(frame), reencode(t, frame, true, api.Key, v), "%s v%d response", api.Name, v)
			frames += 2
		}
	}
	t.Logf("%d frames the same hex again", frames)
	require.Greater(t, frames, 700)
}

// Random requests and responses of every API and version, records as
// random bytes (base64 keeps them whole): the same hex again, unless
// decode redacted a secret (SASL bytes, token HMACs, password configs),
// which it says, and which encode then refuses rather than make another
// frame.
func TestEncodeGivesBackRandomFrames(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	client := "c"
	same, redacted := 0, 0
	for _, api := range messages.APIs() {
		for v := api.MinVersion; v <= api.MaxVersion; v++ {
			for _, response := range []bool{false, true} {
				msg := api.NewRequest()
				if response {
					msg = api.NewResponse()
				}
				require.NoError(t, kwire.FillRandom(r, msg, v, kwire.RandomOptions{MaxLen: 3}))
				var frame []byte
				var err error
				if response {
					frame, err = kwire.AppendResponse(nil, msg, v, r.Int31())
				} else {
					frame, err = kwire.AppendRequest(nil, msg, v, r.Int31(), &client)
				}
				require.NoError(t, err)
				var out bytes.Buffer
				args := []string{"decode", "-json", "-raw-records"}
				if response {
					args = append(args, "-response", "-k", strconv.Itoa(int(api.Key)), "-v", strconv.Itoa(int(v)))
				}
				require.NoError(t, run(append(args, hex.EncodeToString(frame)), &out))
				if strings.Contains(out.String(), `"redacted":[`) {
					err := runEncode(nil, strings.NewReader(out.String()), new(bytes.Buffer))
					require.ErrorContains(t, err, "were left out as secrets", "%T v%d", msg, v)
					redacted++
					continue
				}
				require.Equal(t, hex.EncodeToString(frame), reencode(t, frame, response, api.Key, v), "%T v%d", msg, v)
				same++
			}
		}
	}
	t.Logf("%d frames the same hex again, %d redacted", same, redacted)
	require.Greater(t, same, 700)
}

// A Produce request carrying one batch of each codec, with headers and a
// binary key, comes back byte for byte.
func TestEncodeProduceWithCompressedRecords(t *testing.T) {
	var set []byte
	for i, c := range []record.Codec{record.CodecGzip, record.CodecSnappy, record.CodecLZ4, record.CodecZstd} {
		var err error
		set, err = record.AppendBatch(set, []record.Record{
			{Timestamp: 1700000000000, Key: []byte{0xff, byte(i)}, Value: []byte(strings.Repeat("value ", 40)),
				Headers: []record.Header{{Key: "trace", Value: []byte("abc")}}},
			{Timestamp: 1700000000003, Value: nil},
		}, record.WithCodec(c), record.WithBaseOffset(int64(i*2)), record.WithProducer(9, 1, int32(i*2)))
		require.NoError(t, err)
	}
	req := &messages.ProduceRequest{Acks: -1, TimeoutMs: 1500, TopicData: []messages.ProduceRequestTopicProduceData{{
		Name: "orders", PartitionData: []messages.ProduceRequestPartitionProduceData{{Index: 3, Records: set}}}}}
	client := "producer-1"
	for _, v := range []int16{3, 9, 11} {
		frame, err := kwire.AppendRequest(nil, req, v, 42, &client)
		require.NoError(t, err)
		require.Equal(t, hex.EncodeToString(frame), reencode(t, frame, false, 0, v), "Produce v%d", v)
	}
}

func TestEncodeFlagsAndErrors(t *testing.T) {
	var out bytes.Buffer
	// -k takes a name; -raw writes bytes; -client "" is an empty, not a null, client id.
	require.NoError(t, runEncode([]string{"-k", "heartbeat", "-v", "4", "-corr", "9", "-client", "", "-raw"},
		strings.NewReader(`{"GroupID":"g","GenerationID":1,"MemberID":"m"}`), &out))
	want, err := kwire.AppendRequest(nil, &messages.HeartbeatRequest{GroupID: "g", GenerationID: 1, MemberID: "m"}, 4, 9, new(string))
	require.NoError(t, err)
	assert.Equal(t, want, out.Bytes())

	for _, c := range []struct {
		args  []string
		input string
		want  string
	}{
		{[]string{"-v", "4"}, `{}`, "give the API with -k"},
		{[]string{"-k", "Heartbeat"}, `{}`, "Heartbeat has versions 0-4; give one with -v"},
		{[]string{"-k", "Heartbeat", "-v", "4"}, ``, "no JSON on standard input"},
		{[]string{"-k", "Heartbeat", "-v", "4"}, `{"GroupId":"g"}`, `HeartbeatRequest.GroupId at offset 1: unknown field`},
		{[]string{"-k", "Heartbeat", "-v", "0"}, `{"GroupInstanceID":"i"}`, `this version lacks: HeartbeatRequest v0 has no GroupInstanceID`},
		{[]string{"-k", "NoSuchAPI", "-v", "0"}, `{}`, `no API named "NoSuchAPI"`},
		{[]string{"-k", "Produce", "-v", "9"}, `{"TopicData":[{"PartitionData":[{"Records":{"Batches":1,"Records":1,"Bytes":70}}]}]}`,
			`TopicData[0].PartitionData[0].Records at offset 43: JSON value does not fit the field: a records summary (70 bytes) cannot be read back: write them with WithRecords or WithRawRecords (on the command line, -json -records or -json -raw-records)`},
	} {
		err := runEncode(c.args, strings.NewReader(c.input), &out)
		if assert.Error(t, err, "%v %s", c.args, c.input) {
			assert.Contains(t, err.Error(), c.want)
		}
	}
}

// A request built in Go and written with pretty.JSON encodes to the frame
// the codec makes of the struct itself.
func TestEncodeReadsPrettyJSON(t *testing.T) {
	req := messages.NewFetchRequest()
	req.MaxWaitMs, req.MinBytes, req.SessionEpoch = 500, 1, -1
	req.Topics = []messages.FetchRequestTopic{{TopicID: kwire.UUID{1, 2, 3}, Partitions: []messages.FetchRequestPartition{
		{Partition: 2, FetchOffset: 100, PartitionMaxBytes: 1 << 20, CurrentLeaderEpoch: -1, LastFetchedEpoch: -1, LogStartOffset: -1}}}}
	for _, v := range []int16{13, 17} {
		j, err := pretty.JSON(req, v)
		require.NoError(t, err)
		var out bytes.Buffer
		require.NoError(t, runEncode([]string{"-k", "1", "-v", fmt.Sprint(v), "-corr", "3", "-client", "c"}, bytes.NewReader(j), &out))
		client := "c"
		want, err := kwire.AppendRequest(nil, req, v, 3, &client)
		require.NoError(t, err)
		assert.Equal(t, hex.EncodeToString(want)+"\n", out.String(), "Fetch v%d", v)
	}
}
