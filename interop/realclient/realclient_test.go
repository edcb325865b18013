package realclient

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/interop/internal/proctest"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/record"
	"github.com/kwirelabs/kwire/messages"
)

// cmdTimeout bounds every client process.
const cmdTimeout = 45 * time.Second

func startBroker(t *testing.T, partitions int) *Broker {
	t.Helper()
	return startBrokerVersions(t, partitions, Supported)
}

func startBrokerVersions(t *testing.T, partitions int, versions map[int16][2]int16) *Broker {
	t.Helper()
	b, err := StartVersions(partitions, t.Logf, versions)
	require.NoError(t, err)
	t.Cleanup(b.Close)
	return b
}

func needKcat(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("kcat")
	if err != nil {
		t.Skip("kcat is not installed (Debian: apt-get install kcat); skipping the librdkafka tests")
	}
	return p
}

var (
	pythonOnce sync.Once
	pythonPath string
)

// needKafkaPython returns a python3 that can import kafka (kafka-python):
// the one on PATH, or Debian's /usr/bin/python3 where python3-kafka goes.
func needKafkaPython(t *testing.T) string {
	t.Helper()
	pythonOnce.Do(func() {
		for _, c := range []string{"python3", "/usr/bin/python3"} {
			p, err := exec.LookPath(c)
			if err != nil {
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			err = exec.CommandContext(ctx, p, "-c", "import kafka").Run()
			cancel()
			if err == nil {
				pythonPath = p
				return
			}
		}
	})
	if pythonPath == "" {
		t.Skip("no python3 with kafka-python (Debian: apt-get install python3-kafka); skipping the kafka-python tests")
	}
	return pythonPath
}

// run runs a client process with a timeout and returns its stdout.
func run(t *testing.T, stdin string, name string, args ...string) string {
	t.Helper()
	cmd := proctest.Command(t, cmdTimeout, name, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	t.Logf("%s %s: %v", filepath.Base(name), strings.Join(args, " "), time.Since(start).Round(time.Millisecond))
	if s := strings.TrimSpace(stderr.String()); s != "" {
		t.Logf("stderr:\n%s", s)
	}
	require.NoError(t, err, "%s %v", name, args)
	return stdout.String()
}

// apiVersion is an (API, version) pair seen on the wire.
type apiVersion struct{ key, version int16 }

func (p apiVersion) String() string {
	if api, ok := messages.Lookup(p.key); ok {
		return fmt.Sprintf("%s v%d", api.Name, p.version)
	}
	return fmt.Sprintf("key %d v%d", p.key, p.version)
}

// checkFrames is the heart of the package: every request frame a client
// sent must decode with messages.ReadRequest and re-encode with
// kwire.AppendRequest to the same bytes; every response the broker wrote
// must decode with messages.ReadResponse and re-encode to the same bytes.
// It returns how often each (API, version) was seen and logs the list.
func checkFrames(t *testing.T, client string, b *Broker) map[apiVersion]int {
	t.Helper()
	seen := map[apiVersion]int{}
	frames := b.Frames()
	require.NotEmpty(t, frames, "%s sent nothing", client)
	for i, f := range frames {
		if f.SASLToken {
			continue // a raw SASL token, no Kafka request
		}
		hdr, body, err := messages.ReadRequest(f.Request)
		if !assertNoErrorf(t, err, "%s frame %d: ReadRequest", client, i) {
			continue
		}
		p := apiVersion{hdr.APIKey, hdr.APIVersion}
		seen[p]++
		re, err := kwire.AppendRequest(nil, body, hdr.APIVersion, hdr.CorrelationID, hdr.ClientID)
		if !assertNoErrorf(t, err, "%s frame %d (%v): AppendRequest", client, i, p) {
			continue
		}
		if hdr.UnknownTags.Len() > 0 {
			// AppendRequest writes an empty header tag section: put the
			// client's tags back where that byte is.
			at := 4 + 8 + 2
			if hdr.ClientID != nil {
				at += len(*hdr.ClientID)
			}
			re = append(append(re[:at:at], appendTags(nil, hdr.UnknownTags)...), re[at+1:]...)
			binary.BigEndian.PutUint32(re, uint32(len(re)-4))
			t.Logf("%s frame %d (%v): header has %d unknown tagged fields", client, i, p, hdr.UnknownTags.Len())
		}
		sameBytes(t, fmt.Sprintf("%s request frame %d (%v)", client, i, p), f.Request, re)
		// The body alone: Marshal gives the frame's tail, Size its length.
		m, err := kwire.Marshal(body, hdr.APIVersion)
		if assertNoErrorf(t, err, "%s frame %d (%v): Marshal", client, i, p) && !bytes.HasSuffix(f.Request, m) {
			t.Errorf("%s frame %d (%v): Marshal(body) is not the frame's tail", client, i, p)
		}
		if n, err := kwire.Size(body, hdr.APIVersion); assertNoErrorf(t, err, "%s frame %d (%v): Size", client, i, p) && n != len(m) {
			t.Errorf("%s frame %d (%v): Size %d, Marshal wrote %d bytes", client, i, p, n, len(m))
		}

		if f.Response == nil {
			continue
		}
		rh, resp, err := messages.ReadResponse(f.Response, hdr.APIKey, f.ResponseVersion)
		if !assertNoErrorf(t, err, "%s response to frame %d (%v): ReadResponse", client, i, p) {
			continue
		}
		require.Equal(t, hdr.CorrelationID, rh.CorrelationID)
		reResp, err := kwire.AppendResponse(nil, resp, f.ResponseVersion, rh.CorrelationID)
		if assertNoErrorf(t, err, "%s response to frame %d (%v): AppendResponse", client, i, p) {
			sameBytes(t, fmt.Sprintf("%s response frame %d (%v)", client, i, p), f.Response, reResp)
		}
	}
	t.Logf("%s: %d request frames, all re-encoded byte for byte: %s", client, len(frames), formatPairs(seen))
	family := strings.Fields(client)[0]
	summary.Lock()
	if summary.seen[family] == nil {
		summary.seen[family] = map[apiVersion]int{}
	}
	for p, n := range seen {
		summary.seen[family][p] += n
	}
	summary.Unlock()
	return seen
}

// summary collects the (API, version) pairs of every run, per client.
var summary = struct {
	sync.Mutex
	seen map[string]map[apiVersion]int
}{seen: map[string]map[apiVersion]int{}}

func formatPairs(seen map[apiVersion]int) string {
	pairs := make([]apiVersion, 0, len(seen))
	for p := range seen {
		pairs = append(pairs, p)
	}
	sort.Slice(pairs, func(i, j int) bool {
		if pairs[i].key != pairs[j].key {
			return pairs[i].key < pairs[j].key
		}
		return pairs[i].version < pairs[j].version
	})
	var list []string
	for _, p := range pairs {
		list = append(list, fmt.Sprintf("%v (x%d)", p, seen[p]))
	}
	return strings.Join(list, ", ")
}

func assertNoErrorf(t *testing.T, err error, format string, args ...any) bool {
	t.Helper()
	if err != nil {
		t.Errorf("%s: %v", fmt.Sprintf(format, args...), err)
		return false
	}
	return true
}

func sameBytes(t *testing.T, what string, want, got []byte) {
	t.Helper()
	if bytes.Equal(want, got) {
		return
	}
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	lo := max(i-16, 0)
	t.Errorf("%s: re-encoded %d bytes, the original has %d; first difference at byte %d\n original  [%d:]: % x\n re-encoded[%d:]: % x",
		what, len(got), len(want), i, lo, want[lo:min(len(want), i+32)], lo, got[lo:min(len(got), i+32)])
}

func appendTags(b []byte, tags kwire.UnknownTags) []byte {
	b = binary.AppendUvarint(b, uint64(tags.Len()))
	for _, tg := range tags.Fields() {
		b = binary.AppendUvarint(b, uint64(tg.Tag))
		b = binary.AppendUvarint(b, uint64(len(tg.Data)))
		b = append(b, tg.Data...)
	}
	return b
}

// requireAPIs asserts that at least one request of each named API was seen.
func requireAPIs(t *testing.T, client string, seen map[apiVersion]int, names ...string) {
	t.Helper()
	have := map[string]bool{}
	for p := range seen {
		if api, ok := messages.Lookup(p.key); ok {
			have[api.Name] = true
		}
	}
	for _, n := range names {
		require.True(t, have[n], "%s never sent %s; saw %v", client, n, seen)
	}
}

// storedRecord is a record as the broker stored it, read back with
// kwire/record.
type storedRecord struct {
	partition int32
	offset    int64
	key       string
	value     string
	headers   string // k=v,k=v
}

// readStored reads every stored batch of a topic with kwire/record (which
// checks the CRCs and decompresses) and checks that offsets run 0, 1, 2...
// in each partition. It returns the data records (not the control records
// of transaction markers), the codecs seen and every batch.
func readStored(t *testing.T, b *Broker, topic string) ([]storedRecord, map[record.Codec]int, []*record.Batch) {
	t.Helper()
	var out []storedRecord
	codecs := map[record.Codec]int{}
	var all []*record.Batch
	for p := range int32(b.Partitions(topic)) {
		var data []byte
		for _, raw := range b.Batches(topic, p) {
			data = append(data, raw...)
		}
		batches, partial, err := record.ReadBatches(data)
		require.NoError(t, err, "partition %d", p)
		require.False(t, partial)
		next := int64(0)
		for _, bt := range batches {
			require.EqualValues(t, 2, bt.Magic)
			codecs[bt.Attributes.Codec()]++
			all = append(all, bt)
			it := bt.Iter()
			for it.Next() {
				r := it.Record()
				require.Equal(t, next, r.Offset, "partition %d", p)
				next++
				if bt.Attributes.Control() {
					continue
				}
				var hs []string
				for _, h := range r.Headers {
					hs = append(hs, h.Key+"="+string(h.Value))
				}
				out = append(out, storedRecord{p, r.Offset, string(r.Key), string(r.Value), strings.Join(hs, ",")})
			}
			require.NoError(t, it.Err())
		}
	}
	return out, codecs, all
}

// -- librdkafka (kcat) ------------------------------------------------------

// kcatMetadata is the part of `kcat -L -J` the test reads.
type kcatMetadata struct {
	OriginatingBroker struct {
		ID   int32  `json:"id"`
		Name string `json:"name"`
	} `json:"originating_broker"`
	ControllerID int32 `json:"controllerid"`
	Brokers      []struct {
		ID   int32  `json:"id"`
		Name string `json:"name"`
	} `json:"brokers"`
	Topics []struct {
		Topic      string `json:"topic"`
		Error      string `json:"error"`
		Partitions []struct {
			Partition int32 `json:"partition"`
			Leader    int32 `json:"leader"`
			Replicas  []struct {
				ID int32 `json:"id"`
			} `json:"replicas"`
			ISRs []struct {
				ID int32 `json:"id"`
			} `json:"isrs"`
		} `json:"partitions"`
	} `json:"topics"`
}

func TestKcatMetadata(t *testing.T) {
	kcat := needKcat(t)
	b := startBroker(t, 2)
	b.CreateTopic("alpha", 3)
	b.CreateTopic("beta", 1)

	check := func(out string, want map[string]int) {
		t.Helper()
		var md kcatMetadata
		require.NoError(t, json.Unmarshal([]byte(out), &md), "kcat -J output: %s", out)
		require.Len(t, md.Brokers, 1)
		require.EqualValues(t, NodeID, md.Brokers[0].ID)
		require.Equal(t, b.Addr(), md.Brokers[0].Name)
		require.EqualValues(t, NodeID, md.ControllerID)
		got := map[string]int{}
		for _, tp := range md.Topics {
			require.Empty(t, tp.Error, "topic %s", tp.Topic)
			got[tp.Topic] = len(tp.Partitions)
			for i, p := range tp.Partitions {
				require.EqualValues(t, i, p.Partition)
				require.EqualValues(t, NodeID, p.Leader)
				require.Len(t, p.Replicas, 1)
				require.EqualValues(t, NodeID, p.Replicas[0].ID)
				require.Len(t, p.ISRs, 1)
				require.EqualValues(t, NodeID, p.ISRs[0].ID)
			}
		}
		require.Equal(t, want, got)
	}

	// Every topic.
	check(run(t, "", kcat, "-L", "-J", "-b", b.Addr(), "-m", "20"), map[string]int{"alpha": 3, "beta": 1})
	// One topic that does not exist yet: librdkafka asks for it and the
	// broker creates it with the default partition count.
	check(run(t, "", kcat, "-L", "-J", "-b", b.Addr(), "-t", "gamma", "-m", "20"), map[string]int{"gamma": 2})
	require.Equal(t, []string{"alpha", "beta", "gamma"}, b.TopicNames())

	seen := checkFrames(t, "kcat -L", b)
	requireAPIs(t, "kcat -L", seen, "ApiVersions", "Metadata")
}

func TestKcatProduceConsume(t *testing.T) {
	kcat := needKcat(t)
	modern := []string{"ApiVersions", "Metadata", "Produce", "ListOffsets", "Fetch"}
	// librdkafka told the broker is 0.9.0 and not to ask: no ApiVersions,
	// magic 0 message sets in Produce v1 and Fetch v1, ListOffsets v0,
	// Metadata v0. No record headers before magic 2.
	legacy := []string{"-X", "api.version.request=false", "-X", "broker.version.fallback=0.9.0"}
	// Brokers that advertise less, so that librdkafka picks older
	// versions; ApiVersions v3 gets UNSUPPORTED_VERSION and a retry.
	narrowA := withVersions(map[int16][2]int16{18: {0, 2}, 3: {0, 2}, 0: {0, 3}, 1: {0, 4}, 2: {0, 1}})
	narrowB := withVersions(map[int16][2]int16{18: {0, 1}, 3: {0, 3}, 0: {0, 5}, 1: {0, 8}, 2: {0, 0}})
	// Magic 1 message sets: Produce v2, Fetch v2-3 (no record headers).
	narrowC := withVersions(map[int16][2]int16{18: {0, 0}, 3: {0, 1}, 0: {0, 2}, 1: {0, 3}, 2: {0, 1}})
	cases := []struct {
		name     string
		codec    record.Codec
		args     []string
		headers  bool
		apis     []string
		versions map[int16][2]int16
	}{
		{"none", record.CodecNone, nil, true, modern, nil},
		{"gzip", record.CodecGzip, []string{"-z", "gzip"}, true, modern, nil},
		{"snappy", record.CodecSnappy, []string{"-z", "snappy"}, true, modern, nil},
		{"lz4", record.CodecLZ4, []string{"-z", "lz4"}, true, modern, nil},
		{"zstd", record.CodecZstd, []string{"-z", "zstd"}, true, modern, nil},
		{"idempotent", record.CodecNone, []string{"-X", "enable.idempotence=true"}, true, append(modern, "InitProducerId"), nil},
		{"acks0", record.CodecNone, []string{"-X", "acks=0"}, true, modern, nil},
		{"legacy-0.9-none", record.CodecNone, legacy, false, modern[1:], nil},
		{"legacy-0.9-gzip", record.CodecGzip, append([]string{"-z", "gzip"}, legacy...), false, modern[1:], nil},
		{"legacy-0.9-snappy", record.CodecSnappy, append([]string{"-z", "snappy"}, legacy...), false, modern[1:], nil},
		{"legacy-0.9-lz4", record.CodecLZ4, append([]string{"-z", "lz4"}, legacy...), false, modern[1:], nil},
		{"narrow-a-gzip", record.CodecGzip, []string{"-z", "gzip"}, true, modern, narrowA},
		{"narrow-b-snappy", record.CodecSnappy, []string{"-z", "snappy"}, true, modern, narrowB},
		{"narrow-c-lz4", record.CodecLZ4, []string{"-z", "lz4"}, false, modern, narrowC},
		// Many batches, and small fetches: the broker cuts Fetch responses
		// at the partition limit, so the consumer fetches again and again.
		{"many", record.CodecLZ4, []string{"-z", "lz4", "-X", "batch.num.messages=50"}, true, modern, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			const partitions = 3
			n := 5
			if tc.name == "many" {
				n = 1500
			}
			versions := tc.versions
			if versions == nil {
				versions = Supported
			}
			b := startBrokerVersions(t, partitions, versions)
			topic := "kcat-" + tc.name

			// Values long and repetitive enough that compression pays:
			// librdkafka sends a batch uncompressed when it would not shrink.
			want := map[string]string{}
			var in strings.Builder
			for i := range n {
				k := fmt.Sprintf("key-%d", i)
				v := fmt.Sprintf("value-%d-%s", i, strings.Repeat("kwire speaks kafka ", 12))
				want[k] = v
				fmt.Fprintf(&in, "%s:%s\n", k, v)
			}
			args := []string{"-P", "-b", b.Addr(), "-t", topic, "-K:", "-X", "linger.ms=50"}
			wantHeaders := ""
			if tc.headers {
				args = append(args, "-H", "origin=kcat")
				wantHeaders = "origin=kcat"
			}
			args = append(args, tc.args...)
			run(t, in.String(), kcat, args...)
			require.True(t, b.WaitRecords(topic, int64(n), 10*time.Second), "the broker did not get %d records", n)

			// What the broker stored, read with kwire/record.
			stored, codecs, batches := readStored(t, b, topic)
			require.Len(t, stored, n)
			for _, r := range stored {
				require.Equal(t, want[r.key], r.value, "key %q", r.key)
				require.Equal(t, wantHeaders, r.headers)
			}
			require.Equal(t, []record.Codec{tc.codec}, keys(codecs), "codecs of the stored batches")
			for _, bt := range batches {
				if tc.name == "idempotent" {
					require.GreaterOrEqual(t, bt.ProducerID, int64(0), "an idempotent producer's batch")
					require.GreaterOrEqual(t, bt.BaseSequence, int32(0))
				} else {
					require.EqualValues(t, -1, bt.ProducerID)
				}
			}

			// Consume everything back with librdkafka.
			cargs := []string{"-C", "-b", b.Addr(), "-t", topic, "-o", "beginning", "-e", "-q",
				"-f", "%p\t%o\t%k\t%s\t%h\n"}
			if slices.Contains(tc.args, "api.version.request=false") {
				cargs = append(cargs, legacy...)
			}
			if tc.name == "many" {
				cargs = append(cargs, "-X", "fetch.message.max.bytes=1000")
			}
			out := run(t, "", kcat, cargs...)
			got := parseConsumed(t, "kcat", out)
			sortRecords(got)
			sortRecords(stored)
			require.Equal(t, stored, got, "what kcat consumed vs what the broker stored")

			seen := checkFrames(t, "kcat "+tc.name, b)
			requireAPIs(t, "kcat "+tc.name, seen, tc.apis...)
		})
	}
}

// withVersions is Supported with some ranges replaced.
func withVersions(m map[int16][2]int16) map[int16][2]int16 {
	out := map[int16][2]int16{}
	for k, r := range Supported {
		out[k] = r
	}
	for k, r := range m {
		out[k] = r
	}
	return out
}

func keys[K comparable, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func sortRecords(rs []storedRecord) {
	sort.Slice(rs, func(i, j int) bool {
		if rs[i].partition != rs[j].partition {
			return rs[i].partition < rs[j].partition
		}
		return rs[i].offset < rs[j].offset
	})
}

// -- kafka-python -------------------------------------------------------------

// pythonScript produces n keyed messages, then consumes the topic from the
// beginning without a group and prints partition, offset, key, value and
// headers, tab-separated. api_version "auto" lets kafka-python pick the
// versions from ApiVersions; "0.10.1" or "0.9" force an old protocol (no
// ApiVersions, magic 1 or 0 message sets, no headers).
const pythonScript = `
import sys, logging
from kafka import KafkaProducer, KafkaConsumer

logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
addr, topic, compression, n, api = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
compression = None if compression == 'none' else compression
opts = dict(bootstrap_servers=addr, request_timeout_ms=10000)
if api != 'auto':
    opts['api_version'] = tuple(int(x) for x in api.split('.'))
if len(sys.argv) > 7:  # SASL/PLAIN user and password
    opts.update(security_protocol='SASL_PLAINTEXT', sasl_mechanism='PLAIN',
                sasl_plain_username=sys.argv[6], sasl_plain_password=sys.argv[7])

producer = KafkaProducer(compression_type=compression, linger_ms=20, **opts)
api_version = producer.config['api_version']
print('producer api_version', api_version, file=sys.stderr)
headers = [('origin', b'kafka-python')] if api_version >= (0, 11) else None
futures = [producer.send(topic, key=('key-%d' % i).encode(),
                         value=('value-%d-' % i + 'kwire speaks kafka ' * 12).encode(),
                         headers=headers)
           for i in range(n)]
for f in futures:
    f.get(timeout=20)
producer.flush(timeout=20)
producer.close(timeout=10)

consumer = KafkaConsumer(topic, group_id=None, auto_offset_reset='earliest', **opts)
print('consumer api_version', consumer.config['api_version'], file=sys.stderr)
got = 0
for m in consumer:
    hs = ','.join('%s=%s' % (k, v.decode()) for k, v in (m.headers or []))
    print('%d\t%d\t%s\t%s\t%s' % (m.partition, m.offset, m.key.decode(), m.value.decode(), hs))
    got += 1
    if got == n:
        break
consumer.close()
`

func TestKafkaPython(t *testing.T) {
	python := needKafkaPython(t)
	script := filepath.Join(t.TempDir(), "client.py")
	require.NoError(t, os.WriteFile(script, []byte(pythonScript), 0o644))
	all := []string{"ApiVersions", "Metadata", "Produce", "ListOffsets", "Fetch"}
	// gzip is the only codec kafka-python has without extra modules.
	cases := []struct {
		name, api string
		codec     record.Codec
		apis      []string
		sasl      bool
	}{
		{"auto-none", "auto", record.CodecNone, all, false},
		{"auto-gzip", "auto", record.CodecGzip, all, false},
		// SaslHandshake v0, then the PLAIN token as a raw frame.
		{"auto-sasl", "auto", record.CodecNone, append(all, "SaslHandshake"), true},
		{"2.0-none", "2.0.0", record.CodecNone, all[1:], false},     // Produce v6
		{"1.0-gzip", "1.0.0", record.CodecGzip, all[1:], false},     // Produce v4
		{"0.11-none", "0.11.0", record.CodecNone, all[1:], false},   // Produce v3, the first with record batches
		{"0.10.1-gzip", "0.10.1", record.CodecGzip, all[1:], false}, // Produce v2, magic 1
		{"0.9-none", "0.9", record.CodecNone, all[1:], false},       // Produce v1, magic 0
		{"0.8.2-gzip", "0.8.2", record.CodecGzip, all[1:], false},   // Produce v0, magic 0
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			const partitions, n = 3, 6
			b := startBroker(t, partitions)
			topic := "python-" + tc.name
			compression := "none"
			if tc.codec == record.CodecGzip {
				compression = "gzip"
			}
			args := []string{script, b.Addr(), topic, compression, strconv.Itoa(n), tc.api}
			if tc.sasl {
				b.SetSASLPlain(map[string]string{"alice": "s3cret"})
				args = append(args, "alice", "s3cret")
			}
			out := run(t, "", python, args...)

			wantHeaders := ""
			if !slices.Contains([]string{"0.8.2", "0.9", "0.10.1"}, tc.api) { // headers came with magic 2, in 0.11
				wantHeaders = "origin=kafka-python"
			}
			stored, codecs, _ := readStored(t, b, topic)
			require.Len(t, stored, n)
			for _, r := range stored {
				require.True(t, strings.HasPrefix(r.value, strings.Replace(r.key, "key", "value", 1)+"-"), "record %+v", r)
				require.Equal(t, wantHeaders, r.headers)
			}
			require.Equal(t, []record.Codec{tc.codec}, keys(codecs))

			got := parseConsumed(t, "python", out)
			sortRecords(got)
			sortRecords(stored)
			require.Equal(t, stored, got, "what kafka-python consumed vs what the broker stored")

			seen := checkFrames(t, "kafka-python "+tc.name, b)
			requireAPIs(t, "kafka-python "+tc.name, seen, tc.apis...)
			if tc.sasl {
				tokens := 0
				for _, f := range b.Frames() {
					if f.SASLToken {
						tokens++
						// [authzid] NUL authcid NUL passwd; kafka-python repeats the user as authzid
						require.True(t, strings.HasSuffix(string(f.Request[4:]), "\x00alice\x00s3cret"), "token %q", f.Request[4:])
					}
				}
				require.NotZero(t, tokens, "no raw SASL token")
			}
		})
	}
}

