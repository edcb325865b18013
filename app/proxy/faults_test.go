package proxy

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/app/testbroker"
	"github.com/kwirelabs/kwire/app/trafficlog"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// answeringUpstream accepts any number of connections and answers every
// request with its API's empty response (Metadata: the canned one).
type answeringUpstream struct {
	ln       net.Listener
	metadata atomic.Pointer[messages.MetadataResponse]
	hold     chan struct{} // when set, each answer waits for a value
}

func startAnswering(t *testing.T, ln net.Listener) *answeringUpstream {
	if ln == nil {
		var err error
		ln, err = net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
	}
	u := &answeringUpstream{ln: ln}
	testbroker.Serve(t, ln, u.answer)
	return u
}

func (u *answeringUpstream) answer(h kwire.RequestHeader, msg any) any {
	resp := testbroker.Empty(h, msg)
	if md := u.metadata.Load(); md != nil && h.APIKey == 3 {
		resp = md
	}
	if u.hold != nil {
		<-u.hold
	}
	return resp
}

// roundTrip sends a Heartbeat and reads its answer.
func roundTrip(c net.Conn, corr int32) error {
	if _, err := c.Write(frameOf(kwire.AppendRequest(nil, messages.NewHeartbeatRequest(), 4, corr, nil))); err != nil {
		return err
	}
	f, err := kwire.NewFrameReader(c, 0).Next()
	if err != nil {
		return err
	}
	got, err := kwire.PeekResponse(f)
	if err == nil && got != corr {
		err = fmt.Errorf("correlation id %d, want %d", got, corr)
	}
	return err
}

// flakyListener fails its first Accepts as a process out of file
// descriptors does.
type flakyListener struct {
	net.Listener
	fails atomic.Int32
}

func (l *flakyListener) Accept() (net.Conn, error) {
	if l.fails.Add(-1) >= 0 {
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: syscall.EMFILE}
	}
	return l.Listener.Accept()
}

// TestAcceptErrorsAreRetried (defect 2): EMFILE from Accept pauses the
// listener; it does not end it.
func TestAcceptErrorsAreRetried(t *testing.T) {
	up := startAnswering(t, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	fl := &flakyListener{Listener: ln}
	fl.fails.Store(5)
	var notices []string
	var mu sync.Mutex
	p := New(Config{Upstream: up.ln.Addr().String(), Notice: func(m string) { mu.Lock(); notices = append(notices, m); mu.Unlock() }})
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- p.ServeListener(ctx, fl) }()
	recv(t, p.Ready())
	c, err := dialT(t, ln.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, roundTrip(c, 1))
	stop()
	require.NoError(t, recv(t, served))
	mu.Lock()
	defer mu.Unlock()
	assert.Contains(t, fmt.Sprint(notices), "too many open files; retrying")
}

// downUpstream is the address of an upstream that is down: a port
// listened on and closed again, which the test may listen on later to
// bring the upstream back.
func downUpstream(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().String()
}

// requestWhileUpstreamDown starts a proxy of an upstream that is down
// and sends it msg (correlation id 7) from a client, returning once the
// proxy has dialled the upstream twice: the client's request is waiting.
// The upstream comes back when the test listens on addr.
func requestWhileUpstreamDown(t *testing.T, msg any, version int16) (c net.Conn, addr string, log *syncBuffer) {
	t.Helper()
	addr = downUpstream(t)
	log = &syncBuffer{}
	var dials atomic.Int32
	p := startProxy(t, Config{Upstream: addr, Dial: func(ctx context.Context, network, a string) (net.Conn, error) {
		dials.Add(1)
		return (&net.Dialer{}).DialContext(ctx, network, a)
	}}, log, trafficlog.Options{})
	c, err := dialT(t, p.Addr().String())
	require.NoError(t, err)
	_, err = c.Write(frameOf(kwire.AppendRequest(nil, msg, version, 7, nil)))
	require.NoError(t, err)
	waitUntil(t, "two dials", func() bool { return dials.Load() >= 2 })
	return c, addr, log
}

