package proxy

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/kwirelabs/kwire/app/trafficlog"
)

// Proxy relays Kafka clients to an upstream cluster.
type Proxy struct {
	cfg   Config
	slots chan struct{} // one per open client connection, when MaxConns is set
	done  chan struct{} // closed when shutting down
	ready chan struct{} // closed once the bootstrap listener serves

	mu        sync.Mutex
	addr      net.Addr       // the bootstrap listener's
	host      string         // where broker listeners listen
	local     map[string]int // upstream HOST:PORT -> local port
	listeners []net.Listener // bootstrap first
	conns     map[*conn]struct{}
	nconn     int
	nextPort  int  // in BrokerPorts
	capNoted  bool // the MaxBrokers notice was given
	connsFull bool // the MaxConns notice was given, and no connection has ended since
	closing   bool
	wg        sync.WaitGroup // accept loops and connections
}

// New returns a proxy for cfg; Serve starts it.
func New(cfg Config) *Proxy {
	cfg.setDefaults()
	p := &Proxy{cfg: cfg, done: make(chan struct{}), ready: make(chan struct{}),
		local: map[string]int{}, conns: map[*conn]struct{}{}, nextPort: cfg.BrokerPorts.First}
	if cfg.MaxConns > 0 {
		if n := connsWithin(openFileLimit()); n < cfg.MaxConns {
			cfg.Notice(fmt.Sprintf("-max-conns lowered from %d to %d: the process may open %d files, two a client, and keeps %d for its listeners, metrics and log", cfg.MaxConns, n, openFileLimit(), fdReserve))
			p.cfg.MaxConns = n
		}
		p.slots = make(chan struct{}, p.cfg.MaxConns)
	}
	return p
}

// fdReserve are the descriptors MaxConns leaves for the rest of the
// process (listeners, the metrics server and its scrapes, the log): with
// every descriptor taken by clients, /metrics could not be reached.
const fdReserve = 32

// connsWithin is how many clients (a descriptor each way) fit in limit
// descriptors beside fdReserve; a large number when limit is unknown.
func connsWithin(limit int) int {
	if limit <= 0 {
		return 1 << 30
	}
	return max(1, (limit-fdReserve)/2)
}

// Serve listens on Config.Listen and relays until ctx is done; then it
// stops accepting, lets in-flight requests be answered for up to
// Config.DrainTimeout, and closes every connection: an error wrapping
// ErrDrainCut says some were closed with requests unanswered. It does not close
// Config.Log (its owner does, after Serve returns).
func (p *Proxy) Serve(ctx context.Context) error {
	if p.cfg.Upstream == "" {
		return errors.New("proxy: no upstream")
	}
	ln, err := net.Listen("tcp", p.cfg.Listen)
	if err != nil {
		return fmt.Errorf("proxy: %w", err)
	}
	return p.ServeListener(ctx, ln)
}

// ServeListener is Serve on a listener the caller opened for the
// bootstrap broker.
func (p *Proxy) ServeListener(ctx context.Context, ln net.Listener) error {
	if p.cfg.Upstream == "" {
		ln.Close()
		return errors.New("proxy: no upstream")
	}
	host, _, err := net.SplitHostPort(ln.Addr().String())
	if err != nil {
		ln.Close()
		return fmt.Errorf("proxy: %w", err)
	}
	p.mu.Lock()
	if p.closing || p.addr != nil {
		p.mu.Unlock()
		ln.Close()
		return errors.New("proxy: Serve called twice")
	}
	p.addr, p.host = ln.Addr(), host
	p.mu.Unlock()
	p.serve(ln, p.cfg.Upstream)
	close(p.ready)
	<-ctx.Done()
	return p.shutdown()
}

// Addr is the bootstrap listener's address, once Ready is closed.
func (p *Proxy) Addr() net.Addr {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.addr
}

// Ready is closed once the bootstrap listener accepts clients.
func (p *Proxy) Ready() <-chan struct{} { return p.ready }

// serve starts accepting on ln for upstream.
func (p *Proxy) serve(ln net.Listener, upstream string) {
	p.mu.Lock()
	p.listeners = append(p.listeners, ln)
	p.wg.Add(1)
	p.mu.Unlock()
	p.cfg.Notice(fmt.Sprintf("%s -> %s", ln.Addr(), upstream))
	go p.accept(ln, upstream)
}

var errBrokerCap = errors.New("broker listener cap reached")

