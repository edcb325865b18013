package proxy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kwirelabs/kwire/app/trafficlog"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/kerr"
	"github.com/kwirelabs/kwire/messages"
)

// maxInFlight bounds the requests a connection may have unanswered;
// Kafka clients keep a handful.
const maxInFlight = 1024

const (
	keyProduce          = 0
	keyFetch            = 1
	keyJoinGroup        = 11
	keySaslHandshake    = 17
	keyApiVersions      = 18
	keySaslAuthenticate = 36
)

// pending is a request waiting for its answer, in the order the client
// sent them: Kafka answers a connection's requests in order, and
// clients rely on it.
type pending struct {
	key, version int16
	corr         int32
	clientID     *string
	sent         time.Time
	wait         time.Duration // how long the request asks the broker to wait before answering
	answer       []byte        // made by the proxy; nil: upstream answers
	raw          bool          // a raw SASL token (after SaslHandshake v0)
	req          *Request      // its OnResponse hooks, when it has some
}

// conn relays one client connection and its upstream connection.
type conn struct {
	p                *Proxy
	info             *Conn
	client, upstream net.Conn
	first            firstBytes // the client's first bytes, to recognise TLS

	qmu      sync.Mutex
	queue    []*pending
	draining bool
	reqDone  bool // the request side stopped reading
	// answering counts upstream answers taken off the queue and not yet
	// written to the client, and answered is when the last one was: the
	// idle timeout neither closes a connection under an answer nor right
	// after one.
	answering int
	answered  time.Time

	wmu sync.Mutex // writes to the client, in order

	// saslRaw is where the connection is in a raw SASL exchange (after
	// SaslHandshake v0): the client's first frame then is a token, and so
	// is each next one that does not read as a request (SCRAM sends two,
	// GSSAPI more; the broker answers each).
	saslRaw   atomic.Uint32   // noTokens, firstToken or moreTokens
	bufBytes  [2]atomic.Int64 // the read buffers' sizes, client side and upstream side
	closeOnce sync.Once
	closed    atomic.Bool

	// watchdog checks the oldest request the upstream owes an answer
	// (RequestTimeout); nil while none is owed. Guarded by qmu.
	watchdog *time.Timer
}

// The values of conn.saslRaw.
const (
	noTokens = iota
	firstToken
	moreTokens
)

// newConn relays client to upstream, starting with the bytes the client
// sent while the upstream was dialled.
func newConn(p *Proxy, info *Conn, client, upstream net.Conn, early []byte) *conn {
	c := &conn{p: p, info: info, client: client, upstream: upstream}
	c.first.r = client
	if len(early) > 0 {
		c.first.r = io.MultiReader(bytes.NewReader(early), client)
	}
	return c
}

// run relays until either side ends.
func (c *conn) run() {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); c.requests() }()
	go func() { defer wg.Done(); c.responses() }()
	wg.Wait()
}

// shut closes both sides.
func (c *conn) shut() {
	c.closeOnce.Do(func() {
		c.closed.Store(true)
		c.client.Close()
		c.upstream.Close()
		c.qmu.Lock()
		if c.watchdog != nil {
			c.watchdog.Stop()
		}
		c.qmu.Unlock()
	})
}

// drain stops reading requests; the connection closes once the requests
// in flight are answered.
func (c *conn) drain() {
	c.qmu.Lock()
	c.draining = true
	c.client.SetReadDeadline(time.Now())
	c.qmu.Unlock()
	c.maybeFinish()
}

func (c *conn) maybeFinish() {
	c.qmu.Lock()
	done := c.draining && c.reqDone && len(c.queue) == 0
	c.qmu.Unlock()
	if done {
		c.shut()
	}
}

func (c *conn) event(dir trafficlog.Dir) trafficlog.Event {
	return trafficlog.Event{Time: time.Now(), Conn: c.info.ID, Dir: dir, Key: -1,
		ClientAddr: c.info.ClientAddr.String(), Principal: c.info.Principal()}
}