// TestKcatGroup consumes in a consumer group (kcat -G: librdkafka's
// balanced consumer): the broker's coordinator hands the only member every
// partition, offsets are committed on close, and a second run with the same
// group gets only what was produced since.
func TestKcatGroup(t *testing.T) {
	kcat := needKcat(t)
	b := startBroker(t, 3)
	const topic, groupID = "kcat-group", "kcat-consumers"
	produce := func(from, to int) {
		var in strings.Builder
		for i := from; i < to; i++ {
			fmt.Fprintf(&in, "key-%d:value-%d\n", i, i)
		}
		run(t, in.String(), kcat, "-P", "-b", b.Addr(), "-t", topic, "-K:")
		require.True(t, b.WaitRecords(topic, int64(to), 10*time.Second))
	}
	consume := func() []string {
		out := run(t, "", kcat, "-b", b.Addr(), "-G", groupID, "-X", "auto.offset.reset=earliest", "-e", "-q",
			"-f", "%k=%s\n", topic)
		lines := strings.Fields(out)
		sort.Strings(lines)
		return lines
	}
	ends := func() map[string]map[int32]int64 {
		out := map[string]map[int32]int64{topic: {}}
		for p := range int32(3) {
			var n int64
			for _, raw := range b.Batches(topic, p) {
				bs, _, err := record.ReadBatches(raw)
				require.NoError(t, err)
				n = bs[len(bs)-1].LastOffset() + 1
			}
			if n > 0 {
				out[topic][p] = n
			}
		}
		return out
	}
	want := func(from, to int) []string {
		var w []string
		for i := from; i < to; i++ {
			w = append(w, fmt.Sprintf("key-%d=value-%d", i, i))
		}
		sort.Strings(w)
		return w
	}

	produce(0, 6)
	require.Equal(t, want(0, 6), consume())
	require.Equal(t, ends(), b.CommittedOffsets(groupID), "committed offsets after the first run")
	produce(6, 9)
	require.Equal(t, want(6, 9), consume(), "the second run starts at the committed offsets")
	require.Equal(t, ends(), b.CommittedOffsets(groupID), "committed offsets after the second run")

	seen := checkFrames(t, "kcat -G", b)
	requireAPIs(t, "kcat -G", seen, "ApiVersions", "Metadata", "Produce", "Fetch",
		"FindCoordinator", "JoinGroup", "SyncGroup", "LeaveGroup", "OffsetCommit", "OffsetFetch")
}