// localPort returns the port of the local stand-in for an upstream
// broker, listening on a new one the first time the broker is named.
func (p *Proxy) localPort(upstream string) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if port, ok := p.local[upstream]; ok {
		return port, nil
	}
	if p.closing {
		return 0, net.ErrClosed
	}
	if len(p.local) >= p.cfg.MaxBrokers {
		if !p.capNoted {
			p.capNoted = true
			p.cfg.Notice(fmt.Sprintf("%d broker listeners open (the -max-brokers cap): answers naming %s or other brokers past it are refused and their clients closed; raise -max-brokers", p.cfg.MaxBrokers, upstream))
		}
		return 0, fmt.Errorf("%w (%d, -max-brokers): %s", errBrokerCap, p.cfg.MaxBrokers, upstream)
	}
	ln, err := p.listenBroker()
	if err != nil {
		return 0, fmt.Errorf("%w: %s left as is", err, upstream)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	p.local[upstream] = port
	p.listeners = append(p.listeners, ln)
	p.wg.Add(1)
	p.cfg.Notice(fmt.Sprintf("%s -> %s", ln.Addr(), upstream))
	go p.accept(ln, upstream)
	return port, nil
}

// listenBroker opens a broker listener: on the next free port of
// BrokerPorts (a port something else holds is skipped), or any port.
// The caller holds p.mu.
func (p *Proxy) listenBroker() (net.Listener, error) {
	r := p.cfg.BrokerPorts
	if r.First <= 0 {
		return net.Listen("tcp", net.JoinHostPort(p.host, "0"))
	}
	var last error
	for ; p.nextPort <= r.Last; p.nextPort++ {
		ln, err := net.Listen("tcp", net.JoinHostPort(p.host, strconv.Itoa(p.nextPort)))
		if err == nil {
			p.nextPort++
			return ln, nil
		}
		last = err
	}
	if last != nil {
		return nil, fmt.Errorf("%w: no free port left in %d-%d (last: %v)", errBrokerCap, r.First, r.Last, last)
	}
	return nil, fmt.Errorf("%w: ports %d-%d all taken", errBrokerCap, r.First, r.Last)
}

// BrokerListeners is the number of broker listeners open, bootstrap not
// counted.
func (p *Proxy) BrokerListeners() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.local)
}

// advertisedHost is the host rewritten responses name to a client that
// reached the proxy at local.
func (p *Proxy) advertisedHost(local net.Addr) string {
	if p.cfg.Advertise != "" {
		return p.cfg.Advertise
	}
	if ip := net.ParseIP(p.host); ip == nil || !ip.IsUnspecified() {
		return p.host
	}
	if h, _, err := net.SplitHostPort(local.String()); err == nil {
		return h
	}
	return p.host
}

// accept serves one listener; an Accept error other than the listener's
// close (running out of file descriptors, say) is retried after a pause
// that doubles up to a second, as net/http does.
func (p *Proxy) accept(ln net.Listener, upstream string) {
	defer p.wg.Done()
	var pause time.Duration
	for {
		if !p.takeSlot() {
			return
		}
		c, err := ln.Accept()
		if err != nil {
			p.freeSlot()
			if p.isClosing() || errors.Is(err, net.ErrClosed) {
				return
			}
			if pause == 0 {
				pause = 5 * time.Millisecond
				p.cfg.Notice(fmt.Sprintf("accept on %s: %v; retrying", ln.Addr(), err))
			} else {
				pause = min(2*pause, time.Second)
			}
			select {
			case <-time.After(pause):
			case <-p.done:
				return
			}
			continue
		}
		if pause != 0 {
			p.cfg.Notice(fmt.Sprintf("accept on %s: accepting again", ln.Addr()))
			pause = 0
		}
		p.mu.Lock()
		if p.closing {
			p.mu.Unlock()
			c.Close()
			p.freeSlot()
			return
		}
		p.nconn++
		id := p.nconn
		p.wg.Add(1)
		p.mu.Unlock()
		go p.handle(c, id, upstream)
	}
}

func (p *Proxy) takeSlot() bool {
	if p.slots == nil {
		return true
	}
	select {
	case p.slots <- struct{}{}:
		return true
	default:
	}
	p.mu.Lock()
	if !p.connsFull {
		p.connsFull = true
		p.cfg.Notice(fmt.Sprintf("%d connections open (the -max-conns cap); new clients wait", p.cfg.MaxConns))
	}
	p.mu.Unlock()
	select {
	case p.slots <- struct{}{}:
		return true
	case <-p.done:
		return false
	}
}

