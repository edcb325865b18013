package proxytest

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kwirelabs/kwire/interop/internal/proctest"
)

// kwireSend runs `kwire send ARGS < input` and returns its one line.
func kwireSend(t *testing.T, input string, args ...string) []byte {
	t.Helper()
	cmd := proctest.Command(t, time.Minute, kwireBin, append([]string{"send"}, args...)...)
	cmd.Stdin = strings.NewReader(input)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "kwire send %v: %s", args, stderr.String())
	require.Equal(t, 1, bytes.Count(out, []byte("\n")), "%s", out)
	return out
}

// TestSendToKfake: kwire send speaks to franz-go's kfake with requests
// written as JSON: Metadata at the version negotiated through
// ApiVersions, a Produce whose records are given record by record (zstd,
// headers, a null key), then a Fetch shown with -records. kgo, an
// independent client, consumes what the Produce wrote.
func TestSendToKfake(t *testing.T) {
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "fixtures"))
	require.NoError(t, err)
	defer cluster.Close()
	addr := cluster.ListenAddrs()[0]

	var metadata struct {
		Dir, API string
		Version  int16
		Body     struct {
			Topics []struct {
				ErrorCode  int16
				Name       string
				Partitions []struct{ LeaderID int32 }
			}
		}
	}
	out := kwireSend(t, `{"Topics":[{"Name":"fixtures"}]}`, "-b", addr, "-k", "Metadata")
	require.NoError(t, json.Unmarshal(out, &metadata), "%s", out)
	assert.Equal(t, "response", metadata.Dir)
	assert.Equal(t, "Metadata", metadata.API)
	assert.GreaterOrEqual(t, metadata.Version, int16(12), "negotiated with kfake")
	require.Len(t, metadata.Body.Topics, 1)
	assert.Equal(t, "fixtures", metadata.Body.Topics[0].Name)
	assert.Equal(t, int16(0), metadata.Body.Topics[0].ErrorCode)
	assert.Len(t, metadata.Body.Topics[0].Partitions, 1)

	produce := `{"Acks":-1,"TimeoutMs":5000,"TopicData":[{"Name":"fixtures","PartitionData":[{"Index":0,
		"Records":{"Batches":[{"Codec":"zstd","Records":[
			{"Timestamp":1700000000000,"Key":"k1","Value":"first","Headers":[{"Key":"trace","Value":"t-1"}]},
			{"Timestamp":1700000000001,"Key":null,"Value":{"Base64":"AP8="},"Headers":[]}]}]}}]}]}`
	var produced struct {
		Body struct {
			Responses []struct {
				PartitionResponses []struct {
					ErrorCode  int16
					BaseOffset int64
				}
			}
		}
	}
	out = kwireSend(t, produce, "-b", addr, "-k", "Produce", "-v", "11")
	require.NoError(t, json.Unmarshal(out, &produced), "%s", out)
	require.Len(t, produced.Body.Responses, 1)
	assert.Equal(t, int16(0), produced.Body.Responses[0].PartitionResponses[0].ErrorCode, "%s", out)
	assert.Equal(t, int64(0), produced.Body.Responses[0].PartitionResponses[0].BaseOffset)

	fetch := `{"MaxWaitMs":100,"MinBytes":1,"Topics":[{"Topic":"fixtures","Partitions":[{"Partition":0,"FetchOffset":0,"PartitionMaxBytes":1048576}]}]}`
	out = kwireSend(t, fetch, "-b", addr, "-k", "Fetch", "-v", "12", "-records")
	assert.Contains(t, string(out), `"Key":"k1","Value":"first","Headers":[{"Key":"trace","Value":"t-1"}]`)
	assert.Contains(t, string(out), `"Key":null,"Value":{"Base64":"AP8="},"Headers":[]`)
	assert.Contains(t, string(out), `"Codec":"zstd"`)

	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ConsumeTopics("fixtures"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	require.NoError(t, err)
	defer cl.Close()
	ctx := withTimeout(t, time.Minute)
	var got []*kgo.Record
	for len(got) < 2 {
		fs := cl.PollFetches(ctx)
		require.NoError(t, ctx.Err(), "consumed %d of 2", len(got))
		fs.EachError(func(topic string, p int32, err error) { t.Fatalf("fetch %s/%d: %v", topic, p, err) })
		got = append(got, fs.Records()...)
	}
	require.Len(t, got, 2)
	assert.Equal(t, "k1", string(got[0].Key))
	assert.Equal(t, "first", string(got[0].Value))
	require.Len(t, got[0].Headers, 1)
	assert.Equal(t, kgo.RecordHeader{Key: "trace", Value: []byte("t-1")}, got[0].Headers[0])
	assert.Equal(t, int64(1700000000000), got[0].Timestamp.UnixMilli())
	assert.Nil(t, got[1].Key)
	assert.Equal(t, []byte{0x00, 0xff}, got[1].Value)
	assert.Equal(t, int64(1), got[1].Offset)
}

// TestSendToKfakeWithSASL: kwire send logs in to kfake, which checks the
// credentials with franz-go's own SASL server code, with PLAIN and both
// SCRAM mechanisms; a wrong password is refused.
func TestSendToKfakeWithSASL(t *testing.T) {
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "secured"), kfake.EnableSASL(),
		kfake.Superuser("PLAIN", "plain-user", "plain-pass"),
		kfake.Superuser("SCRAM-SHA-256", "scram256", "pass-256"),
		kfake.Superuser("SCRAM-SHA-512", "scram512", "pass-512"))
	require.NoError(t, err)
	defer cluster.Close()
	addr := cluster.ListenAddrs()[0]
	for _, c := range []struct{ mechanism, user, pass string }{
		{"PLAIN", "plain-user", "plain-pass"}, {"SCRAM-SHA-256", "scram256", "pass-256"}, {"SCRAM-SHA-512", "scram512", "pass-512"},
	} {
		cmd := proctest.Command(t, time.Minute, kwireBin, "send", "-b", addr, "-k", "Metadata", "-sasl-mechanism", c.mechanism, "-sasl-user", c.user)
		cmd.Env = append(cmd.Environ(), "KWIRE_SASL_PASSWORD="+c.pass)
		cmd.Stdin = strings.NewReader(`{"Topics":[{"Name":"secured"}]}`)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s: %s", c.mechanism, out)
		assert.Contains(t, string(out), `"Name":"secured"`, c.mechanism)

		cmd = proctest.Command(t, time.Minute, kwireBin, "send", "-b", addr, "-k", "Metadata", "-sasl-mechanism", c.mechanism, "-sasl-user", c.user)
		cmd.Env = append(cmd.Environ(), "KWIRE_SASL_PASSWORD=not-"+c.pass)
		cmd.Stdin = strings.NewReader(`{"Topics":[{"Name":"secured"}]}`)
		out, err = cmd.CombinedOutput()
		require.Error(t, err, "%s with a wrong password: %s", c.mechanism, out)
		assert.Contains(t, string(out), "SASL", c.mechanism)
		assert.NotContains(t, string(out), c.pass, "a password in the output")
	}
}
