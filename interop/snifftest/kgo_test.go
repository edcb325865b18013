package snifftest

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"

	"github.com/kwirelabs/kwire/app/secrettest"
	"github.com/kwirelabs/kwire/app/sniff"
	"github.com/kwirelabs/kwire/app/sniff/capturetest"
	"github.com/kwirelabs/kwire/app/trafficlog"
	"github.com/kwirelabs/kwire/kwire"
)

// recorder is a dialer that relays a client's connections and records
// every chunk each way as TCP segments of a capture, in the order the
// chunks passed; it also keeps each connection's two byte streams, the
// ground truth the capture reader is checked against.
type recorder struct {
	mu      sync.Mutex
	capture *capturetest.Capture
	conns   []*recorded
}

type recorded struct {
	r *recorder
	net.Conn
	tcp                *capturetest.Conn
	client             string
	toServer, toClient bytes.Buffer
	closed             bool
}

func newRecorder() *recorder { return &recorder{capture: capturetest.New()} }

func (r *recorder) dial(ctx context.Context, network, host string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, host)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	rc := &recorded{r: r, Conn: c, client: c.LocalAddr().String()}
	rc.tcp = r.capture.Dial(rc.client, c.RemoteAddr().String(), true)
	r.conns = append(r.conns, rc)
	return rc, nil
}

func (c *recorded) Write(b []byte) (int, error) {
	c.r.mu.Lock()
	c.tcp.Send(true, b, 1460)
	c.toServer.Write(b)
	c.r.mu.Unlock()
	return c.Conn.Write(b)
}

// Close captures the FINs: a later connection may reuse the port.
func (c *recorded) Close() error {
	c.r.mu.Lock()
	if !c.closed {
		c.closed = true
		c.tcp.Close()
	}
	c.r.mu.Unlock()
	return c.Conn.Close()
}

func (c *recorded) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 {
		c.r.mu.Lock()
		c.tcp.Send(false, b[:n], 1460)
		c.toClient.Write(b[:n])
		c.r.mu.Unlock()
	}
	return n, err
}

// frame is one frame of a recorded stream.
type frame struct {
	corr int32
	key  int16 // requests
}

// frames splits a recorded stream into frames (kgo authenticates with
// SaslAuthenticate: no raw tokens).
func frames(t *testing.T, b []byte, requests bool) []frame {
	var out []frame
	for len(b) >= 4 {
		n := int(binary.BigEndian.Uint32(b))
		if len(b) < 4+n {
			break // the client closed while a response was on its way
		}
		f := b[:4+n]
		if requests {
			key, _, corr, err := kwire.PeekRequest(f)
			require.NoError(t, err)
			out = append(out, frame{corr: corr, key: key})
		} else {
			corr, err := kwire.PeekResponse(f)
			require.NoError(t, err)
			out = append(out, frame{corr: corr})
		}
		b = b[4+n:]
	}
	return out
}