// TestKcatSASL authenticates with SASL/PLAIN (librdkafka: SaslHandshake
// v1, then SaslAuthenticate), produces and consumes; a wrong password is
// refused.
func TestKcatSASL(t *testing.T) {
	kcat := needKcat(t)
	b := startBroker(t, 2)
	b.SetSASLPlain(map[string]string{"alice": "s3cret"})
	sasl := func(pass string) []string {
		return []string{"-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanisms=PLAIN",
			"-X", "sasl.username=alice", "-X", "sasl.password=" + pass}
	}
	const topic = "kcat-sasl"
	run(t, "key-0:value-0\nkey-1:value-1\nkey-2:value-2\n", kcat,
		append([]string{"-P", "-b", b.Addr(), "-t", topic, "-K:"}, sasl("s3cret")...)...)
	out := run(t, "", kcat, append([]string{"-C", "-b", b.Addr(), "-t", topic, "-o", "beginning", "-e", "-q",
		"-f", "%k=%s\n"}, sasl("s3cret")...)...)
	lines := strings.Fields(out)
	sort.Strings(lines)
	require.Equal(t, []string{"key-0=value-0", "key-1=value-1", "key-2=value-2"}, lines)
	seen := checkFrames(t, "kcat SASL", b)
	requireAPIs(t, "kcat SASL", seen, "ApiVersions", "SaslHandshake", "SaslAuthenticate", "Metadata", "Produce", "Fetch")

	// A wrong password: the broker answers SASL_AUTHENTICATION_FAILED and
	// closes; kcat gives up.
	cmd := proctest.Command(t, cmdTimeout, kcat, append([]string{"-L", "-b", b.Addr(), "-m", "2"}, sasl("wrong")...)...)
	msg, err := cmd.CombinedOutput()
	require.Error(t, err, "kcat accepted a wrong password: %s", msg)
	require.Contains(t, string(msg), "uthentication failed")
}

