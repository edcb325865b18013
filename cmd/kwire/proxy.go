package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/trafficlog"
	"github.com/kwirelabs/kwire/messages"
)

// runProxy relays Kafka connections to an upstream cluster and logs every
// request and response, decoded. Clients stay behind it: each upstream
// broker named in a response gets its own local listener, and responses
// are rewritten to name those; ApiVersions is clamped to what kwire reads.
func runProxy(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("proxy", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	listen := fs.String("listen", "127.0.0.1:19092", "local address for the bootstrap broker")
	upstream := fs.String("upstream", "", "the upstream bootstrap broker, HOST:PORT")
	asJSON := fs.Bool("json", false, "one JSON object a line")
	logFile := fs.String("log", "", "write the log here rather than to standard output")
	unstable := fs.Bool("unstable", false, "let clients use API versions Kafka marks unstable")
	maxFrame := fs.Int("max-frame", kwire.DefaultMaxFrameSize, "the largest frame relayed (size prefix)")
	if err := parseFlags(fs, args, out); err != nil {
		return err
	}
	if *upstream == "" || fs.NArg() > 0 {
		return fmt.Errorf("proxy: usage: kwire proxy -listen HOST:PORT -upstream HOST:PORT [-json] [-log FILE]")
	}
	w := out
	if *logFile != "" {
		// the log holds traffic: readable by its owner only
		f, err := os.OpenFile(*logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return fmt.Errorf("proxy: %v", err)
		}
		defer f.Close()
		w = f
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := trafficlog.NewWriter(w, trafficlog.Options{JSON: *asJSON,
		Notice: func(msg string) { fmt.Fprintf(os.Stderr, "kwire proxy: %s\n", msg) }})
	p := newProxy(*listen, *unstable, *maxFrame, log)
	p.notices = os.Stderr
	if _, err := p.listen(*listen, *upstream); err != nil {
		log.Close()
		return fmt.Errorf("proxy: %v", err)
	}
	<-ctx.Done()
	stop() // a second signal ends the process at once
	if err := p.close(); err != nil {
		return fmt.Errorf("proxy: %v", err)
	}
	return nil
}

type proxy struct {
	host     string // where added listeners listen
	ours     []kwire.APIVersions
	maxFrame int
	log      *trafficlog.Writer
	notices  io.Writer // "kwire proxy: LOCAL -> UPSTREAM" for every listener

	mu        sync.Mutex
	local     map[string]string // upstream host:port -> local host:port
	listeners []net.Listener
	conns     map[net.Conn]struct{}
	nconn     int
	closed    bool
	wg        sync.WaitGroup
}

func newProxy(listen string, unstable bool, maxFrame int, log *trafficlog.Writer) *proxy {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		host = "127.0.0.1"
	}
	return &proxy{
		host: host, ours: messages.Versions(unstable), maxFrame: maxFrame,
		log: log, notices: io.Discard, local: map[string]string{}, conns: map[net.Conn]struct{}{},
	}
}

// listen serves addr as the stand-in for the upstream broker, and
// returns the address it listens on.
func (p *proxy) listen(addr, upstream string) (string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		ln.Close()
		return "", net.ErrClosed
	}
	p.listeners = append(p.listeners, ln)
	p.local[upstream] = ln.Addr().String()
	p.wg.Add(1)
	go p.accept(ln, upstream)
	fmt.Fprintf(p.notices, "kwire proxy: %s -> %s\n", ln.Addr(), upstream)
	return ln.Addr().String(), nil
}

// localFor returns the local stand-in of an upstream broker, listening
// on a new port the first time the broker is named.
func (p *proxy) localFor(upstream string) (string, error) {
	p.mu.Lock()
	addr, ok := p.local[upstream]
	p.mu.Unlock()
	if ok {
		return addr, nil
	}
	return p.listen(net.JoinHostPort(p.host, "0"), upstream)
}

