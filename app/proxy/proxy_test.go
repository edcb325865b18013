package proxy

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/app/secrettest"
	"github.com/kwirelabs/kwire/app/trafficlog"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// fakeUpstream records every byte it receives and answers each frame
// with the next canned response (nil: no answer).
type fakeUpstream struct {
	ln      net.Listener
	mu      sync.Mutex
	got     bytes.Buffer
	answers chan []byte
}

func startUpstream(t *testing.T) *fakeUpstream {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	u := &fakeUpstream{ln: ln, answers: make(chan []byte, 16)}
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		frames := kwire.NewFrameReader(c, 0)
		for {
			f, err := frames.Next()
			if err != nil {
				return
			}
			u.mu.Lock()
			u.got.Write(f)
			u.mu.Unlock()
			if a := <-u.answers; a != nil {
				c.Write(a)
			}
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return u
}

func (u *fakeUpstream) received() []byte {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]byte(nil), u.got.Bytes()...)
}

// syncBuffer is a log sink safe for the log goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func readFrame(t *testing.T, c net.Conn) []byte {
	t.Helper()
	f, err := kwire.NewFrameReader(c, 0).Next()
	require.NoError(t, err)
	return append([]byte(nil), f...)
}

// running is a proxy serving in a test, with its log.
type running struct {
	*Proxy
	log    *trafficlog.Writer
	stop   context.CancelFunc
	served chan error
}

// close stops the proxy (draining) and closes its log.
func (r *running) close() error {
	r.stop()
	select {
	case err := <-r.served:
		if err != nil {
			return err
		}
	case <-time.After(testDeadline):
		return fmt.Errorf("Serve did not return within %v of its context's end", testDeadline)
	}
	if r.log == nil {
		return nil
	}
	return r.log.Close()
}

// startProxy serves cfg (Upstream set) on a loopback port, logging text
// to out (nil: no log).
func startProxy(t *testing.T, cfg Config, out io.Writer, opts trafficlog.Options) *running {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	r := &running{served: make(chan error, 1)}
	if out != nil { // nil: no log
		r.log = trafficlog.NewWriter(out, opts)
		cfg.Log = r.log
	}
	r.Proxy = New(cfg)
	ctx, stop := context.WithCancel(context.Background())
	r.stop = stop
	go func() { r.served <- r.ServeListener(ctx, ln) }()
	recv(t, r.Ready())
	t.Cleanup(func() { stop() })
	return r
}

// proxyThrough starts a fake upstream, a proxy in front of it logging
// to the returned buffer, and a client connection to the proxy.
func proxyThrough(t *testing.T) (*fakeUpstream, *running, *syncBuffer, net.Conn) {
	t.Helper()
	up := startUpstream(t)
	log := &syncBuffer{}
	p := startProxy(t, Config{Upstream: up.ln.Addr().String()}, log, trafficlog.Options{})
	c, err := dialT(t, p.Addr().String())
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return up, p, log, c
}