// TestKcatTransaction produces in a transaction (librdkafka's transactional
// producer: FindCoordinator for the transactional id, InitProducerId,
// AddPartitionsToTxn, Produce, EndTxn); the broker writes a commit marker
// after the records of each partition, and a read_committed consumer gets
// them all.
func TestKcatTransaction(t *testing.T) {
	kcat := needKcat(t)
	b := startBroker(t, 3)
	const topic, n = "kcat-txn", 6
	var in strings.Builder
	want := map[string]string{}
	for i := range n {
		fmt.Fprintf(&in, "key-%d:value-%d\n", i, i)
		want[fmt.Sprintf("key-%d", i)] = fmt.Sprintf("value-%d", i)
	}
	run(t, in.String(), kcat, "-P", "-b", b.Addr(), "-t", topic, "-K:", "-X", "transactional.id=kcat-txn")

	stored, _, batches := readStored(t, b, topic)
	require.Len(t, stored, n)
	for _, r := range stored {
		require.Equal(t, want[r.key], r.value)
	}
	markers := 0
	for _, bt := range batches {
		require.True(t, bt.Attributes.Transactional(), "batch at %d", bt.BaseOffset)
		require.GreaterOrEqual(t, bt.ProducerID, int64(0))
		if !bt.Attributes.Control() {
			continue
		}
		recs, err := bt.Records()
		require.NoError(t, err)
		require.Len(t, recs, 1)
		key, err := recs[0].ControlKey()
		require.NoError(t, err)
		require.Equal(t, record.ControlCommit, key.Type)
		_, err = record.ParseEndTxnMarker(recs[0].Value)
		require.NoError(t, err)
		markers++
	}
	partitions := map[int32]bool{}
	for _, r := range stored {
		partitions[r.partition] = true
	}
	require.Equal(t, len(partitions), markers, "one commit marker per partition written")

	out := run(t, "", kcat, "-C", "-b", b.Addr(), "-t", topic, "-o", "beginning", "-e", "-q",
		"-X", "isolation.level=read_committed", "-f", "%p\t%o\t%k\t%s\t%h\n")
	var got []storedRecord
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		f := strings.Split(line, "\t")
		require.Len(t, f, 5, "kcat line %q", line)
		p, err := strconv.Atoi(f[0])
		require.NoError(t, err)
		o, err := strconv.ParseInt(f[1], 10, 64)
		require.NoError(t, err)
		got = append(got, storedRecord{int32(p), o, f[2], f[3], f[4]})
	}
	sortRecords(got)
	sortRecords(stored)
	require.Equal(t, stored, got)

	seen := checkFrames(t, "kcat transaction", b)
	requireAPIs(t, "kcat transaction", seen, "ApiVersions", "Metadata", "Produce", "Fetch",
		"FindCoordinator", "InitProducerId", "AddPartitionsToTxn", "EndTxn")
}