func (p *Proxy) freeSlot() {
	if p.slots != nil {
		<-p.slots
		p.mu.Lock()
		p.connsFull = false
		p.mu.Unlock()
	}
}

func (p *Proxy) isClosing() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closing
}

// handle sets up one client connection: its TLS handshake, then the
// upstream dial, then the relay.
func (p *Proxy) handle(c net.Conn, id int, upstream string) {
	defer p.wg.Done()
	defer p.freeSlot()
	if m := p.cfg.Metrics; m != nil {
		m.ConnOpened()
		defer m.ConnClosed()
	}
	info := &Conn{ID: id, ClientAddr: c.RemoteAddr(), LocalAddr: c.LocalAddr(), Upstream: upstream}
	client := c
	if p.cfg.TLS != nil {
		tc := tls.Server(c, p.cfg.TLS)
		c.SetDeadline(time.Now().Add(p.cfg.DialTimeout))
		if err := tc.Handshake(); err != nil {
			note := "TLS handshake: " + err.Error()
			var rh tls.RecordHeaderError
			if errors.As(err, &rh) {
				note = "client speaks plaintext on the TLS port (configure it for TLS, or use a plaintext proxy): " + err.Error()
			}
			p.event(info, trafficlog.Close, note)
			c.Close()
			return
		}
		c.SetDeadline(time.Time{})
		st := tc.ConnectionState()
		info.TLS = &st
		if len(st.VerifiedChains) > 0 && len(st.PeerCertificates) > 0 {
			info.setPrincipal(st.PeerCertificates[0].Subject.String(), true)
		}
		client = tc
	}
	first, err := p.firstBytes(client)
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			p.event(info, trafficlog.Close, fmt.Sprintf("client sent nothing for %v (the idle timeout); closed before dialling the upstream", p.cfg.IdleTimeout))
		}
		client.Close()
		return
	}
	up, err := p.dial(upstream)
	if err != nil {
		p.event(info, trafficlog.Close, "upstream "+upstream+": "+err.Error()+"; client closed")
		if tm, ok := p.cfg.Metrics.(TroubleMetrics); ok {
			tm.DialFailed()
		}
		client.Close()
		return
	}
	early, gone := clientGone(client)
	early = append(first, early...)
	if gone {
		// Its requests were given up on (and perhaps retried on another
		// connection): relaying them now could write a batch twice.
		p.event(info, trafficlog.Close, fmt.Sprintf("client left while the upstream was dialled; its %d bytes sent meanwhile dropped", len(early)))
		client.Close()
		up.Close()
		return
	}
	open := "from " + info.ClientAddr.String() + " to " + upstream
	if info.TLS != nil {
		open += " over " + tls.VersionName(info.TLS.Version)
	}
	p.event(info, trafficlog.Open, open)
	cn := newConn(p, info, client, up, early)
	p.mu.Lock()
	if p.closing {
		p.mu.Unlock()
		client.Close()
		up.Close()
		return
	}
	p.conns[cn] = struct{}{}
	p.mu.Unlock()
	cn.run()
	p.mu.Lock()
	delete(p.conns, cn)
	p.mu.Unlock()
	letGo(int(cn.bufBytes[0].Load() + cn.bufBytes[1].Load()))
}

// firstBytes waits for the client's first bytes, for up to the idle
// timeout: a client that connects and sends nothing holds no upstream
// connection (a broker's max.connections.per.ip counts the proxy's).
func (p *Proxy) firstBytes(c net.Conn) ([]byte, error) {
	if p.cfg.IdleTimeout > 0 {
		c.SetReadDeadline(time.Now().Add(p.cfg.IdleTimeout))
		defer c.SetReadDeadline(time.Time{})
	}
	waited := make(chan struct{})
	defer close(waited)
	go func() {
		// shutdown has no conn to drain yet: it ends the wait itself
		select {
		case <-p.done:
			c.SetReadDeadline(time.Now())
		case <-waited:
		}
	}()
	buf := make([]byte, 4<<10)
	n, err := c.Read(buf)
	if n > 0 {
		return buf[:n], nil
	}
	if err == nil {
		err = io.ErrNoProgress
	}
	if p.isClosing() {
		return nil, net.ErrClosed
	}
	return nil, err
}