// TestKgoAgainstKfake: kgo logs in with SASL PLAIN, produces 2,000
// records with each codec, consumes them back in a group and commits,
// against a 3-broker kfake cluster. Every request and response on every
// connection comes out of the capture decoded and paired, from pcap and
// pcapng, and the password is in no line.
func TestKgoAgainstKfake(t *testing.T) {
	rec, _ := kgoTraffic(t)
	const secret = kgoSecret
	rec.mu.Lock()
	defer rec.mu.Unlock()
	// A client's port may serve two connections in turn, so frames are
	// counted by client address, correlation id and API key.
	type key struct {
		client string
		corr   int32
		api    int16
	}
	wantReq, wantResp := map[key]int{}, map[key]int{}
	requests := 0
	for _, c := range rec.conns {
		reqs := frames(t, c.toServer.Bytes(), true)
		api := map[int32]int16{}
		for _, f := range reqs {
			wantReq[key{c.client, f.corr, f.key}]++
			api[f.corr] = f.key
		}
		requests += len(reqs)
		for _, f := range frames(t, c.toClient.Bytes(), false) {
			wantResp[key{c.client, f.corr, api[f.corr]}]++
		}
	}
	require.Greater(t, requests, 50)

	for _, format := range []string{"pcap", "pcapng"} {
		t.Run(format, func(t *testing.T) {
			data := rec.capture.Pcap()
			if format == "pcapng" {
				data = rec.capture.Pcapng()
			}
			gotReq, gotResp := map[key]int{}, map[key]int{}
			var log bytes.Buffer
			var line []byte
			stats, err := sniff.Read(bytes.NewReader(data), sniff.Options{}, func(r *sniff.Record) {
				e := trafficlog.Event{Time: r.Time, Conn: r.Conn, Dir: trafficlog.Dir(r.Kind), Key: r.Key, Version: r.Version,
					CorrelationID: r.CorrelationID, ClientID: r.ClientID, Latency: r.Latency, ClientAddr: r.Client,
					Principal: r.Principal, Msg: r.Msg, Err: r.Err, Note: r.Note}
				log.Write(trafficlog.AppendJSON(line[:0], e))
				log.Write(trafficlog.AppendText(line[:0], e))
				k := key{r.Client, r.CorrelationID, r.Key}
				switch {
				case r.Err != nil || r.Msg == nil:
				case r.Kind == sniff.Request:
					gotReq[k]++
				case r.Kind == sniff.Response && r.ClientID != nil && *r.ClientID == "sniff-kgo":
					gotResp[k]++
				}
			})
			require.NoError(t, err)
			assert.Equal(t, wantReq, gotReq, "requests decoded")
			assert.Equal(t, wantResp, gotResp, "responses decoded and paired")
			paired := 0
			for _, n := range wantResp {
				paired += n
			}
			assert.Equal(t, paired, int(stats.Paired))
			assert.Zero(t, stats.Undecodable+stats.Unpaired+stats.Gaps)
			assert.EqualValues(t, len(rec.conns), stats.Connections)
			text := log.String()
			if form, found := secrettest.Find([]byte(text), []byte(secret)); found {
				t.Errorf("the password is in the log as %s", form)
			}
			assert.Contains(t, text, `"principal":"alice"`)
			for _, api := range []string{"Produce", "Fetch", "JoinGroup", "SyncGroup", "OffsetCommit", "SaslAuthenticate"} {
				assert.True(t, strings.Contains(text, " "+api+" v"), "no %s in the log", api)
			}
			t.Logf("%d connections, %d requests, %d responses paired", stats.Connections, requests, stats.Paired)
		})
	}
}

func apiName(key int16) string {
	return trafficlog.APIName(key)
}

const kgoSecret = "kfake-s3cret"

// kgoTraffic runs the workload of TestKgoAgainstKfake and returns its
// recording and the brokers' ports.
func kgoTraffic(t *testing.T) (*recorder, []int) {
	const n, secret = 2000, kgoSecret
	cluster, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.SeedTopics(3, "sniff"),
		kfake.EnableSASL(), kfake.Superuser("PLAIN", "alice", secret))
	require.NoError(t, err)
	t.Cleanup(cluster.Close)
	rec := newRecorder()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	opts := []kgo.Opt{kgo.SeedBrokers(cluster.ListenAddrs()...), kgo.Dialer(rec.dial),
		kgo.SASL(plain.Auth{User: "alice", Pass: secret}.AsMechanism()), kgo.ClientID("sniff-kgo")}

	codecs := []kgo.CompressionCodec{kgo.NoCompression(), kgo.GzipCompression(), kgo.SnappyCompression(), kgo.Lz4Compression(), kgo.ZstdCompression()}
	for i, codec := range codecs {
		cl, err := kgo.NewClient(append(opts, kgo.DefaultProduceTopic("sniff"), kgo.ProducerBatchCompression(codec), kgo.ProducerLinger(2*time.Millisecond))...)
		require.NoError(t, err)
		for j := range n / len(codecs) {
			cl.Produce(ctx, &kgo.Record{Key: fmt.Appendf(nil, "k%d-%d", i, j), Value: fmt.Appendf(nil, "v%d-%d", i, j)}, nil)
		}
		require.NoError(t, cl.Flush(ctx))
		cl.Close()
	}
	cl, err := kgo.NewClient(append(opts, kgo.ConsumeTopics("sniff"), kgo.ConsumerGroup("sniff-group"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))...)
	require.NoError(t, err)
	got := 0
	for got < n {
		fs := cl.PollFetches(ctx)
		require.NoError(t, ctx.Err())
		got += fs.NumRecords()
	}
	require.NoError(t, cl.CommitUncommittedOffsets(ctx))
	cl.Close()

	var ports []int
	for _, a := range cluster.ListenAddrs() {
		_, p, err := net.SplitHostPort(a)
		require.NoError(t, err)
		n, err := strconv.Atoi(p)
		require.NoError(t, err)
		ports = append(ports, n)
	}
	return rec, ports
}