// pythonGroupScript produces n messages, consumes them in a group,
// produces m more and consumes again with a new consumer of the same
// group, which starts at the offsets the first one committed on close.
const pythonGroupScript = `
import sys, logging
from kafka import KafkaProducer, KafkaConsumer

logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
addr, topic, group, n, m, api = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
opts = dict(bootstrap_servers=addr, request_timeout_ms=10000)
if api != 'auto':
    opts['api_version'] = tuple(int(x) for x in api.split('.'))

def produce(lo, hi):
    p = KafkaProducer(**opts)
    for i in range(lo, hi):
        p.send(topic, key=b'key-%d' % i, value=b'value-%d' % i).get(timeout=20)
    p.close(timeout=10)

def consume(run, want):
    c = KafkaConsumer(topic, group_id=group, auto_offset_reset='earliest', enable_auto_commit=True,
                      session_timeout_ms=6000, heartbeat_interval_ms=500, **opts)
    got = 0
    for msg in c:
        print('%d\t%s=%s' % (run, msg.key.decode(), msg.value.decode()))
        got += 1
        if got == want:
            break
    c.close()  # commits

produce(0, n)
consume(1, n)
produce(n, n + m)
consume(2, m)
`

func TestKafkaPythonGroup(t *testing.T) {
	python := needKafkaPython(t)
	script := filepath.Join(t.TempDir(), "group.py")
	require.NoError(t, os.WriteFile(script, []byte(pythonGroupScript), 0o644))
	for _, api := range []string{"auto", "0.9"} {
		t.Run(api, func(t *testing.T) {
			t.Parallel()
			b := startBroker(t, 3)
			const n, m = 5, 3
			topic, groupID := "python-group-"+api, "python-consumers"
			out := run(t, "", python, script, b.Addr(), topic, groupID, strconv.Itoa(n), strconv.Itoa(m), api)
			got := map[string][]string{}
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				f := strings.Split(line, "\t")
				require.Len(t, f, 2, "python line %q", line)
				got[f[0]] = append(got[f[0]], f[1])
			}
			want := func(from, to int) []string {
				var w []string
				for i := from; i < to; i++ {
					w = append(w, fmt.Sprintf("key-%d=value-%d", i, i))
				}
				return w
			}
			sort.Strings(got["1"])
			sort.Strings(got["2"])
			require.Equal(t, want(0, n), got["1"])
			require.Equal(t, want(n, n+m), got["2"], "the second consumer starts at the committed offsets")
			var total int64
			for _, o := range b.CommittedOffsets(groupID)[topic] {
				total += o
			}
			require.EqualValues(t, n+m, total, "committed offsets: %v", b.CommittedOffsets(groupID))

			seen := checkFrames(t, "kafka-python group "+api, b)
			requireAPIs(t, "kafka-python group "+api, seen, "Metadata", "Produce", "Fetch",
				"FindCoordinator", "JoinGroup", "SyncGroup", "OffsetCommit", "OffsetFetch")
		})
	}
}