func frameOf(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// TestStripUnknown: with StripUnknown, ApiVersions loses the keys kwire
// does not know; without it (TestProxyRelays) they stay.
func TestStripUnknown(t *testing.T) {
	up := startUpstream(t)
	p := startProxy(t, Config{Upstream: up.ln.Addr().String(), StripUnknown: true}, io.Discard, trafficlog.Options{})
	c, err := dialT(t, p.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	avResp := messages.NewApiVersionsResponse()
	avResp.ApiKeys = []messages.ApiVersionsResponseApiVersion{{ApiKey: 3, MaxVersion: 12}, {ApiKey: 10000, MaxVersion: 2}, {ApiKey: 513, MaxVersion: 0}}
	up.answers <- frameOf(kwire.AppendResponse(nil, avResp, 3, 1))
	_, err = c.Write(frameOf(kwire.AppendRequest(nil, messages.NewApiVersionsRequest(), 3, 1, nil)))
	require.NoError(t, err)
	_, body, err := messages.ReadResponse(readFrame(t, c), 18, 3)
	require.NoError(t, err)
	assert.Equal(t, []messages.ApiVersionsResponseApiVersion{{ApiKey: 3, MaxVersion: 12}}, body.(*messages.ApiVersionsResponse).ApiKeys)
}

// TestProxyRelays: client bytes reach the upstream untouched (even a
// frame kwire cannot decode), ApiVersions is clamped, an ApiVersions
// newer than kwire is answered by the proxy, broker addresses are
// rewritten to new listeners, and every message is logged.
func TestProxyRelays(t *testing.T) {
	up, p, log, c := proxyThrough(t)
	client := "proxy-test"
	var sent []byte
	send := func(frame []byte, answer []byte) {
		up.answers <- answer
		sent = append(sent, frame...)
		_, err := c.Write(frame)
		require.NoError(t, err)
	}

	// 1. ApiVersions v3: the answer offers more than kwire reads.
	avResp := messages.NewApiVersionsResponse()
	avResp.ApiKeys = []messages.ApiVersionsResponseApiVersion{{ApiKey: 0, MinVersion: 0, MaxVersion: 99}, {ApiKey: 9999, MaxVersion: 3}}
	send(frameOf(kwire.AppendRequest(nil, messages.NewApiVersionsRequest(), 3, 1, &client)),
		frameOf(kwire.AppendResponse(nil, avResp, 3, 1)))
	_, body, err := messages.ReadResponse(readFrame(t, c), 18, 3)
	require.NoError(t, err)
	produce, _ := messages.Lookup(0)
	assert.Equal(t, []messages.ApiVersionsResponseApiVersion{{ApiKey: 0, MinVersion: 0, MaxVersion: produce.MaxStable()},
		{ApiKey: 9999, MaxVersion: 3}}, body.(*messages.ApiVersionsResponse).ApiKeys, "a key kwire does not know is kept")

	// 2. ApiVersions v99: the proxy answers, as Kafka would; nothing goes upstream.
	av99 := frameOf(kwire.AppendRequest(nil, messages.NewApiVersionsRequest(), 3, 2, &client))
	binary.BigEndian.PutUint16(av99[6:], 99)
	_, err = c.Write(av99)
	require.NoError(t, err)
	h, body, err := messages.ReadResponse(readFrame(t, c), 18, 0)
	require.NoError(t, err)
	assert.EqualValues(t, 2, h.CorrelationID)
	assert.EqualValues(t, 35, body.(*messages.ApiVersionsResponse).ErrorCode)

	// 3. Metadata: the upstream's broker becomes a proxy listener.
	md := messages.NewMetadataResponse()
	md.Brokers = []messages.MetadataResponseBroker{{NodeID: 7, Host: "192.0.2.1", Port: 9092}}
	send(frameOf(kwire.AppendRequest(nil, messages.NewMetadataRequest(), 12, 3, &client)),
		frameOf(kwire.AppendResponse(nil, md, 12, 3)))
	_, body, err = messages.ReadResponse(readFrame(t, c), 3, 12)
	require.NoError(t, err)
	b := body.(*messages.MetadataResponse).Brokers[0]
	assert.Equal(t, "127.0.0.1", b.Host)
	assert.Equal(t, p.local["192.0.2.1:9092"], int(b.Port))

	// 4. A frame of an API kwire does not know: relayed both ways untouched.
	unknown := []byte{0, 0, 0, 12, 0x03, 0xe7, 0, 1, 0, 0, 0, 4, 0xff, 0xff, 0xab, 0xcd}[:16]
	binary.BigEndian.PutUint32(unknown, uint32(len(unknown)-4))
	odd := []byte{0, 0, 0, 6, 0, 0, 0, 4, 0x12, 0x34}
	send(unknown, odd)
	assert.Equal(t, odd, readFrame(t, c))

	// 5. acks=0 Produce: relayed, no response expected.
	pr := messages.NewProduceRequest()
	pr.Acks = 0
	send(frameOf(kwire.AppendRequest(nil, pr, 9, 5, &client)), nil)

	// 6. Heartbeat after it: paired although Produce got no answer.
	hb := messages.NewHeartbeatResponse()
	hb.ErrorCode = 27
	send(frameOf(kwire.AppendRequest(nil, messages.NewHeartbeatRequest(), 4, 6, &client)),
		frameOf(kwire.AppendResponse(nil, hb, 4, 6)))
	readFrame(t, c)

	c.Close()
	require.NoError(t, p.close())
	assert.Equal(t, sent, up.received(), "the upstream got every client byte, untouched, but the ApiVersions v99")

	text := log.String()
	t.Logf("the log:\n%s", text)
	lines := strings.Split(strings.TrimSpace(text), "\n")
	require.Len(t, lines, 11, text)
	assert.Regexp(t, ` #1 open     \| from 127\.0\.0\.1:\d+ to 127\.0\.0\.1:\d+$`, lines[0])
	lines = lines[1:]
	for i, want := range []string{
		`request  ApiVersions v3 corr=1 client="proxy-test" | ApiVersionsRequest v3`,
		`response ApiVersions v3 corr=1 client="proxy-test"`,
		`request  ApiVersions v99 corr=2 | answered by the proxy`,
		`request  Metadata v12 corr=3`,
		`response Metadata v12 corr=3`,
		`request  key999 v1 corr=4 | UNDECODABLE: `,
		`response key999 v1 corr=4`,
		`request  Produce v9 corr=5`,
		`request  Heartbeat v4 corr=6`,
		`response Heartbeat v4 corr=6`,
	} {
		assert.Contains(t, lines[i], want, "line %d", i)
	}
	assert.Contains(t, lines[1], "versions clamped")
	assert.Contains(t, lines[4], "1 broker addresses rewritten")
	assert.Contains(t, lines[6], "UNDECODABLE: ")
	assert.Contains(t, lines[7], "no response expected (acks=0)")
	assert.Contains(t, lines[9], "errors=ErrorCode=REBALANCE_IN_PROGRESS")
}

// TestProxySASLv0: after a SaslHandshake v0, the raw tokens and the
// broker's answers (PLAIN's empty) pass through as they are, one round
// for PLAIN, two for SCRAM, and Kafka messages follow as before; the log
// names the user and holds no secret.
func TestProxySASLv0(t *testing.T) {
	const proof = "dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="
	for _, c := range []struct {
		mechanism string
		rounds    [][2]string // client token, broker token
		secret    string
	}{
		{"PLAIN", [][2]string{{"\x00alice\x00pass", ""}}, "pass"},
		{"SCRAM-SHA-256", [][2]string{
			{"n,,n=alice,r=rOprNGfwEbeRWgbNEkqO", "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"},
			{"c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=" + proof, "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="},
		}, proof},
	} {
		t.Run(c.mechanism, func(t *testing.T) {
			up, p, log, conn := proxyThrough(t)
			client := "sasl"
			hs := messages.NewSaslHandshakeRequest()
			hs.Mechanism = c.mechanism
			hsResp := messages.NewSaslHandshakeResponse()
			hsResp.Mechanisms = []string{c.mechanism}
			raw := func(token string) []byte {
				return append(binary.BigEndian.AppendUint32(nil, uint32(len(token))), token...)
			}
			steps := [][2][]byte{{frameOf(kwire.AppendRequest(nil, hs, 0, 1, &client)), frameOf(kwire.AppendResponse(nil, hsResp, 0, 1))}}
			for _, r := range c.rounds {
				steps = append(steps, [2][]byte{raw(r[0]), raw(r[1])})
			}
			steps = append(steps, [2][]byte{frameOf(kwire.AppendRequest(nil, messages.NewMetadataRequest(), 4, 2, &client)),
				frameOf(kwire.AppendResponse(nil, messages.NewMetadataResponse(), 4, 2))})
			var sent []byte
			for _, step := range steps {
				up.answers <- step[1]
				sent = append(sent, step[0]...)
				_, err := conn.Write(step[0])
				require.NoError(t, err)
				fr := kwire.NewFrameReader(conn, 0)
				fr.AllowEmpty = true
				require.NoError(t, conn.SetReadDeadline(time.Now().Add(10*time.Second))) // a hang fails, with the log
				got, err := fr.Next()
				require.NoError(t, err, "the log:\n%s", log.String())
				assert.Equal(t, step[1], got)
			}
			conn.Close()
			require.NoError(t, p.close())
			assert.Equal(t, sent, up.received())
			text := log.String()
			assert.Equal(t, 2*len(c.rounds), strings.Count(text, "raw SASL token"), text)
			form, found := secrettest.Find([]byte(text), []byte(c.secret))
			assert.False(t, found, "a secret in the log (%s):\n%s", form, text)
			assert.Contains(t, text, `user="alice"`)
			assert.NotContains(t, text, "UNDECODABLE", text)
			assert.Contains(t, text, "response Metadata v4 corr=2", text)
		})
	}
}

// stalledOutput takes no bytes until released: a FIFO nobody reads.
type stalledOutput struct{ release chan struct{} }

func (s stalledOutput) Write(p []byte) (int, error) { <-s.release; return len(p), nil }

// TestProxyStalledLogDoesNotStallTraffic: 5,000 requests relay and are
// answered while the log's output takes nothing; close reports the lines
// lost rather than hanging.
func TestProxyStalledLogDoesNotStallTraffic(t *testing.T) {
	up := startUpstream(t)
	out := stalledOutput{release: make(chan struct{})}
	defer close(out.release)
	p := startProxy(t, Config{Upstream: up.ln.Addr().String()}, out, trafficlog.Options{Queue: 64, FlushTimeout: time.Millisecond})
	addr := p.Addr().String()
	c, err := dialT(t, addr)
	require.NoError(t, err)
	defer c.Close()
	client := "stall"
	hb := frameOf(kwire.AppendResponse(nil, messages.NewHeartbeatResponse(), 4, 1))
	go func() {
		for range 5000 {
			up.answers <- hb
		}
	}()
	frames := kwire.NewFrameReader(c, 0)
	for i := range 5000 {
		_, err := c.Write(frameOf(kwire.AppendRequest(nil, messages.NewHeartbeatRequest(), 4, int32(i), &client)))
		require.NoError(t, err)
		_, err = frames.Next()
		require.NoError(t, err, "response %d", i)
	}
	assert.Positive(t, p.log.Dropped())
	c.Close()
	err = p.close()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "dropped")
}