func (p *proxy) accept(ln net.Listener, upstream string) {
	defer p.wg.Done()
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		up, err := net.DialTimeout("tcp", upstream, 10*time.Second)
		if err != nil {
			fmt.Fprintf(p.notices, "kwire proxy: %s: %v\n", upstream, err)
			c.Close()
			continue
		}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			c.Close()
			up.Close()
			return
		}
		p.nconn++
		pc := &proxyConn{p: p, id: p.nconn, client: c, upstream: up, clientAddr: c.RemoteAddr().String(),
			tracker: messages.NewTracker(maxInFlight), clientIDs: map[int32]*string{}}
		p.conns[c], p.conns[up] = struct{}{}, struct{}{}
		p.wg.Add(2)
		p.mu.Unlock()
		go pc.requests()
		go pc.responses()
	}
}

// close stops listening, ends every connection and flushes the log,
// reporting the lines the log lost.
func (p *proxy) close() error {
	p.mu.Lock()
	p.closed = true
	for _, ln := range p.listeners {
		ln.Close()
	}
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
	return p.log.Close()
}

func (p *proxy) forget(cs ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range cs {
		c.Close()
		delete(p.conns, c)
	}
}

// maxInFlight bounds the requests a connection may have unanswered;
// Kafka clients keep a handful.
const maxInFlight = 1024

// proxyConn is one client connection and its upstream connection.
type proxyConn struct {
	p                *proxy
	id               int
	client, upstream net.Conn
	tracker          *kwire.Tracker
	writeClient      sync.Mutex // responses, and answers the proxy gives itself

	clientAddr string

	mu        sync.Mutex
	clientIDs map[int32]*string // by correlation id, while in flight
	mechanism string            // the SASL mechanism the client chose
	principal string            // the user its SASL login named

	// After a SaslHandshake v0 that succeeded, the client's next frame
	// is a raw SASL token and the broker's next frame its raw (perhaps
	// empty) answer: not Kafka messages, relayed as they are.
	clientToken, upstreamToken atomic.Bool
}

// requests relays the client's frames upstream, untouched.
func (c *proxyConn) requests() {
	defer c.p.wg.Done()
	defer c.p.forget(c.client, c.upstream)
	frames := kwire.NewFrameReader(c.client, c.p.maxFrame)
	apiVersions, _ := messages.Lookup(18)
	for {
		frame, err := frames.Next()
		if err != nil {
			c.ended("client", err)
			return
		}
		if c.clientToken.Swap(false) {
			c.notePrincipal(trafficlog.SASLPrincipal(c.saslMechanism(), frame[4:]))
			e := c.event(trafficlog.Request)
			e.Note = saslTokenNote(frame)
			c.p.log.Write(e)
			if _, err := c.upstream.Write(frame); err != nil {
				c.ended("upstream", err)
				return
			}
			continue
		}
		e := c.event(trafficlog.Request)
		key, version, corr, err := kwire.PeekRequest(frame)
		if err != nil {
			e.Err = err
		} else {
			e.Key, e.Version, e.CorrelationID = key, version, corr
		}
		if err == nil && key == apiVersions.Key && version > apiVersions.MaxVersion {
			// Kafka's answer to an ApiVersions it cannot read; the client
			// retries with a version kwire reads.
			e.Note = "answered by the proxy: UNSUPPORTED_VERSION"
			c.p.log.Write(e)
			ours := kwire.APIVersions{APIKey: 18, MinVersion: apiVersions.MinVersion, MaxVersion: apiVersions.MaxVersion}
			if c.toClient(kwire.AppendUnsupportedAPIVersions(nil, corr, ours)) != nil {
				return
			}
			continue
		}
		if e.Err == nil {
			var h kwire.RequestHeader
			h, e.Msg, e.Err = messages.ReadRequest(frame)
			e.ClientID = h.ClientID
			switch m := e.Msg.(type) {
			case *messages.SaslHandshakeRequest:
				c.mu.Lock()
				c.mechanism = m.Mechanism
				c.mu.Unlock()
			case *messages.SaslAuthenticateRequest:
				e.Principal = c.notePrincipal(trafficlog.SASLPrincipal(c.saslMechanism(), m.AuthBytes))
			}
			expect, err := c.tracker.Request(frame)
			switch {
			case err != nil:
				e.Note = err.Error()
			case expect:
				c.mu.Lock()
				c.clientIDs[corr] = h.ClientID
				c.mu.Unlock()
			default:
				e.Note = "no response expected (acks=0)"
			}
		}
		c.p.log.Write(e)
		if _, err := c.upstream.Write(frame); err != nil {
			c.ended("upstream", err)
			return
		}
	}
}