func (c *conn) log(e trafficlog.Event) {
	if c.p.cfg.Log != nil {
		if a, ok := c.p.cfg.Registry.Lookup(e.Key); ok && e.Key >= 0 {
			e.API = a.Name
		}
		c.p.cfg.Log.Write(e)
	}
}

func (c *conn) push(pd *pending) bool {
	c.qmu.Lock()
	defer c.qmu.Unlock()
	if len(c.queue) >= maxInFlight {
		return false
	}
	c.queue = append(c.queue, pd)
	if d := c.p.cfg.RequestTimeout; d > 0 && pd.answer == nil && c.watchdog == nil {
		c.watchdog = time.AfterFunc(d+pd.wait, c.checkTimeout)
	}
	return true
}

// checkTimeout closes the connection when the oldest request the
// upstream owes an answer is past RequestTimeout (and its own wait), and
// otherwise sets the watchdog for the moment it will be.
func (c *conn) checkTimeout() {
	d := c.p.cfg.RequestTimeout
	c.qmu.Lock()
	var oldest *pending
	for _, pd := range c.queue {
		if pd.answer == nil {
			oldest = pd
			break
		}
	}
	if oldest == nil || c.closed.Load() {
		c.watchdog = nil
		c.qmu.Unlock()
		return
	}
	left := time.Until(oldest.sent.Add(d + oldest.wait))
	if left > 0 {
		c.watchdog = time.AfterFunc(left, c.checkTimeout)
		c.qmu.Unlock()
		return
	}
	c.watchdog = nil
	c.qmu.Unlock()
	e := c.event(trafficlog.Close)
	e.Key, e.Version, e.CorrelationID, e.ClientID = oldest.key, oldest.version, oldest.corr, oldest.clientID
	e.Note = fmt.Sprintf("the upstream did not answer within the request timeout (%v); client closed", d+oldest.wait)
	c.log(e)
	if tm, ok := c.p.cfg.Metrics.(TroubleMetrics); ok {
		tm.RequestTimedOut(oldest.key)
	}
	c.shut()
}

// inFlight counts the requests the client still waits on, an answer
// being written included.
func (c *conn) inFlight() int {
	c.qmu.Lock()
	defer c.qmu.Unlock()
	return len(c.queue) + c.answering
}

// lastAnswered is when the client was last written an upstream answer.
func (c *conn) lastAnswered() time.Time {
	c.qmu.Lock()
	defer c.qmu.Unlock()
	return c.answered
}

// answerWritten ends what popUpstream began.
func (c *conn) answerWritten(pd *pending) {
	c.qmu.Lock()
	defer c.qmu.Unlock()
	if pd != nil {
		c.answering--
	}
	c.answered = time.Now()
}

// popUpstream takes the oldest request the upstream is to answer.
func (c *conn) popUpstream() *pending {
	c.qmu.Lock()
	defer c.qmu.Unlock()
	if len(c.queue) == 0 || c.queue[0].answer != nil {
		return nil
	}
	pd := c.queue[0]
	c.queue[0] = nil
	c.queue = c.queue[1:]
	c.answering++
	return pd
}

// flushAnswers writes the proxy's own answers at the head of the queue;
// the caller holds wmu.
func (c *conn) flushAnswers() error {
	for {
		c.qmu.Lock()
		if len(c.queue) == 0 || c.queue[0].answer == nil {
			c.qmu.Unlock()
			return nil
		}
		pd := c.queue[0]
		c.queue[0] = nil
		c.queue = c.queue[1:]
		c.qmu.Unlock()
		if _, err := c.client.Write(pd.answer); err != nil {
			return err
		}
	}
}

