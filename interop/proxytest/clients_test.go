package proxytest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kwirelabs/kwire/app/secrettest"
	"github.com/kwirelabs/kwire/interop/internal/proctest"
	"github.com/kwirelabs/kwire/interop/realclient"
)

// run runs a client process with a deadline and returns its stdout.
func run(t *testing.T, stdin, name string, args ...string) string {
	t.Helper()
	cmd := proctest.Command(t, time.Minute, name, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	require.NoError(t, err, "%s %v\nstderr:\n%s", name, args, stderr.String())
	return stdout.String()
}

func lookKcat(t *testing.T) string {
	p, err := exec.LookPath("kcat")
	if err != nil {
		t.Skip("kcat is not installed (Debian: apt-get install kcat; .ci/run installs it): the librdkafka tests are skipped")
	}
	return p
}

// TestKcatThroughProxy: kcat -L, -P, -C and -G through the proxy to a
// 3-broker kfake cluster.
func TestKcatThroughProxy(t *testing.T) {
	kcat := lookKcat(t)
	const topic, group, n = "kcat-proxy", "kcat-proxy-group", 300
	cluster, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.SeedTopics(3, topic))
	require.NoError(t, err)
	defer cluster.Close()
	p := startProxy(t, cluster.ListenAddrs()[0])

	var meta struct {
		Brokers []struct{ Name string }
	}
	require.NoError(t, json.Unmarshal([]byte(run(t, "", kcat, "-L", "-J", "-b", p.Addr)), &meta))
	require.Len(t, meta.Brokers, 3)

	var in strings.Builder
	var want []string
	for i := range n {
		fmt.Fprintf(&in, "key-%d:value-%d\n", i, i)
		want = append(want, fmt.Sprintf("key-%d=value-%d", i, i))
	}
	sort.Strings(want)
	run(t, in.String(), kcat, "-P", "-b", p.Addr, "-t", topic, "-K:", "-z", "lz4")
	lines := func(out string) []string {
		l := strings.Fields(out)
		sort.Strings(l)
		return l
	}
	require.Equal(t, want, lines(run(t, "", kcat, "-C", "-b", p.Addr, "-t", topic, "-o", "beginning", "-e", "-q", "-f", "%k=%s\n")))
	require.Equal(t, want, lines(run(t, "", kcat, "-b", p.Addr, "-G", group, "-X", "auto.offset.reset=earliest", "-e", "-q", "-f", "%k=%s\n", topic)))

	listeners := p.AwaitListeners(t, len(meta.Brokers))
	local := map[string]bool{}
	for _, l := range listeners {
		local[l] = true
	}
	for _, b := range meta.Brokers {
		require.True(t, local[b.Name], "kcat -L lists %s, not a proxy listener (%v)", b.Name, listeners)
	}
	byAPI := checkLog(t, p.Stop(t))
	t.Logf("kcat through the proxy, requests by API: %v", byAPI)
	for _, api := range []string{"ApiVersions", "Metadata", "Produce", "Fetch", "ListOffsets", "FindCoordinator", "JoinGroup", "SyncGroup", "OffsetCommit", "OffsetFetch"} {
		require.NotZero(t, byAPI[api], "no %s request logged", api)
	}
}

const pythonClient = `
import sys
from kafka import KafkaProducer, KafkaConsumer
addr, topic, n, api = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
opts = dict(bootstrap_servers=addr, request_timeout_ms=10000)
if api != 'auto':
    opts['api_version'] = tuple(int(x) for x in api.split('.'))
if len(sys.argv) > 6:  # SASL/PLAIN user and password
    opts.update(security_protocol='SASL_PLAINTEXT', sasl_mechanism='PLAIN',
                sasl_plain_username=sys.argv[5], sasl_plain_password=sys.argv[6])
producer = KafkaProducer(compression_type='gzip', linger_ms=20, **opts)
for f in [producer.send(topic, key=b'key-%d' % i, value=b'value-%d' % i) for i in range(n)]:
    f.get(timeout=20)
producer.close(timeout=10)
consumer = KafkaConsumer(topic, group_id=None, auto_offset_reset='earliest', **opts)
got = 0
for m in consumer:
    print('%s=%s' % (m.key.decode(), m.value.decode()))
    got += 1
    if got == n:
        break
consumer.close()
`

func lookKafkaPython(t *testing.T) string {
	for _, c := range []string{"python3", "/usr/bin/python3"} {
		if p, err := exec.LookPath(c); err == nil && proctest.Command(t, time.Minute, p, "-c", "import kafka").Run() == nil {
			return p
		}
	}
	t.Skip("no python3 with kafka-python (Debian: apt-get install python3-kafka; .ci/run installs it): the kafka-python tests are skipped")
	return ""
}

// TestKafkaPythonThroughProxy: kafka-python produces and consumes through
// the proxy to the realclient broker, at its newest protocol, at 0.10.1's
// (Produce v2, magic 1 message sets), and with SASL/PLAIN (SaslHandshake
// v0, then the token as a raw frame, which the proxy passes as it is).
func TestKafkaPythonThroughProxy(t *testing.T) {
	python := lookKafkaPython(t)
	script := filepath.Join(t.TempDir(), "client.py")
	require.NoError(t, os.WriteFile(script, []byte(pythonClient), 0o644))
	for _, api := range []string{"auto", "0.10.1", "sasl"} {
		t.Run(api, func(t *testing.T) {
			const n = 50
			b, err := realclient.Start(2, t.Logf)
			require.NoError(t, err)
			defer b.Close()
			p := startProxy(t, b.Addr())
			topic := "python-" + strings.ReplaceAll(api, ".", "-")
			args := []string{script, p.Addr, topic, strconv.Itoa(n), api}
			if api == "sasl" {
				b.SetSASLPlain(map[string]string{"alice": "s3cret"})
				args[4] = "auto"
				args = append(args, "alice", "s3cret")
			}
			got := strings.Fields(run(t, "", python, args...))
			var want []string
			for i := range n {
				want = append(want, fmt.Sprintf("key-%d=value-%d", i, i))
			}
			sort.Strings(want)
			sort.Strings(got)
			require.Equal(t, want, got)

			lines := p.Stop(t)
			if api == "sasl" {
				var all []byte
				for _, l := range lines {
					all = append(all, l.raw...)
				}
				form, found := secrettest.Find(all, []byte("s3cret"))
				require.False(t, found, "the password in the log (%s)", form)
				require.Contains(t, string(all), `"principal":"alice"`)
			}
			byAPI := checkLog(t, lines)
			t.Logf("kafka-python %s through the proxy, requests by API: %v", api, byAPI)
			names := []string{"Metadata", "Produce", "ListOffsets", "Fetch"}
			if api == "sasl" {
				names = append(names, "SaslHandshake", "request: raw SASL token", "response: raw SASL token")
			}
			for _, name := range names {
				require.NotZero(t, byAPI[name], "no %s logged", name)
			}
		})
	}
}