// responses relays upstream's frames to the client, rewriting broker
// addresses and clamping ApiVersions.
func (c *proxyConn) responses() {
	defer c.p.wg.Done()
	defer c.p.forget(c.client, c.upstream)
	frames := kwire.NewFrameReader(c.upstream, c.p.maxFrame)
	var rewritten []byte
	for {
		token := c.upstreamToken.Swap(false)
		frames.AllowEmpty = token
		frame, err := frames.Next()
		if err != nil {
			c.ended("upstream", err)
			return
		}
		if token {
			e := c.event(trafficlog.Response)
			e.Note = saslTokenNote(frame)
			c.p.log.Write(e)
			if err := c.toClient(frame); err != nil {
				return
			}
			continue
		}
		e := c.event(trafficlog.Response)
		req, h, msg, err := c.tracker.ReadResponse(frame)
		e.CorrelationID = h.CorrelationID
		if corr, perr := kwire.PeekResponse(frame); perr == nil {
			e.CorrelationID = corr
		}
		if req.Sent != (time.Time{}) {
			e.Key, e.Version, e.Latency = req.APIKey, req.APIVersion, e.Time.Sub(req.Sent)
			c.mu.Lock()
			e.ClientID = c.clientIDs[req.CorrelationID]
			delete(c.clientIDs, req.CorrelationID)
			c.mu.Unlock()
		}
		e.Msg, e.Err = msg, err
		out := frame
		if msg != nil {
			changed, note, err := c.p.rewrite(msg)
			switch {
			case err != nil:
				e.Note = "not rewritten: " + err.Error()
			case changed:
				if rewritten, err = kwire.AppendResponseWithHeader(rewritten[:0], h, msg, req.APIVersion); err != nil {
					e.Note = "not rewritten: " + err.Error()
				} else {
					out, e.Note = rewritten, note
				}
			}
		}
		if hs, ok := msg.(*messages.SaslHandshakeResponse); ok && req.APIVersion == 0 && hs.ErrorCode == 0 {
			c.clientToken.Store(true) // before the client can see the answer
			c.upstreamToken.Store(true)
		}
		c.p.log.Write(e)
		if err := c.toClient(out); err != nil {
			return
		}
	}
}

func (c *proxyConn) toClient(frame []byte) error {
	c.writeClient.Lock()
	_, err := c.client.Write(frame)
	c.writeClient.Unlock()
	if err != nil {
		c.ended("client", err)
	}
	return err
}

// event starts a log line about this connection.
func (c *proxyConn) event(dir trafficlog.Dir) trafficlog.Event {
	c.mu.Lock()
	principal := c.principal
	c.mu.Unlock()
	return trafficlog.Event{Time: time.Now(), Conn: c.id, Dir: dir, Key: -1, ClientAddr: c.clientAddr, Principal: principal}
}

func (c *proxyConn) saslMechanism() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.mechanism
}

// notePrincipal remembers the user a SASL login named, for the lines
// that follow; it returns the principal the connection now has.
func (c *proxyConn) notePrincipal(name string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if name != "" {
		c.principal = name
	}
	return c.principal
}

func saslTokenNote(frame []byte) string {
	return fmt.Sprintf("raw SASL token (after SaslHandshake v0), %d bytes, relayed as is", len(frame)-4)
}

// rewrite clamps an ApiVersions response and points broker addresses at
// local listeners; it reports whether msg changed.
func (p *proxy) rewrite(msg any) (bool, string, error) {
	note := ""
	clamped := false
	if av, ok := msg.(*messages.ApiVersionsResponse); ok && av.Clamp(p.ours) {
		clamped, note = true, "versions clamped to kwire's"
	}
	n, err := rewriteAddresses(msg, p.localFor)
	if n > 0 {
		note = strconv.Itoa(n) + " broker addresses rewritten"
	}
	return clamped || n > 0, note, err
}

// ended notes why a side of a connection ended, unless it is the usual
// close of one side or of the proxy.
func (c *proxyConn) ended(side string, err error) {
	if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
		return
	}
	c.p.mu.Lock()
	closed := c.p.closed
	c.p.mu.Unlock()
	if !closed {
		e := c.event(trafficlog.Close)
		e.Note = side + ": " + err.Error()
		c.p.log.Write(e)
	}
}
