package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
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
	<-p.Ready()
	c, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, roundTrip(c, 1))
	stop()
	require.NoError(t, <-served)
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
	c, err := net.Dial("tcp", p.Addr().String())
	require.NoError(t, err)
	_, err = c.Write(frameOf(kwire.AppendRequest(nil, msg, version, 7, nil)))
	require.NoError(t, err)
	for dials.Load() < 2 {
		yield()
	}
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
	c, err := net.Dial("tcp", p.Addr().String())
	require.NoError(t, err)
	defer c.Close()
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
		c, err := net.Dial("tcp", p.Addr().String())
		require.NoError(t, err)
		defer c.Close()
	}
	<-all // with serial dials this never happens
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
	idle, err := net.Dial("tcp", p.Addr().String())
	require.NoError(t, err)
	defer idle.Close()
	_, err = kwire.NewFrameReader(idle, 0).Next()
	assert.ErrorIs(t, err, io.EOF)

	busy, err := net.Dial("tcp", p.Addr().String())
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
	first, err := net.Dial("tcp", p.Addr().String())
	require.NoError(t, err)
	require.NoError(t, roundTrip(first, 1))
	second, err := net.Dial("tcp", p.Addr().String()) // in the backlog
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
	require.NoError(t, <-served)
}

// TestMaxBrokers (defect 6): a Metadata response naming 50 brokers opens
// MaxBrokers listeners; the rest keep their addresses, with a note.
func TestMaxBrokers(t *testing.T) {
	up := startAnswering(t, nil)
	md := messages.NewMetadataResponse()
	for i := range 50 {
		md.Brokers = append(md.Brokers, messages.MetadataResponseBroker{NodeID: int32(i), Host: "192.0.2.1", Port: int32(9000 + i)})
	}
	up.metadata.Store(md)
	log := &syncBuffer{}
	p := startProxy(t, Config{Upstream: up.ln.Addr().String(), MaxBrokers: 8}, log, trafficlog.Options{})
	c, err := net.Dial("tcp", p.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	_, err = c.Write(frameOf(kwire.AppendRequest(nil, messages.NewMetadataRequest(), 12, 1, nil)))
	require.NoError(t, err)
	_, body, err := messages.ReadResponse(readFrame(t, c), 3, 12)
	require.NoError(t, err)
	assert.Equal(t, 8, p.BrokerListeners())
	rewritten := 0
	for _, b := range body.(*messages.MetadataResponse).Brokers {
		if b.Host == "127.0.0.1" {
			rewritten++
		}
	}
	assert.Equal(t, 8, rewritten)
	require.NoError(t, p.close())
	assert.Contains(t, log.String(), "broker listener cap reached")
}

// TestShutdownDrains (defect 7): a request in flight when the proxy is
// told to stop is still answered; then the connection closes.
func TestShutdownDrains(t *testing.T) {
	up := startAnswering(t, nil)
	up.hold = make(chan struct{})
	log := &syncBuffer{}
	p := startProxy(t, Config{Upstream: up.ln.Addr().String()}, log, trafficlog.Options{})
	c, err := net.Dial("tcp", p.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	_, err = c.Write(frameOf(kwire.AppendRequest(nil, messages.NewHeartbeatRequest(), 4, 9, nil)))
	require.NoError(t, err)
	waitFor(t, log, "request  Heartbeat")
	closed := make(chan error, 1)
	go func() { closed <- p.close() }()
	for !p.isClosing() {
		yield()
	}
	close(up.hold)
	frames := kwire.NewFrameReader(c, 0)
	f, err := frames.Next()
	require.NoError(t, err, "the in-flight response was dropped")
	corr, _ := kwire.PeekResponse(f)
	assert.EqualValues(t, 9, corr)
	_, err = frames.Next()
	assert.ErrorIs(t, err, io.EOF)
	require.NoError(t, <-closed)
}

// TestTLSOnPlaintextPort (defect 7): a ClientHello on the plaintext port
// gets one line that says what to do.
func TestTLSOnPlaintextPort(t *testing.T) {
	up := startAnswering(t, nil)
	log := &syncBuffer{}
	p := startProxy(t, Config{Upstream: up.ln.Addr().String()}, log, trafficlog.Options{})
	c, err := net.Dial("tcp", p.Addr().String())
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
		c, err := net.Dial("tcp", net.JoinHostPort(dialHost, port))
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
	<-q.Ready()
	got = brokers(&running{Proxy: q}, "127.0.0.2")
	assert.Equal(t, "127.0.0.2", got[0].Host, "the address the client reached")
}

// TestBuffersShrinkWhenQuiet (defect 5): after a 4 MiB frame each way,
// a quiet connection gives both read buffers back.
func TestBuffersShrinkWhenQuiet(t *testing.T) {
	up := startUpstream(t)
	p := startProxy(t, Config{Upstream: up.ln.Addr().String()}, io.Discard, trafficlog.Options{})
	c, err := net.Dial("tcp", p.Addr().String())
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
	for cn.bufBytes[0].Load() > kwire.ShrinkAbove || cn.bufBytes[1].Load() > kwire.ShrinkAbove {
		yield()
	}
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
	assert.Empty(t, <-got, "a request of a client that left was relayed")
}