// TestUpstreamDialledBeforeRelaying (defect 3): a client that arrives
// while the upstream is down is held, not closed, while the proxy keeps
// dialling; when the upstream comes back its request is answered.
func TestUpstreamDialledBeforeRelaying(t *testing.T) {
	c, addr, log := requestWhileUpstreamDown(t, messages.NewHeartbeatRequest(), 4)
	defer c.Close()
	ln2, err := net.Listen("tcp", addr) // the upstream is back
	require.NoError(t, err)
	startAnswering(t, ln2)
	f, err := kwire.NewFrameReader(c, 0).Next()
	require.NoError(t, err, "log:\n%s", log.String())
	corr, _ := kwire.PeekResponse(f)
	assert.EqualValues(t, 7, corr)
}

// TestUpstreamDownClosesAfterDialTimeout (defect 3): a client whose
// upstream stays down is closed once the dial gives up, with the reason
// logged.
func TestUpstreamDownClosesAfterDialTimeout(t *testing.T) {
	addr := downUpstream(t)
	log := &syncBuffer{}
	p := startProxy(t, Config{Upstream: addr, DialTimeout: 1}, log, trafficlog.Options{})
	c, err := dialT(t, p.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	_, err = c.Write(frameOf(kwire.AppendRequest(nil, messages.NewHeartbeatRequest(), 4, 1, nil)))
	require.NoError(t, err)
	_, err = kwire.NewFrameReader(c, 0).Next()
	assert.ErrorIs(t, err, io.EOF)
	require.NoError(t, p.close())
	assert.Contains(t, log.String(), "upstream "+addr)
	assert.Contains(t, log.String(), "client closed")
}

// TestDialsAreConcurrent (defect 4): three clients whose dials hang are
// all being dialled at once, not one after another.
func TestDialsAreConcurrent(t *testing.T) {
	release := make(chan struct{})
	var inDial atomic.Int32
	all := make(chan struct{})
	p := startProxy(t, Config{Upstream: "192.0.2.1:9092", Dial: func(ctx context.Context, network, a string) (net.Conn, error) {
		if inDial.Add(1) == 3 {
			close(all)
		}
		select {
		case <-release:
		case <-ctx.Done():
		}
		return nil, errors.New("blackholed")
	}}, io.Discard, trafficlog.Options{})
	for range 3 {
		c, err := dialT(t, p.Addr().String())
		require.NoError(t, err)
		defer c.Close()
		_, err = c.Write(frameOf(kwire.AppendRequest(nil, messages.NewHeartbeatRequest(), 4, 1, nil)))
		require.NoError(t, err)
	}
	recv(t, all) // with serial dials this never happens
	close(release)
}

// TestIdleTimeout (defect 5): a client that sends nothing is closed after
// IdleTimeout; one waiting for an answer is not.
func TestIdleTimeout(t *testing.T) {
	up := startAnswering(t, nil)
	up.hold = make(chan struct{})
	log := &syncBuffer{}
	const idleTimeout = 20 * time.Millisecond
	p := startProxy(t, Config{Upstream: up.ln.Addr().String(), IdleTimeout: idleTimeout}, log, trafficlog.Options{})
	idle, err := dialT(t, p.Addr().String())
	require.NoError(t, err)
	defer idle.Close()
	_, err = kwire.NewFrameReader(idle, 0).Next()
	assert.ErrorIs(t, err, io.EOF)

	busy, err := dialT(t, p.Addr().String())
	require.NoError(t, err)
	defer busy.Close()
	_, err = busy.Write(frameOf(kwire.AppendRequest(nil, messages.NewHeartbeatRequest(), 4, 1, nil)))
	require.NoError(t, err)
	waitFor(t, log, "request  Heartbeat")
	time.Sleep(5 * idleTimeout) // several idle timeouts pass while the request is in flight
	close(up.hold)
	f, err := kwire.NewFrameReader(busy, 0).Next()
	require.NoError(t, err, "log:\n%s", log.String())
	corr, _ := kwire.PeekResponse(f)
	assert.EqualValues(t, 1, corr)
}

// TestMaxConns (defect 5): with MaxConns 1 a second client is served only
// once the first has gone.
func TestMaxConns(t *testing.T) {
	up := startAnswering(t, nil)
	p := startProxy(t, Config{Upstream: up.ln.Addr().String(), MaxConns: 1}, io.Discard, trafficlog.Options{})
	first, err := dialT(t, p.Addr().String())
	require.NoError(t, err)
	require.NoError(t, roundTrip(first, 1))
	second, err := dialT(t, p.Addr().String()) // in the backlog
	require.NoError(t, err)
	defer second.Close()
	_, err = second.Write(frameOf(kwire.AppendRequest(nil, messages.NewHeartbeatRequest(), 4, 2, nil)))
	require.NoError(t, err)
	served := make(chan error, 1)
	go func() {
		_, err := kwire.NewFrameReader(second, 0).Next()
		served <- err
	}()
	require.NoError(t, roundTrip(first, 3), "the first client is still served")
	select {
	case err := <-served:
		t.Fatalf("the second client was served while the first was open (%v)", err)
	default:
	}
	first.Close()
	require.NoError(t, recv(t, served))
}

// TestMaxBrokers (issue 27, case 4): a Metadata answer naming 50
// brokers with MaxBrokers 8 opens 8 listeners and is not relayed: the
// client is closed, counted and told nothing that names a broker
// directly (before, the 42 others reached it as they were).
func TestMaxBrokers(t *testing.T) {
	up := startAnswering(t, nil)
	md := messages.NewMetadataResponse()
	for i := range 50 {
		md.Brokers = append(md.Brokers, messages.MetadataResponseBroker{NodeID: int32(i), Host: "192.0.2.1", Port: int32(9000 + i)})
	}
	up.metadata.Store(md)
	log := &syncBuffer{}
	trouble := &troubleCounts{}
	p := startProxy(t, Config{Upstream: up.ln.Addr().String(), MaxBrokers: 8, Metrics: trouble}, log, trafficlog.Options{})
	c, err := dialT(t, p.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	_, err = c.Write(frameOf(kwire.AppendRequest(nil, messages.NewMetadataRequest(), 12, 1, nil)))
	require.NoError(t, err)
	f, err := kwire.NewFrameReader(c, 0).Next()
	require.ErrorIs(t, err, io.EOF, "the answer was relayed (%d bytes)", len(f))
	assert.Equal(t, 8, p.BrokerListeners())
	require.NoError(t, p.close())
	assert.Contains(t, log.String(), "broker listener cap reached")
	assert.Contains(t, log.String(), "client closed")
	assert.EqualValues(t, 1, trouble.get("broker-cap"))

	// under the cap, the same answer is relayed with every broker rewritten
	q := startProxy(t, Config{Upstream: up.ln.Addr().String(), MaxBrokers: 50}, io.Discard, trafficlog.Options{})
	c2, err := dialT(t, q.Addr().String())
	require.NoError(t, err)
	defer c2.Close()
	_, err = c2.Write(frameOf(kwire.AppendRequest(nil, messages.NewMetadataRequest(), 12, 1, nil)))
	require.NoError(t, err)
	_, body, err := messages.ReadResponse(readFrame(t, c2), 3, 12)
	require.NoError(t, err)
	for _, b := range body.(*messages.MetadataResponse).Brokers {
		assert.Equal(t, "127.0.0.1", b.Host)
	}
}

// TestShutdownDrains (defect 7): a request in flight when the proxy is
// told to stop is still answered; then the connection closes.
func TestShutdownDrains(t *testing.T) {
	up := startAnswering(t, nil)
	up.hold = make(chan struct{})
	log := &syncBuffer{}
	p := startProxy(t, Config{Upstream: up.ln.Addr().String()}, log, trafficlog.Options{})
	c, err := dialT(t, p.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	_, err = c.Write(frameOf(kwire.AppendRequest(nil, messages.NewHeartbeatRequest(), 4, 9, nil)))
	require.NoError(t, err)
	waitFor(t, log, "request  Heartbeat")
	closed := make(chan error, 1)
	go func() { closed <- p.close() }()
	waitUntil(t, "the proxy to close", p.isClosing)
	close(up.hold)
	frames := kwire.NewFrameReader(c, 0)
	f, err := frames.Next()
	require.NoError(t, err, "the in-flight response was dropped")
	corr, _ := kwire.PeekResponse(f)
	assert.EqualValues(t, 9, corr)
	_, err = frames.Next()
	assert.ErrorIs(t, err, io.EOF)
	require.NoError(t, recv(t, closed))
}

// TestTLSOnPlaintextPort (defect 7): a ClientHello on the plaintext port
// gets one line that says what to do.
func TestTLSOnPlaintextPort(t *testing.T) {
	up := startAnswering(t, nil)
	log := &syncBuffer{}
	p := startProxy(t, Config{Upstream: up.ln.Addr().String()}, log, trafficlog.Options{})
	c, err := dialT(t, p.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	hello := []byte{0x16, 0x03, 0x01, 0x01, 0x2c, 0x01, 0x00, 0x01, 0x28, 0x03, 0x03}
	_, err = c.Write(append(hello, make([]byte, 300)...))
	require.NoError(t, err)
	_, err = kwire.NewFrameReader(c, 0).Next()
	assert.Error(t, err)
	require.NoError(t, p.close())
	assert.Contains(t, log.String(), "client speaks TLS; start the proxy with -tls-cert")
}

// TestAdvertiseAndPortRange: rewritten addresses name Advertise and
// ports from BrokerPorts; with an unspecified listen host and no
// Advertise, they name the address the client reached.
func TestAdvertiseAndPortRange(t *testing.T) {
	free, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	first := free.Addr().(*net.TCPAddr).Port
	free.Close()
	up := startAnswering(t, nil)
	md := messages.NewMetadataResponse()
	md.Brokers = []messages.MetadataResponseBroker{{NodeID: 1, Host: "b1", Port: 9092}, {NodeID: 2, Host: "b2", Port: 9092}}
	up.metadata.Store(md)
	brokers := func(p *running, dialHost string) []messages.MetadataResponseBroker {
		_, port, _ := net.SplitHostPort(p.Addr().String())
		c, err := dialT(t, net.JoinHostPort(dialHost, port))
		require.NoError(t, err)
		defer c.Close()
		_, err = c.Write(frameOf(kwire.AppendRequest(nil, messages.NewMetadataRequest(), 12, 1, nil)))
		require.NoError(t, err)
		_, body, err := messages.ReadResponse(readFrame(t, c), 3, 12)
		require.NoError(t, err)
		return body.(*messages.MetadataResponse).Brokers
	}

	held, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(first+1))) // taken: skipped
	if err == nil {
		defer held.Close()
	}
	p := startProxy(t, Config{Upstream: up.ln.Addr().String(), Advertise: "kafka.example.com",
		BrokerPorts: PortRange{First: first, Last: first + 20}}, io.Discard, trafficlog.Options{})
	got := brokers(p, "127.0.0.1")
	require.Len(t, got, 2)
	for i, b := range got {
		assert.Equal(t, "kafka.example.com", b.Host)
		assert.GreaterOrEqual(t, int(b.Port), first)
		assert.LessOrEqual(t, int(b.Port), first+20)
		if i > 0 {
			assert.Greater(t, b.Port, got[i-1].Port, "ports in order")
		}
		if held != nil {
			assert.NotEqual(t, first+1, int(b.Port), "a port in use is skipped")
		}
	}
	require.NoError(t, p.close())

	ln, err := net.Listen("tcp", "0.0.0.0:0")
	require.NoError(t, err)
	q := New(Config{Upstream: up.ln.Addr().String()})
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	go q.ServeListener(ctx, ln)
	recv(t, q.Ready())
	got = brokers(&running{Proxy: q}, "127.0.0.2")
	assert.Equal(t, "127.0.0.2", got[0].Host, "the address the client reached")
}

// TestBuffersShrinkWhenQuiet (defect 5): after a 4 MiB frame each way,
// a quiet connection gives both read buffers back.
func TestBuffersShrinkWhenQuiet(t *testing.T) {
	up := startUpstream(t)
	p := startProxy(t, Config{Upstream: up.ln.Addr().String()}, io.Discard, trafficlog.Options{})
	c, err := dialT(t, p.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	big := make([]byte, 4+4<<20)
	copy(big, []byte{0, 0x40, 0, 0, 0x03, 0xe7, 0, 1, 0, 0, 0, 1}) // key 999, correlation id 1
	resp := make([]byte, 4+4<<20)
	copy(resp, []byte{0, 0x40, 0, 0, 0, 0, 0, 1})
	up.answers <- resp
	_, err = c.Write(big)
	require.NoError(t, err)
	assert.Equal(t, len(resp), len(readFrame(t, c)))
	p.mu.Lock()
	var cn *conn
	for k := range p.conns {
		cn = k
	}
	p.mu.Unlock()
	require.NotNil(t, cn)
	waitUntil(t, "the buffers to shrink", func() bool {
		return cn.bufBytes[0].Load() <= kwire.ShrinkAbove && cn.bufBytes[1].Load() <= kwire.ShrinkAbove
	})
	// the connection still works
	up.answers <- frameOf(kwire.AppendResponse(nil, messages.NewHeartbeatResponse(), 4, 2))
	_, err = c.Write(frameOf(kwire.AppendRequest(nil, messages.NewHeartbeatRequest(), 4, 2, nil)))
	require.NoError(t, err)
	readFrame(t, c)
}

// TestClientGoneWhileDialling: a client that sent a request and left
// while the upstream was down has nothing relayed once the upstream is
// back: its request was given up on, perhaps retried elsewhere, and
// writing it late could write a batch twice.
func TestClientGoneWhileDialling(t *testing.T) {
	c, addr, log := requestWhileUpstreamDown(t, messages.NewProduceRequest(), 9)
	c.Close() // the client gives up
	ln2, err := net.Listen("tcp", addr)
	require.NoError(t, err)
	up := &fakeUpstream{ln: ln2, answers: make(chan []byte, 1)}
	got := make(chan []byte, 1)
	go func() {
		conn, err := ln2.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		b, _ := io.ReadAll(conn)
		got <- b
	}()
	defer up.ln.Close()
	waitFor(t, log, "client left while the upstream was dialled")
	assert.Empty(t, recv(t, got), "a request of a client that left was relayed")
}

// troubleCounts is a TroubleMetrics counting each kind of trouble.
type troubleCounts struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *troubleCounts) add(kind string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[kind]++
}

func (c *troubleCounts) get(kind string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[kind]
}

func (c *troubleCounts) ConnOpened()                                        {}
func (c *troubleCounts) ConnClosed()                                        {}
func (c *troubleCounts) Request(int16, int16, int)                          {}
func (c *troubleCounts) Response(int16, int16, int, time.Duration, []int16) {}
func (c *troubleCounts) Undecodable(trafficlog.Dir)                         {}
func (c *troubleCounts) RequestTimedOut(key int16)                          { c.add("timeout/" + strconv.Itoa(int(key))) }
func (c *troubleCounts) LoginFailed(mechanism string)                       { c.add("login/" + mechanism) }
func (c *troubleCounts) TLSOnPlaintext()                                    { c.add("tls") }
func (c *troubleCounts) BrokerCapRefused()                                  { c.add("broker-cap") }
func (c *troubleCounts) DialFailed()                                        { c.add("dial") }

// TestNoUpstreamBeforeFirstBytes (issue 27, case 3): clients that connect
// and send nothing cause no upstream dial; the first bytes do.
func TestNoUpstreamBeforeFirstBytes(t *testing.T) {
	up := startAnswering(t, nil)
	var dials atomic.Int32
	opened := make(chan struct{}, 64)
	p := startProxy(t, Config{Upstream: up.ln.Addr().String(), Metrics: &openCounts{opened: opened},
		Dial: func(ctx context.Context, network, a string) (net.Conn, error) {
			dials.Add(1)
			return (&net.Dialer{}).DialContext(ctx, network, a)
		}}, io.Discard, trafficlog.Options{})
	for range 20 {
		c, err := dialT(t, p.Addr().String())
		require.NoError(t, err)
		defer c.Close()
	}
	for range 20 {
		recv(t, opened)
	}
	// Before, each accepted connection was dialled at once; give those
	// dials a moment to have happened.
	time.Sleep(100 * time.Millisecond)
	assert.Zero(t, dials.Load(), "silent clients were given upstream connections")
	c, err := dialT(t, p.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, roundTrip(c, 1))
	assert.EqualValues(t, 1, dials.Load())
}

// openCounts is a Metrics that reports each connection opened.
type openCounts struct{ opened chan struct{} }

func (o *openCounts) ConnOpened()                                        { o.opened <- struct{}{} }
func (o *openCounts) ConnClosed()                                        {}
func (o *openCounts) Request(int16, int16, int)                          {}
func (o *openCounts) Response(int16, int16, int, time.Duration, []int16) {}
func (o *openCounts) Undecodable(trafficlog.Dir)                         {}

// TestBoundedByDefault (issue 27, case 3): the zero Config bounds
// connections, idleness and the upstream's answers.
func TestBoundedByDefault(t *testing.T) {
	p := New(Config{Upstream: "x:1"})
	assert.Equal(t, DefaultMaxConns, p.cfg.MaxConns)
	assert.Equal(t, 10*time.Minute, p.cfg.IdleTimeout)
	assert.Equal(t, 30*time.Second, p.cfg.RequestTimeout)
	q := New(Config{Upstream: "x:1", MaxConns: -1, IdleTimeout: -1, RequestTimeout: -1})
	assert.Nil(t, q.slots, "negative: no bound")
	assert.Negative(t, q.cfg.IdleTimeout)
	assert.Negative(t, q.cfg.RequestTimeout)
}

// TestRequestTimeout (issue 27, case 5): an upstream that accepts and
// never answers has the client closed after RequestTimeout, logged and
// counted; a Fetch asking to wait longer is given its wait.
func TestRequestTimeout(t *testing.T) {
	up := startAnswering(t, nil)
	up.hold = make(chan struct{})
	defer close(up.hold)
	log := &syncBuffer{}
	trouble := &troubleCounts{}
	p := startProxy(t, Config{Upstream: up.ln.Addr().String(), RequestTimeout: 50 * time.Millisecond, Metrics: trouble}, log, trafficlog.Options{})
	c, err := dialT(t, p.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	_, err = c.Write(frameOf(kwire.AppendRequest(nil, messages.NewHeartbeatRequest(), 4, 1, nil)))
	require.NoError(t, err)
	_, err = kwire.NewFrameReader(c, 0).Next()
	require.ErrorIs(t, err, io.EOF)
	waitFor(t, log, "did not answer within the request timeout (50ms)")
	assert.EqualValues(t, 1, trouble.get("timeout/12"))

	fetch := messages.NewFetchRequest()
	fetch.MaxWaitMs = 60_000
	assert.Equal(t, time.Minute, requestWait(fetch))
	produce := messages.NewProduceRequest()
	produce.TimeoutMs = 45_000
	assert.Equal(t, 45*time.Second, requestWait(produce), "a Produce waits on replicas up to its TimeoutMs")
	assert.Zero(t, requestWait(messages.NewHeartbeatRequest()))
}

// TestDialOutOfDescriptors (issue 27, case 9): a dial that fails with
// EMFILE closes the client at once (one attempt, counted) rather than
// holding its descriptor for the whole DialTimeout.
func TestDialOutOfDescriptors(t *testing.T) {
	var dials atomic.Int32
	log := &syncBuffer{}
	trouble := &troubleCounts{}
	p := startProxy(t, Config{Upstream: "192.0.2.1:9092", DialTimeout: time.Hour, Metrics: trouble,
		Dial: func(ctx context.Context, network, a string) (net.Conn, error) {
			dials.Add(1)
			return nil, &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("socket", syscall.EMFILE)}
		}}, log, trafficlog.Options{})
	c, err := dialT(t, p.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	_, err = c.Write(frameOf(kwire.AppendRequest(nil, messages.NewHeartbeatRequest(), 4, 1, nil)))
	require.NoError(t, err)
	_, err = kwire.NewFrameReader(c, 0).Next()
	require.ErrorIs(t, err, io.EOF)
	assert.EqualValues(t, 1, dials.Load())
	waitFor(t, log, "out of file descriptors: not retried")
	assert.EqualValues(t, 1, trouble.get("dial"))
}

// TestDrainCut (issue 27, case 8): connections still waiting at the drain
// timeout are closed with a line each, and Serve says so.
func TestDrainCut(t *testing.T) {
	up := startAnswering(t, nil)
	up.hold = make(chan struct{})
	defer close(up.hold)
	log := &syncBuffer{}
	p := startProxy(t, Config{Upstream: up.ln.Addr().String(), DrainTimeout: 20 * time.Millisecond}, log, trafficlog.Options{})
	c, err := dialT(t, p.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	_, err = c.Write(frameOf(kwire.AppendRequest(nil, messages.NewHeartbeatRequest(), 4, 1, nil)))
	require.NoError(t, err)
	waitFor(t, log, "request  Heartbeat")
	p.stop()
	err = recv(t, p.served)
	require.ErrorIs(t, err, ErrDrainCut)
	assert.Contains(t, err.Error(), "1 connections closed with 1 requests unanswered")
	require.NoError(t, p.log.Close())
	assert.Contains(t, log.String(), "closed at the drain timeout (20ms) with 1 requests unanswered")
}

// TestTLSOnPlaintextCounted (issue 27, case 8): a ClientHello on the
// plaintext port is counted, with the log on or off.
func TestTLSOnPlaintextCounted(t *testing.T) {
	up := startAnswering(t, nil)
	trouble := &troubleCounts{}
	p := startProxy(t, Config{Upstream: up.ln.Addr().String(), Metrics: trouble}, nil, trafficlog.Options{}) // as with -log off
	c, err := dialT(t, p.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	hello := []byte{0x16, 0x03, 0x01, 0x01, 0x2c, 0x01, 0x00, 0x01, 0x28, 0x03, 0x03}
	_, err = c.Write(append(hello, make([]byte, 300)...))
	require.NoError(t, err)
	_, err = kwire.NewFrameReader(c, 0).Next()
	assert.Error(t, err)
	waitUntil(t, "the TLS client counted", func() bool { return trouble.get("tls") == 1 })
}

// TestUndecodableLineHasClientID (issue 27, case 8): a request whose
// header reads but whose body does not is logged with its client id.
func TestUndecodableLineHasClientID(t *testing.T) {
	up := startAnswering(t, nil)
	log := &syncBuffer{}
	p := startProxy(t, Config{Upstream: up.ln.Addr().String()}, log, trafficlog.Options{})
	c, err := dialT(t, p.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	id := "billing-7"
	f := frameOf(kwire.AppendRequest(nil, messages.NewMetadataRequest(), 4, 1, &id))
	f = append(f[:len(f)-2], 0xff) // the topics array cut short
	binary.BigEndian.PutUint32(f, uint32(len(f)-4))
	_, err = c.Write(f)
	require.NoError(t, err)
	waitFor(t, log, "request  Metadata")
	require.NoError(t, p.close())
	var line string
	for _, l := range strings.Split(log.String(), "\n") {
		if strings.Contains(l, "request  Metadata") {
			line = l
		}
	}
	assert.Contains(t, line, "billing-7", "log:\n%s", log.String())
}

// TestMaxConnsWithinFileLimit (issue 27, case 9): MaxConns leaves
// descriptors for the metrics server and the listeners: a process
// allowed 64 files takes 16 clients (two descriptors each) beside 32
// kept back, so /metrics can still accept when clients crowd in.
func TestMaxConnsWithinFileLimit(t *testing.T) {
	assert.Equal(t, 16, connsWithin(64))
	assert.Equal(t, 1, connsWithin(10))
	assert.Equal(t, 1<<30, connsWithin(0), "unknown: no bound of its own")
	assert.Equal(t, 4096, connsWithin(2*4096+fdReserve))
}