// TestSummary runs last (tests run in file order) and logs, per client,
// every (API, version) pair the tests above saw.
func TestSummary(t *testing.T) {
	summary.Lock()
	defer summary.Unlock()
	if len(summary.seen) == 0 {
		t.Skip("no client ran")
	}
	for _, c := range keys(summary.seen) {
		t.Logf("%s: %s", c, formatPairs(summary.seen[c]))
	}
}

// -- the broker itself --------------------------------------------------------

// An API the broker does not implement closes the connection, and so does
// a frame size out of bounds.
func TestBrokerClosesOnUnsupported(t *testing.T) {
	b := startBroker(t, 1)
	client := "probe"
	for _, frame := range [][]byte{
		must(kwire.AppendRequest(nil, messages.NewCreateTopicsRequest(), 4, 7, &client)), // CreateTopics: not implemented
		must(kwire.AppendRequest(nil, messages.NewMetadataRequest(), 13, 8, &client)),    // Metadata v13: above the range
		{0x7f, 0xff, 0xff, 0xff}, // 2 GiB frame
		// The header of a 50 MB CreateTopics, no body: refused on the header.
		{0x03, 0x00, 0x00, 0x00, 0x00, 0x13, 0x00, 0x04, 0x00, 0x00, 0x00, 0x07},
	} {
		c, err := net.DialTimeout("tcp", b.Addr(), 5*time.Second)
		require.NoError(t, err)
		require.NoError(t, c.SetDeadline(time.Now().Add(5*time.Second)))
		_, err = c.Write(frame)
		require.NoError(t, err)
		_, err = c.Read(make([]byte, 1))
		require.ErrorIs(t, err, io.EOF)
		c.Close()
	}
	// ApiVersions newer than the broker knows: a v0 answer with
	// UNSUPPORTED_VERSION and the ApiVersions range, as Kafka does.
	req := must(kwire.AppendRequest(nil, messages.NewApiVersionsRequest(), 4, 9, &client))
	binary.BigEndian.PutUint16(req[6:], 99)
	h, body, err := messages.ReadResponse(exchange(t, b.Addr(), req), 18, 0)
	require.NoError(t, err)
	require.EqualValues(t, 9, h.CorrelationID)
	av := body.(*messages.ApiVersionsResponse)
	require.EqualValues(t, errUnsupportedVersion, av.ErrorCode)
	require.Equal(t, []messages.ApiVersionsResponseApiVersion{{ApiKey: 18, MinVersion: 0, MaxVersion: 5}}, av.ApiKeys)
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// TestRequestHeaderTags sends a flexible request whose header carries a
// tagged field (no real client here does): the broker answers it, and
// checkFrames re-encodes it with the tags spliced back in.
func TestRequestHeaderTags(t *testing.T) {
	b := startBroker(t, 1)
	client := "crafted"
	req := messages.NewApiVersionsRequest()
	req.ClientSoftwareName, req.ClientSoftwareVersion = "kwire", "0"
	frame := must(kwire.AppendRequest(nil, req, 3, 11, &client))
	at := 4 + 8 + 2 + len(client) // the header's empty tag section
	require.EqualValues(t, 0, frame[at])
	tags := kwire.NewUnknownTags(kwire.TaggedField{Tag: 7, Data: []byte("hello")})
	frame = append(append(frame[:at:at], appendTags(nil, tags)...), frame[at+1:]...)
	binary.BigEndian.PutUint32(frame, uint32(len(frame)-4))

	hdr, _, err := messages.ReadRequest(frame)
	require.NoError(t, err)
	require.Equal(t, tags, hdr.UnknownTags)

	_, body, err := messages.ReadResponse(exchange(t, b.Addr(), frame), 18, 3)
	require.NoError(t, err)
	require.Len(t, body.(*messages.ApiVersionsResponse).ApiKeys, len(Supported))

	seen := checkFrames(t, "crafted", b)
	require.Equal(t, map[apiVersion]int{{18, 3}: 1}, seen)
}

// parseConsumed reads a client's consumed records, one a line:
// partition, offset, key, value, headers, tab-separated.
func parseConsumed(t *testing.T, client, out string) []storedRecord {
	t.Helper()
	var got []storedRecord
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		f := strings.Split(line, "\t")
		require.Len(t, f, 5, "%s line %q", client, line)
		p, err := strconv.Atoi(f[0])
		require.NoError(t, err)
		o, err := strconv.ParseInt(f[1], 10, 64)
		require.NoError(t, err)
		got = append(got, storedRecord{int32(p), o, f[2], f[3], f[4]})
	}
	return got
}