// maxEarly bounds what clientGone reads ahead: a client still sending
// that much is there.
const maxEarly = 1 << 20

// clientGone reads what the client sent while the upstream was dialled,
// without waiting, and reports whether it has closed its side since: a
// client that gave up must not have its requests relayed after the fact.
// It returns the bytes read, which the relay starts from.
func clientGone(c net.Conn) ([]byte, bool) {
	var early []byte
	buf := make([]byte, 16<<10)
	// A deadline already past fails a read without trying it; one a
	// moment ahead returns what is there (or the close) at once.
	c.SetReadDeadline(time.Now().Add(time.Millisecond))
	defer c.SetReadDeadline(time.Time{})
	for len(early) < maxEarly {
		n, err := c.Read(buf)
		early = append(early, buf[:n]...)
		if errors.Is(err, io.EOF) {
			return early, true
		}
		if err != nil || n == 0 {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return early, false
			}
			return early, err != nil // reset by the peer, say
		}
	}
	return early, false
}

// dial reaches an upstream broker, trying again with a growing pause
// until DialTimeout has passed: a broker that restarts within it costs
// the client a delay, not a failed connection.
func (p *Proxy) dial(upstream string) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), p.cfg.DialTimeout)
	defer cancel()
	go func() {
		select {
		case <-p.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	dial := p.cfg.Dial
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	pause := 50 * time.Millisecond
	for attempt := 1; ; attempt++ {
		c, err := dial(ctx, "tcp", upstream)
		if err == nil && p.cfg.UpstreamTLS != nil {
			cfg := p.cfg.UpstreamTLS.Clone()
			if cfg.ServerName == "" {
				cfg.ServerName, _, _ = net.SplitHostPort(upstream)
			}
			tc := tls.Client(c, cfg)
			if err = tc.HandshakeContext(ctx); err != nil {
				c.Close()
				// a certificate the proxy refuses will not change on retry
				return nil, fmt.Errorf("TLS to upstream: %w", err)
			}
			c = tc
		}
		if err == nil {
			return c, nil
		}
		if errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) {
			// Retrying would hold the client's descriptor while others
			// (the metrics listener's, the next client's) are short.
			return nil, fmt.Errorf("%w (out of file descriptors: not retried)", err)
		}
		select {
		case <-time.After(pause):
		case <-ctx.Done():
			return nil, fmt.Errorf("%w (%d attempts in %v)", err, attempt, p.cfg.DialTimeout)
		}
		pause = min(2*pause, time.Second)
	}
}

// event logs a line about a connection that is not about a message.
func (p *Proxy) event(info *Conn, dir trafficlog.Dir, note string) {
	if p.cfg.Log == nil {
		return
	}
	p.cfg.Log.Write(trafficlog.Event{Time: time.Now(), Conn: info.ID, Dir: dir, Key: -1,
		ClientAddr: info.ClientAddr.String(), Principal: info.Principal(), Note: note})
}

// ErrDrainCut is returned by Serve when connections still had requests
// in flight at the drain timeout and were closed.
var ErrDrainCut = errors.New("proxy: drain timeout reached")

// shutdown stops accepting, drains every connection for up to
// DrainTimeout, then closes what is left, logging each connection cut.
func (p *Proxy) shutdown() error {
	p.mu.Lock()
	p.closing = true
	close(p.done)
	for _, ln := range p.listeners {
		ln.Close()
	}
	conns := make([]*conn, 0, len(p.conns))
	for c := range p.conns {
		conns = append(conns, c)
	}
	p.mu.Unlock()
	for _, c := range conns {
		c.drain()
	}
	all := make(chan struct{})
	go func() { p.wg.Wait(); close(all) }()
	timer := time.NewTimer(p.cfg.DrainTimeout)
	defer timer.Stop()
	select {
	case <-all:
		return nil
	case <-timer.C:
	}
	p.mu.Lock()
	cut, unanswered := 0, 0
	for c := range p.conns {
		n := c.inFlight()
		cut++
		unanswered += n
		c.closeWith(fmt.Sprintf("closed at the drain timeout (%v) with %d requests unanswered", p.cfg.DrainTimeout, n))
	}
	p.mu.Unlock()
	<-all
	if cut == 0 {
		return nil
	}
	return fmt.Errorf("%w (%v): %d connections closed with %d requests unanswered", ErrDrainCut, p.cfg.DrainTimeout, cut, unanswered)
}