// answer queues the proxy's own response to a request, which reaches
// the client after the answers to the requests before it.
func (c *conn) answer(pd *pending) error {
	if !c.push(pd) {
		return errors.New("too many requests in flight")
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.flushAnswers()
}

// requests relays the client's frames upstream.
func (c *conn) requests() {
	defer func() {
		c.qmu.Lock()
		c.reqDone = true
		c.qmu.Unlock()
		c.maybeFinish()
	}()
	cfg := &c.p.cfg
	frames := kwire.NewFrameReader(&c.first, cfg.MaxFrame)
	lastFrame := time.Now()
	armed := false // a read deadline is set
	for {
		// The read deadline is the idle timeout, or sooner the moment to
		// give back a large frame's buffer if no frame follows.
		var deadline time.Time
		if cfg.IdleTimeout > 0 {
			deadline = lastFrame.Add(cfg.IdleTimeout)
		}
		shrinking := frames.BufferSize() > kwire.ShrinkAbove
		if shrinking {
			if d := time.Now().Add(shrinkAfter); deadline.IsZero() || d.Before(deadline) {
				deadline = d
			}
		}
		c.qmu.Lock() // drain's deadline must not be overwritten
		if c.draining {
			c.qmu.Unlock()
			return
		}
		if need := shrinking || cfg.IdleTimeout > 0; need || armed {
			c.client.SetReadDeadline(deadline) // zero: none
			armed = need
		}
		c.qmu.Unlock()
		frame, err := frames.Next()
		if err != nil {
			c.qmu.Lock()
			draining := c.draining
			c.qmu.Unlock()
			if draining {
				return // responses finish the connection
			}
			if errors.Is(err, os.ErrDeadlineExceeded) {
				shrink(frames)
				c.bufBytes[0].Store(int64(frames.BufferSize()))
				if cfg.IdleTimeout <= 0 || time.Since(lastFrame) < cfg.IdleTimeout {
					continue
				}
				if c.inFlight() > 0 {
					lastFrame = time.Now() // a long poll is not idleness
					continue
				}
				if a := c.lastAnswered(); time.Since(a) < cfg.IdleTimeout {
					lastFrame = a // the client has just been answered
					continue
				}
				c.closeWith(fmt.Sprintf("client idle for %v", cfg.IdleTimeout))
				return
			}
			if c.first.looksLikeTLS() {
				if tm, ok := cfg.Metrics.(TroubleMetrics); ok {
					tm.TLSOnPlaintext()
				}
				c.closeWith("client speaks TLS; start the proxy with -tls-cert (" + err.Error() + ")")
				return
			}
			c.ended("client", err)
			c.shut()
			return
		}
		lastFrame = time.Now()
		c.bufBytes[0].Store(int64(frames.BufferSize()))
		if !c.request(frame) {
			c.shut()
			return
		}
	}
}

// shrinkAfter is how long a connection is quiet before a buffer grown
// for a large frame is given back.
const shrinkAfter = time.Second

// shrink lets go of a reader's large buffer, and of its memory.
func shrink(frames *kwire.FrameReader) {
	before := frames.BufferSize()
	frames.Shrink()
	if frames.BufferSize() < before {
		letGo(before)
	}
}

// request handles one frame from the client; false ends the connection.
func (c *conn) request(frame []byte) bool {
	cfg := &c.p.cfg
	now := time.Now()
	switch c.saslRaw.Load() {
	case firstToken:
		c.saslRaw.Store(moreTokens)
		c.info.setPrincipal(trafficlog.SASLPrincipal(c.info.SASLMechanism(), frame[4:]), false)
		return c.rawToken(frame, now)
	case moreTokens:
		if !c.readsAsRequest(frame) {
			return c.rawToken(frame, now)
		}
		// A broker closes a connection whose raw login failed: a request
		// after the tokens means it succeeded.
		c.saslRaw.Store(noTokens)
		c.info.loginAccepted()
	}
	e := c.event(trafficlog.Request)
	key, version, corr, err := kwire.PeekRequest(frame)
	if err != nil {
		e.Err = err
		c.undecodable(e, len(frame))
		return c.push(&pending{key: -1, sent: now}) && c.toUpstream(frame)
	}
	e.Key, e.Version, e.CorrelationID = key, version, corr
	if m := cfg.Metrics; m != nil {
		m.Request(key, version, len(frame))
		if cm, ok := m.(ClientMetrics); ok {
			id := peekClientID(c.p.cfg.Registry, frame, key, version)
			if id != nil {
				// Kept here too: without a log or filters most requests are
				// not decoded, so noteClient may never see this one.
				c.info.keepClientID(id)
			} else if cid := c.info.ClientID(); cid != nil {
				id = []byte(*cid) // a KIP-1313 client names itself once: its later requests count under that name
			}
			cm.ClientRequest(id)
		}
	}
	if av, ok := cfg.Registry.Lookup(keyApiVersions); ok && key == keyApiVersions && version > av.MaxVersion {
		// Kafka's answer to an ApiVersions it cannot read; the client
		// retries with a version kwire reads.
		e.Note = "answered by the proxy: UNSUPPORTED_VERSION"
		c.log(e)
		ours := kwire.APIVersionRange{APIKey: keyApiVersions, MinVersion: av.MinVersion, MaxVersion: av.MaxVersion}
		return c.answer(&pending{key: key, version: version, corr: corr, sent: now,
			answer: kwire.AppendUnsupportedAPIVersions(nil, corr, ours)}) == nil
	}
	decode := cfg.Log != nil || len(cfg.Filters) > 0 || key == keyProduce || key == keySaslHandshake ||
		key == keySaslAuthenticate || (cfg.RequestTimeout > 0 && (key == keyFetch || key == keyJoinGroup))
	if !decode {
		return c.push(&pending{key: key, version: version, corr: corr, sent: now}) && c.toUpstream(frame)
	}
	h, msg, err := cfg.Registry.ReadRequestWith(kwire.Decoder{KafkaLimits: !cfg.PastKafkaLimits}, frame)
	if errors.Is(err, kwire.ErrKafkaLimit) {
		e.Err = err
		e.ClientID = clientIDOf(c.p.cfg.Registry, frame, key, version)
		c.undecodable(e, 0)
		c.closeWith("a request past Kafka's reader limits, not relayed: the broker refuses it")
		return false
	}
	if err != nil {
		e.Err = err
		e.ClientID = clientIDOf(c.p.cfg.Registry, frame, key, version)
		c.undecodable(e, 0)
		return c.push(&pending{key: key, version: version, corr: corr, clientID: e.ClientID, sent: now}) && c.toUpstream(frame)
	}
	e.ClientID, e.ClientInstanceID = c.info.noteClient(&h)
	e.Msg = msg
	switch m := msg.(type) {
	case *messages.SaslHandshakeRequest:
		c.info.setMechanism(m.Mechanism)
	case *messages.SaslAuthenticateRequest:
		e.Principal = c.info.setPrincipal(trafficlog.SASLPrincipal(c.info.SASLMechanism(), m.AuthBytes), false)
	}
	req := &Request{Header: h, Body: msg, registry: cfg.Registry}
	out := frame
	for _, f := range cfg.Filters {
		a := f.Request(c.info, req)
		if a.close != "" {
			c.log(e)
			c.closeWith("closed by a filter: " + a.close)
			return false
		}
		if a.answer != nil {
			return c.filterAnswer(e, req, a.answer, now)
		}
	}
	if req.changed {
		b, err := kwire.AppendRequestWithHeader(nil, req.Header, req.Body)
		if err != nil {
			e.Note = "a filter's change could not be encoded: " + err.Error()
			c.log(e)
			c.closeWith(e.Note)
			return false
		}
		out, e.Msg, e.Note = b, req.Body, "changed by a filter"
	}
	pd := &pending{key: key, version: version, corr: corr, clientID: e.ClientID, sent: now, wait: requestWait(req.Body)}
	if len(req.onResponse) > 0 {
		pd.req = req
	}
	if p, ok := req.Body.(*messages.ProduceRequest); ok && p.Acks == 0 {
		e.Note = joinNote(e.Note, "no response expected (acks=0)")
		c.log(e)
		return c.toUpstream(out)
	}
	c.log(e)
	if !c.push(pd) {
		c.closeWith(fmt.Sprintf("more than %d requests in flight", maxInFlight))
		return false
	}
	return c.toUpstream(out)
}

// filterAnswer sends a filter's answer to a request in the request's
// place.
func (c *conn) filterAnswer(e trafficlog.Event, req *Request, resp any, now time.Time) bool {
	h := req.Header
	if p, ok := req.Body.(*messages.ProduceRequest); ok && p.Acks == 0 {
		e.Note = joinNote(e.Note, "refused by a filter; acks=0, so the client is not told")
		c.log(e)
		return true
	}
	b, err := kwire.AppendResponse(nil, resp, h.APIVersion, h.CorrelationID)
	if err != nil {
		e.Note = "a filter's answer could not be encoded: " + err.Error()
		c.log(e)
		c.closeWith(e.Note)
		return false
	}
	e.Note = joinNote(e.Note, "answered by a filter")
	c.log(e)
	r := c.event(trafficlog.Response)
	r.Key, r.Version, r.CorrelationID, r.ClientID, r.Msg = h.APIKey, h.APIVersion, h.CorrelationID, h.ClientID, resp
	r.Note = "the proxy's answer"
	c.log(r)
	if m := c.p.cfg.Metrics; m != nil {
		m.Response(h.APIKey, h.APIVersion, len(b), 0, errorCodes(resp, h.APIVersion))
	}
	if err := c.answer(&pending{key: h.APIKey, version: h.APIVersion, corr: h.CorrelationID, sent: now, answer: b}); err != nil {
		c.ended("client", err)
		return false
	}
	return true
}

func (c *conn) toUpstream(frame []byte) bool {
	if _, err := c.upstream.Write(frame); err != nil {
		c.ended("upstream", err)
		return false
	}
	return true
}

func (c *conn) toClient(frame []byte) bool {
	if _, err := c.client.Write(frame); err != nil {
		c.ended("client", err)
		return false
	}
	return true
}

// responses relays the upstream's frames to the client, rewriting
// broker addresses, clamping ApiVersions and running the filters.
func (c *conn) responses() {
	defer c.shut()
	frames := kwire.NewFrameReader(c.upstream, c.p.cfg.MaxFrame)
	var buf []byte
	shrinking := false
	for {
		if big := frames.BufferSize() > kwire.ShrinkAbove; big || shrinking {
			var deadline time.Time
			if big {
				deadline = time.Now().Add(shrinkAfter)
			}
			c.upstream.SetReadDeadline(deadline)
			shrinking = big
		}
		frame, err := frames.Next()
		if errors.Is(err, os.ErrDeadlineExceeded) && shrinking {
			shrink(frames)
			c.bufBytes[1].Store(int64(frames.BufferSize()))
			continue
		}
		frames.AllowEmpty = false
		if err != nil {
			if c.saslRaw.Load() != noTokens && c.inFlight() > 0 && !c.closed.Load() {
				c.loginFailed("the broker closed the connection during the raw SASL exchange")
			}
			c.ended("upstream", err)
			return
		}
		c.bufBytes[1].Store(int64(frames.BufferSize()))
		c.wmu.Lock()
		pd := c.popUpstream()
		out, ok := c.response(frame, pd, &buf)
		ok = ok && c.toClient(out) && c.flushAnswers() == nil
		c.wmu.Unlock()
		c.answerWritten(pd)
		if !ok {
			return
		}
		frames.AllowEmpty = c.saslRaw.Load() != noTokens // PLAIN's answer to a raw token is empty
		if cap(buf) > kwire.ShrinkAbove {
			letGo(cap(buf))
			buf = nil
		}
		c.qmu.Lock()
		finished := c.draining && c.reqDone && len(c.queue) == 0
		c.qmu.Unlock()
		if finished {
			return
		}
	}
}

// rawToken relays a raw SASL token from the client, logging its size
// only.
func (c *conn) rawToken(frame []byte, now time.Time) bool {
	e := c.event(trafficlog.Request)
	e.Note = rawTokenNote(frame)
	c.log(e)
	return c.push(&pending{key: -1, raw: true, sent: now}) && c.toUpstream(frame)
}

// readsAsRequest says whether frame starts as a request of an API the
// registry has, at a version it has (any for ApiVersions, whose newer
// versions the proxy answers): SASL tokens, text or ASN.1, do not.
func (c *conn) readsAsRequest(frame []byte) bool {
	key, version, corr, err := kwire.PeekRequest(frame)
	if err != nil || version < 0 || corr < 0 {
		return false
	}
	a, ok := c.p.cfg.Registry.Lookup(key)
	return ok && (version <= a.MaxVersion || key == keyApiVersions)
}

// response works out what to send the client for one upstream frame.
func (c *conn) response(frame []byte, pd *pending, buf *[]byte) (out []byte, ok bool) {
	cfg := &c.p.cfg
	now := time.Now()
	e := c.event(trafficlog.Response)
	switch {
	case pd == nil:
		e.Err = errors.New("a response to no request in flight")
		if corr, err := kwire.PeekResponse(frame); err == nil {
			e.CorrelationID = corr
		}
		c.undecodable(e, 0)
		return frame, true
	case pd.raw:
		e.Note = rawTokenNote(frame)
		c.log(e)
		return frame, true
	}
	e.Key, e.Version, e.CorrelationID, e.ClientID, e.Latency = pd.key, pd.version, pd.corr, pd.clientID, now.Sub(pd.sent)
	e.ClientInstanceID = c.info.ClientInstanceID()
	if corr, err := kwire.PeekResponse(frame); err != nil || corr != pd.corr || pd.key < 0 {
		if err == nil && corr != pd.corr {
			err = fmt.Errorf("correlation id %d answers request %d: out of order", corr, pd.corr)
		} else if err == nil {
			err = errors.New("the request did not decode")
		}
		e.Err = err
		c.undecodable(e, 0)
		return frame, true
	}
	decode := cfg.Log != nil || len(cfg.Filters) > 0 || cfg.Metrics != nil || pd.req != nil ||
		pd.key == keyApiVersions || pd.key == keySaslHandshake || pd.key == keySaslAuthenticate ||
		rewrites(cfg.Registry, pd.key, pd.version)
	if !decode {
		return frame, true
	}
	h, msg, err := cfg.Registry.ReadResponseWith(kwire.Decoder{KafkaLimits: !cfg.PastKafkaLimits}, frame, pd.key, pd.version)
	if err != nil {
		e.Err = err
		c.undecodable(e, 0)
		if m := cfg.Metrics; m != nil {
			m.Response(pd.key, pd.version, len(frame), e.Latency, nil)
		}
		return frame, true
	}
	e.Msg = msg
	switch m := msg.(type) {
	case *messages.SaslHandshakeResponse:
		if m.ErrorCode != 0 {
			c.loginFailed(fmt.Sprintf("SaslHandshake answered %s (the broker offers %v)", kerr.Code(m.ErrorCode).Name(), m.Mechanisms))
		}
	case *messages.SaslAuthenticateResponse:
		if m.ErrorCode != 0 {
			why := kerr.Code(m.ErrorCode).Name()
			if m.ErrorMessage != nil {
				why += ": " + *m.ErrorMessage
			}
			c.loginFailed("SaslAuthenticate answered " + why)
		} else {
			c.info.loginAccepted()
		}
	}
	resp := &Response{Header: h, APIKey: pd.key, Version: pd.version, Body: msg, Latency: e.Latency}
	var notes []string
	if av, ok := msg.(*messages.ApiVersionsResponse); ok && c.clamp(av) {
		resp.changed = true
		notes = append(notes, "versions clamped")
	}
	n, err := rewriteAddresses(msg, c.localFor)
	if err != nil {
		// Relaying the rest as they are would send the client straight to
		// brokers, past the filters and the log.
		e.Note = "not relayed: " + err.Error()
		c.log(e)
		if tm, ok := cfg.Metrics.(TroubleMetrics); ok {
			tm.BrokerCapRefused()
		}
		c.closeWith("an answer named a broker the proxy has no listener for (" + err.Error() + "); client closed")
		return nil, false
	}
	if n > 0 {
		resp.changed = true
		notes = append(notes, strconv.Itoa(n)+" broker addresses rewritten")
	}
	if pd.req != nil {
		for _, fn := range pd.req.onResponse {
			fn(c.info, resp)
		}
	}
	for i := len(cfg.Filters) - 1; i >= 0; i-- {
		if a := cfg.Filters[i].Response(c.info, resp); a.close != "" {
			c.log(e)
			c.closeWith("closed by a filter: " + a.close)
			return nil, false
		}
	}
	if hs, ok := resp.Body.(*messages.SaslHandshakeResponse); ok && pd.version == 0 && hs.ErrorCode == 0 {
		c.saslRaw.Store(firstToken) // before the client can see the answer
	}
	out = frame
	if resp.changed {
		b, err := kwire.AppendResponseWithHeader((*buf)[:0], resp.Header, resp.Body, pd.version)
		if err != nil {
			notes = append(notes, "not changed: "+err.Error())
		} else {
			*buf, out, e.Msg = b, b, resp.Body
		}
	}
	for _, n := range notes {
		e.Note = joinNote(e.Note, n)
	}
	c.log(e)
	if m := cfg.Metrics; m != nil {
		m.Response(pd.key, pd.version, len(out), e.Latency, errorCodes(resp.Body, pd.version))
	}
	return out, true
}

// clamp narrows an ApiVersions response to Config.Versions, keeping the
// keys kwire does not know unless StripUnknown is set, and its features
// to Config.Features.
func (c *conn) clamp(av *messages.ApiVersionsResponse) bool {
	cfg := &c.p.cfg
	ours := cfg.Versions
	if !cfg.StripUnknown {
		for _, k := range av.ApiKeys {
			if _, known := cfg.Registry.Lookup(k.ApiKey); !known {
				ours = append(ours[:len(ours):len(ours)], kwire.APIVersionRange{APIKey: k.ApiKey, MinVersion: k.MinVersion, MaxVersion: k.MaxVersion})
			}
		}
	}
	features := av.ClampFeatures(cfg.Features)
	return av.Clamp(ours) || features
}

// localFor is the address clients of this connection reach an upstream
// broker at.
func (c *conn) localFor(upstream string) (string, error) {
	port, err := c.p.localPort(upstream)
	if err != nil {
		return "", err
	}
	return net.JoinHostPort(c.p.advertisedHost(c.info.LocalAddr), strconv.Itoa(port)), nil
}

func (c *conn) undecodable(e trafficlog.Event, requestBytes int) {
	c.log(e)
	if m := c.p.cfg.Metrics; m != nil {
		m.Undecodable(e.Dir)
		if requestBytes > 0 {
			m.Request(-1, -1, requestBytes)
		}
	}
}

// loginFailed logs a SASL login the broker refused, and counts it by
// mechanism.
func (c *conn) loginFailed(why string) {
	mech := c.info.SASLMechanism()
	e := c.event(trafficlog.Auth)
	e.Note = fmt.Sprintf("login failed (mechanism %q): %s", mech, why)
	c.log(e)
	if tm, ok := c.p.cfg.Metrics.(TroubleMetrics); ok {
		tm.LoginFailed(mech)
	}
}

// closeWith logs why the proxy ends the connection and ends it.
func (c *conn) closeWith(note string) {
	e := c.event(trafficlog.Close)
	e.Note = note
	c.log(e)
	c.shut()
}

// ended notes why a side of a connection ended, unless it is the usual
// close of one side or of the proxy.
func (c *conn) ended(side string, err error) {
	if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || c.p.isClosing() {
		return
	}
	e := c.event(trafficlog.Close)
	e.Note = side + ": " + err.Error()
	c.log(e)
}

// requestWait is how long a request asks the broker to hold its answer:
// a Fetch waits up to MaxWaitMs for data, a JoinGroup up to its
// rebalance timeout for the group's other members, and a request with a
// TimeoutMs of its own (Produce waiting on replicas, CreateTopics,
// DeleteRecords...) up to that.
func requestWait(msg any) time.Duration {
	ms := int32(0)
	switch m := msg.(type) {
	case *messages.FetchRequest:
		ms = m.MaxWaitMs
	case *messages.JoinGroupRequest:
		ms = max(m.RebalanceTimeoutMs, m.SessionTimeoutMs)
	default:
		if v := reflect.ValueOf(msg); v.Kind() == reflect.Pointer && !v.IsNil() && v.Elem().Kind() == reflect.Struct {
			if f := v.Elem().FieldByName("TimeoutMs"); f.IsValid() && f.Kind() == reflect.Int32 {
				ms = int32(f.Int())
			}
		}
	}
	return time.Duration(max(ms, 0)) * time.Millisecond
}

// clientIDOf is the client id of a request frame that did not decode,
// when its header can still be read that far.
func clientIDOf(reg *messages.Registry, frame []byte, key, version int16) *string {
	b := peekClientID(reg, frame, key, version)
	if b == nil {
		return nil
	}
	s := string(b)
	return &s
}

func rawTokenNote(frame []byte) string {
	return fmt.Sprintf("raw SASL token (after SaslHandshake v0), %d bytes, relayed as is", len(frame)-4)
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

var rewriteTypes sync.Map // key<<16|version -> bool

// rewrites says whether responses of an API at a version can name
// brokers, so that the proxy decodes them even with no log or filters.
func rewrites(r *messages.Registry, key, version int16) bool {
	k := int32(key)<<16 | int32(uint16(version))
	if v, ok := rewriteTypes.Load(k); ok {
		return v.(bool)
	}
	resp, err := r.ResponseFor(key, version)
	found := err == nil && hasEndpoints(reflect.TypeOf(resp))
	rewriteTypes.Store(k, found)
	return found
}

// errorCodes lists the non-zero error codes in a response, for metrics.
func errorCodes(msg any, version int16) []int16 {
	found, _ := kerr.Find(msg, version)
	if len(found) == 0 {
		return nil
	}
	codes := make([]int16, len(found))
	for i, f := range found {
		codes[i] = int16(f.Code)
	}
	return codes
}

// firstBytes remembers the first bytes read from a client, so that a
// TLS ClientHello on a plaintext port can be named as such.
type firstBytes struct {
	r    io.Reader
	head [3]byte
	n    int
}

func (f *firstBytes) Read(b []byte) (int, error) {
	n, err := f.r.Read(b)
	if f.n < len(f.head) {
		f.n += copy(f.head[f.n:], b[:n])
	}
	return n, err
}

// looksLikeTLS: a TLS handshake record (type 22, version 3.x), which a
// Kafka size prefix would read as a frame of over 369 MB.
func (f *firstBytes) looksLikeTLS() bool {
	return f.n >= 3 && f.head[0] == 0x16 && f.head[1] == 0x03 && f.head[2] <= 0x04
}
