package sniff

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/reassembly"

	"github.com/kwirelabs/kwire/app/trafficlog"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/wire"
	"github.com/kwirelabs/kwire/messages"
)

// connState is what a TCP connection has been found to be.
type connState uint8

const (
	detecting connState = iota // no plausible Kafka request seen yet
	isKafka
	ignored // not Kafka, or not decodable (TLS): its bytes are dropped unread
)

const (
	// searchBudget bounds the bytes of one direction searched for a first
	// request before a connection is judged not to be Kafka.
	searchBudget = 16 << 20
	// detectKeep is how many bytes each side keeps while neither is
	// known to be the client's.
	detectKeep = 1 << 20
	// resyncKeep is how many bytes a broker's side looking for a frame
	// boundary keeps for requests still to come.
	resyncKeep = 1 << 20
	// resyncWait bounds the frame a resynchronising stream waits for: a
	// larger candidate is passed over rather than buffered on a guess.
	resyncWait = 4 << 20
	// oversizeHead is how much of a frame over MaxFrame is kept to say
	// what it was.
	oversizeHead = 4096
	// shrinkAbove is the buffer capacity kept after a large frame; more
	// is given back once the buffer is mostly empty.
	shrinkAbove = 1 << 20
)

// pendingRequest is what a response needs from its request and the
// tracker does not keep: capture time and client id.
type pendingRequest struct {
	at           time.Time
	clientID     *string
	key, version int16
}

// heldResponse is a response frame waiting for its request.
type heldResponse struct {
	frame []byte
	at    time.Time
	dir   int
}

const (
	maxHeld      = 1024    // responses held per connection
	maxHeldBytes = 4 << 20 // ... and their bytes
)

// half is one direction of a connection.
type half struct {
	buf     []byte // bytes received and not yet consumed
	pos     int64  // stream offset of buf[0], from the first byte seen
	synced  bool   // buf[0] is at a frame boundary
	started bool   // the reassembler has shown this direction's first packet
	discard int64  // bytes still to drop of a frame over MaxFrame
	sought  int64  // bytes dropped looking for a frame boundary since the last one
	// While looking for a frame boundary: the stream offset up to which
	// bytes are ruled out, and the offsets of candidates not yet whole.
	frontier int64
	waiting  []int64
}

// conn is one TCP connection: the reassembler's Stream.
type conn struct {
	s  *sniffer
	id int
	// clientID and instance are the first client id and ClientInstanceId
	// (request header v3) the connection's requests carried: a KIP-1313
	// client sends them on its first request only.
	clientID *string
	instance kwire.UUID
	state    connState
	addr     [2]string // sender of each direction: 0 is the reassembler's first packet's
	port     [2]uint16
	client   int // the direction the client sends, -1 while unknown
	half     [2]half
	last     time.Time

	tracker *kwire.Tracker
	pending map[int32]pendingRequest
	// reused holds the later requests of a correlation id a client sent
	// again while one with it was in flight, oldest first: Kafka answers
	// in order, so they pair with the id's next responses.
	reused map[int32][]pendingRequest
	// After a SaslHandshake v0 that succeeded, frames each way are raw
	// SASL tokens, not Kafka messages, until the client sends a request
	// again: one token each way for PLAIN, two for SCRAM, as many as it
	// takes for GSSAPI.
	saslTokens bool
	// held are responses to no request seen yet, kept a while: a
	// segment the capture missed holds the client's bytes after it in
	// the reassembler until the hole is declared a gap, and the broker's
	// answers to them come first.
	held      []heldResponse
	heldBytes int
	mechanism string // the SASL mechanism the client asked for
	replay    bool   // the broker's side has bytes kept from before the client was known
	principal string
	done      bool
	// opened says the connection is one: it carried a SYN or a byte. The
	// last ACK after both FINs reaches the reassembler after it has
	// closed the connection, as a new one with neither.
	opened bool
}

func newConn(s *sniffer, netFlow, tcpFlow gopacket.Flow, tcp *layers.TCP) *conn {
	c := &conn{s: s, client: -1}
	src, dst := netFlow.Endpoints()
	sp, dp := tcpFlow.Endpoints()
	c.port[0] = binary.BigEndian.Uint16(sp.Raw())
	c.port[1] = binary.BigEndian.Uint16(dp.Raw())
	c.addr[0] = net.JoinHostPort(src.String(), strconv.Itoa(int(c.port[0])))
	c.addr[1] = net.JoinHostPort(dst.String(), strconv.Itoa(int(c.port[1])))
	if s.ports != nil && s.ports[c.port[0]] != s.ports[c.port[1]] {
		c.client = 1 // the listed port is the broker's
		if s.ports[c.port[1]] {
			c.client = 0
		}
	}
	return c
}

func dirIndex(d reassembly.TCPFlowDirection) int {
	if d == reassembly.TCPDirClientToServer {
		return 0
	}
	return 1
}

// Accept takes every packet; a direction whose first packet is not a SYN
// is started there (the capture began after the connection did).
func (c *conn) Accept(tcp *layers.TCP, ci gopacket.CaptureInfo, dir reassembly.TCPFlowDirection, nextSeq reassembly.Sequence, start *bool, ac reassembly.AssemblerContext) bool {
	d := dirIndex(dir)
	h := &c.half[d]
	if tcp.SYN || len(tcp.Payload) > 0 {
		c.opened = true
	}
	if !h.started {
		h.started = true
		if tcp.SYN {
			h.synced = true // seen from its start
			if c.client < 0 {
				c.client = d // the SYN's sender
				if tcp.ACK {
					c.client = 1 - d
				}
			}
		} else {
			*start = true
		}
	}
	return true
}

// ReassembledSG receives the next bytes of one direction, in order.
func (c *conn) ReassembledSG(sg reassembly.ScatterGather, ac reassembly.AssemblerContext) {
	dir, _, _, skip := sg.Info()
	d := dirIndex(dir)
	ts := c.last
	if ac != nil {
		ts = ac.GetCaptureInfo().Timestamp
	}
	c.last = ts
	if c.state == ignored {
		return
	}
	length, _ := sg.Lengths()
	if skip > 0 {
		c.gap(d, skip, ts)
	}
	if length > 0 {
		c.feed(d, sg.Fetch(length), ts)
	}
}

// ReassemblyComplete ends the connection once both directions closed.
func (c *conn) ReassemblyComplete(ac reassembly.AssemblerContext) bool {
	c.end()
	return true
}

func (c *conn) role(d int) string {
	switch {
	case c.client == d:
		return "client"
	case c.client == 1-d:
		return "broker"
	}
	return "peer " + c.addr[d]
}

// gap reports bytes of direction d that the capture lacks. A frame cut
// by it is dropped; the direction resynchronises at the next frame.
func (c *conn) gap(d, n int, ts time.Time) {
	h := &c.half[d]
	if h.discard >= int64(n) { // inside a frame being skipped anyway
		h.discard -= int64(n)
		h.pos += int64(n)
		return
	}
	cut := len(h.buf)
	wasSynced := h.synced
	h.pos += int64(cut + n)
	h.buf, h.synced, h.discard, h.sought = h.buf[:0], false, 0, 0
	h.frontier, h.waiting = 0, h.waiting[:0]
	c.saslTokens = false
	if c.state != isKafka {
		return
	}
	c.s.stats.Gaps++
	c.s.stats.GapBytes += int64(n)
	note := fmt.Sprintf("%d bytes from the %s missing from the capture", n, c.role(d))
	if cut > 0 && wasSynced {
		note += fmt.Sprintf("; the %d bytes of the frame they cut are dropped", cut)
	}
	c.record(&Record{Time: ts, Kind: Gap, Key: -1, Note: note + "; resynchronising at the next frame"}, d)
}

// feed takes the next bytes of direction d. Whole frames are read
// straight from data; only a trailing partial frame is copied.
func (c *conn) feed(d int, data []byte, ts time.Time) {
	h := &c.half[d]
	if h.discard > 0 {
		n := int(min(h.discard, int64(len(data))))
		h.discard -= int64(n)
		h.pos += int64(n)
		data = data[n:]
	}
	if len(h.buf) == 0 {
		n := c.consume(d, data, ts)
		h.pos += int64(n)
		if c.state != ignored && h.discard == 0 {
			h.buf = append(h.buf, data[n:]...)
		}
	} else {
		h.buf = append(h.buf, data...)
		n := c.consume(d, h.buf, ts)
		h.pos += int64(n)
		rest := copy(h.buf, h.buf[n:])
		h.buf = h.buf[:rest]
		if c.state == ignored || h.discard > 0 {
			h.buf = h.buf[:0]
		}
	}
	if cap(h.buf) > shrinkAbove && len(h.buf) < cap(h.buf)/4 {
		h.buf = append([]byte(nil), h.buf...)
	}
	if c.replay && c.client == d {
		c.replay = false
		c.feed(1-d, nil, ts)
	}
}

// consume reads what it can of b, the bytes of direction d from h.pos
// on, and returns how many it is done with.
func (c *conn) consume(d int, b []byte, ts time.Time) int {
	h := &c.half[d]
	done := 0
	for done < len(b) && c.state != ignored && h.discard == 0 {
		var n int
		var progress bool
		switch {
		case c.state == detecting:
			n, progress = c.detect(d, b[done:], ts)
		case !h.synced:
			n, progress = c.resync(d, b[done:], ts)
		case c.client == d:
			n, progress = c.nextFrame(d, b[done:], ts, c.request)
		default:
			n, progress = c.nextFrame(d, b[done:], ts, c.response)
		}
		done += n
		if !progress {
			break
		}
	}
	return done
}

// detect decides whether the connection is Kafka from direction d's
// first bytes: from a SYN, they must be a plausible request; otherwise
// the first frame boundary found makes it so.
func (c *conn) detect(d int, b []byte, ts time.Time) (int, bool) {
	h := &c.half[d]
	if c.client == 1-d && h.synced {
		// The broker's side speaks only after the client: wait for that.
		if len(h.buf)+len(b) > searchBudget {
			c.ignore(ts, "")
		}
		return 0, false
	}
	if h.synced && h.pos == 0 {
		_, v := plausibleRequest(c.s.opt.Registry, b, max(c.s.opt.MaxFrame, kwire.DefaultMaxFrameSize))
		switch v {
		case more:
			return 0, false
		case no:
			if isTLSClientHello(b) {
				c.ignore(ts, "TLS ClientHello")
			} else {
				c.ignore(ts, fmt.Sprintf("first bytes %x are not a Kafka request", b[:min(len(b), 8)]))
			}
			return 0, false
		}
		c.client = d
		c.found(ts, "")
		return 0, true
	}
	if h.pos == 0 && h.sought == 0 && isTLSRecord(b) {
		c.ignore(ts, "TLS record")
		return 0, false
	}
	n, ok := c.findBoundary(d, b, true)
	if !ok && c.client < 0 {
		// Either side may turn out to be the broker's: keep its last
		// bytes, to be read as responses once the client is known.
		n = min(n, max(len(b)-detectKeep, 0))
	}
	h.sought += int64(n)
	if !ok {
		if h.sought > searchBudget {
			c.ignore(ts, "")
		}
		return n, false
	}
	if c.client < 0 {
		o := &c.half[1-d]
		o.frontier, o.waiting, o.sought = 0, o.waiting[:0], 0
		c.replay = true
	}
	c.client = d
	skipped := h.pos + int64(n)
	h.synced, h.sought = true, 0
	c.found(ts, fmt.Sprintf("capture starts inside the connection; the client's first %d bytes skipped to a frame boundary", skipped))
	return n, true
}

// found makes the connection a Kafka one and says so.
func (c *conn) found(ts time.Time, note string) {
	c.state = isKafka
	c.s.conns++
	c.id = c.s.conns
	c.s.stats.Connections++
	c.tracker = c.s.opt.Registry.NewTracker(c.s.opt.MaxInFlight)
	c.pending = map[int32]pendingRequest{}
	msg := "from " + c.addr[c.client] + " to " + c.addr[1-c.client]
	if note != "" {
		msg += "; " + note
	}
	c.record(&Record{Time: ts, Kind: Open, Key: -1, Note: msg}, c.client)
}

// ignore gives up on the connection; why, when said, is reported.
func (c *conn) ignore(ts time.Time, why string) {
	c.state = ignored
	for d := range c.half {
		c.half[d].buf = nil
	}
	c.s.stats.NotKafka++
	tls := strings.HasPrefix(why, "TLS")
	if !tls && c.s.ports == nil {
		return // any TCP connection: not worth a line
	}
	if why == "" {
		why = "no Kafka request found"
	}
	c.s.conns++
	c.id = c.s.conns
	client := max(c.client, 0)
	if tls {
		c.s.stats.TLS++
		why = fmt.Sprintf("%s on %s → :%d: encrypted, not decodable", why, c.addr[client], c.port[1-client])
	} else {
		why = fmt.Sprintf("%s → %s: not Kafka: %s", c.addr[client], c.addr[1-client], why)
	}
	c.record(&Record{Time: ts, Kind: Skip, Key: -1, Note: why}, client)
}

// findBoundary finds the first offset in b (direction d's bytes from
// h.pos on) where a frame starts that decodes whole: a request in a
// client's stream, or else a response to a request in flight. It
// returns that offset, or, finding none yet, how many bytes can be
// dropped. A candidate frame not yet whole is remembered and checked
// again as bytes arrive, and bytes already ruled out are not scanned
// again; a whole candidate that decodes wins over an earlier one still
// incomplete.
func (c *conn) findBoundary(d int, b []byte, requests bool) (int, bool) {
	h := &c.half[d]
	base := h.pos
	if h.frontier < base {
		h.frontier = base
	}
	check := func(i int) verdict {
		size, v := c.candidate(b[i:], requests)
		if v != yes {
			return v
		}
		if len(b)-i < 4+size {
			return more
		}
		if c.decodes(b[i:i+4+size], requests) {
			return yes
		}
		return no
	}
	kept := h.waiting[:0]
	found := -1
	for _, w := range h.waiting {
		i := int(w - base)
		if i < 0 || found >= 0 {
			continue
		}
		switch check(i) {
		case yes:
			found = i
		case more:
			kept = append(kept, w)
		}
	}
	h.waiting = kept
	i := int(h.frontier - base)
	for ; found < 0 && i+4 <= len(b); i++ {
		size, v := c.candidate(b[i:], requests)
		if v == no {
			continue
		}
		if v == more || len(b)-i < 4+size {
			if len(h.waiting) == maxWaiting {
				break // scanned again when bytes arrive
			}
			h.waiting = append(h.waiting, base+int64(i))
			continue
		}
		if c.decodes(b[i:i+4+size], requests) {
			found = i
		}
	}
	if found >= 0 {
		h.waiting, h.frontier = h.waiting[:0], 0
		return found, true
	}
	h.frontier = base + int64(i)
	drop := i
	if len(h.waiting) > 0 {
		drop = min(drop, int(h.waiting[0]-base))
	}
	if !requests {
		// A response may come before the request it answers is read
		// (the client's bytes wait behind a hole of their own): keep
		// the last bytes, scanned again as requests arrive.
		drop = min(drop, max(len(b)-resyncKeep, 0))
	}
	return drop, false
}

// maxWaiting bounds the incomplete candidates a resynchronising
// direction remembers.
const maxWaiting = 64

// candidate says whether b starts like a frame a resynchronising
// direction may take: a plausible request no larger than resyncWait, or
// a response of sane size to a request in flight.
func (c *conn) candidate(b []byte, requests bool) (int, verdict) {
	if requests {
		size, v := plausibleRequest(c.s.opt.Registry, b, c.s.opt.MaxFrame)
		if v == yes && size > resyncWait {
			return 0, no
		}
		return size, v
	}
	if len(b) < 8 {
		return 0, more
	}
	size := wire.Int32(b)
	if size < 4 || int64(size) > int64(c.s.opt.MaxFrame) {
		return 0, no
	}
	if _, ok := c.pending[wire.Int32(b[4:])]; !ok {
		return 0, no
	}
	return int(size), yes
}

// decodes says whether a whole candidate frame decodes.
func (c *conn) decodes(frame []byte, requests bool) bool {
	if requests {
		_, _, err := c.s.opt.Registry.ReadRequest(frame)
		return err == nil
	}
	p := c.pending[wire.Int32(frame[4:])]
	_, _, err := c.s.opt.Registry.ReadResponse(frame, p.key, responseVersion(p.key, p.version, frame))
	return err == nil
}

// resync finds the next frame boundary in a direction that lost it.
func (c *conn) resync(d int, b []byte, ts time.Time) (int, bool) {
	h := &c.half[d]
	var n int
	var ok bool
	n, ok = c.findBoundary(d, b, c.client == d)
	h.sought += int64(n)
	if !ok {
		return n, false
	}
	if h.sought > 0 {
		c.s.stats.SkippedBytes += h.sought
		c.record(&Record{Time: ts, Kind: Gap, Key: -1,
			Note: fmt.Sprintf("resynchronised: %d bytes from the %s skipped to the next frame boundary", h.sought, c.role(d))}, d)
	}
	h.synced, h.sought = true, 0
	return n, true
}

// nextFrame reads one frame of a synchronised direction and hands it to
// read; it returns the bytes used and whether to go on.
func (c *conn) nextFrame(d int, b []byte, ts time.Time, read func(d int, frame []byte, whole bool, ts time.Time)) (int, bool) {
	h := &c.half[d]
	if len(b) < 4 {
		return 0, false
	}
	size := int64(wire.Int32(b))
	if c.saslTokens && c.client == d {
		if _, v := plausibleRequest(c.s.opt.Registry, b, c.s.opt.MaxFrame); v == more {
			return 0, false
		} else if v == yes {
			c.saslTokens = false // authenticated: Kafka requests again
		}
	}
	if c.saslTokens {
		if size < 0 || size > int64(c.s.opt.MaxFrame) {
			c.lostSync(d, ts, fmt.Sprintf("size prefix %d where a SASL token was due", size))
			return 0, true
		}
		if int64(len(b)) < 4+size {
			return 0, false
		}
		c.s.stats.Tokens++
		kind := Response
		if c.client == d {
			kind = Request
			c.notePrincipal(b[4 : 4+size])
		}
		c.record(&Record{Time: ts, Kind: kind, Key: -1, Size: int(4 + size),
			Note: fmt.Sprintf("raw SASL token (after SaslHandshake v0), %d bytes, not shown", size)}, d)
		return int(4 + size), true
	}
	minSize := int64(4) // a response's correlation id
	if c.client == d {
		minSize = requestHeaderFixed
	}
	if size < minSize {
		c.lostSync(d, ts, fmt.Sprintf("size prefix %d, too small for a header", size))
		return 0, true
	}
	if size > int64(c.s.opt.MaxFrame) {
		if c.client == d {
			if _, v := plausibleRequest(c.s.opt.Registry, b, int(size)); v == more {
				return 0, false
			} else if v == no {
				c.lostSync(d, ts, fmt.Sprintf("size prefix %d over the frame limit and no request header", size))
				return 0, true
			}
		}
		n := min(4+size, oversizeHead)
		if int64(len(b)) < n {
			return 0, false
		}
		read(d, b[:n], false, ts)
		h.discard = 4 + size - n
		return int(n), true
	}
	if int64(len(b)) < 4+size {
		return 0, false
	}
	read(d, b[:4+size], true, ts)
	return int(4 + size), true
}

// lostSync reports bytes that are not a frame where one was due, and
// makes the direction look for the next frame boundary.
func (c *conn) lostSync(d int, ts time.Time, why string) {
	h := &c.half[d]
	h.synced, h.sought = false, 0 // the bytes here are no frame: resync skips at least one
	h.frontier, h.waiting = 0, h.waiting[:0]
	c.s.stats.Undecodable++
	c.record(&Record{Time: ts, Kind: Gap, Key: -1, Err: errors.New(why),
		Note: "not a frame boundary; resynchronising at the next one"}, d)
}

// request reads one request frame (or the head of one over MaxFrame).
func (c *conn) request(d int, frame []byte, whole bool, ts time.Time) {
	r := Record{Time: ts, Kind: Request, Key: -1, Size: frameSize(frame)}
	key, version, corr, err := kwire.PeekRequest(frame)
	if err != nil {
		r.Err = err
		c.s.stats.Undecodable++
		c.record(&r, d)
		return
	}
	r.Key, r.Version, r.CorrelationID = key, version, corr
	if whole {
		var h kwire.RequestHeader
		h, r.Msg, r.Err = c.s.opt.Registry.ReadRequestWith(kafkaLimits, frame)
		if errors.Is(r.Err, kwire.ErrKafkaLimit) {
			r.Note = join(r.Note, pastKafkaLimits(r.Err))
			h, r.Msg, r.Err = c.s.opt.Registry.ReadRequest(frame)
		}
		r.ClientID = c.noteClient(&h)
		r.ClientInstanceID = c.instance
	} else {
		r.Err = fmt.Errorf("frame of %d bytes, over the limit of %d: not decoded", r.Size-4, c.s.opt.MaxFrame)
		if h, _, err := c.s.opt.Registry.ReadRequest(frame); err != nil {
			r.ClientID = h.ClientID
		}
	}
	if r.Err != nil {
		c.s.stats.Undecodable++
	}
	switch m := r.Msg.(type) {
	case *messages.SaslHandshakeRequest:
		c.mechanism = strings.Clone(m.Mechanism)
	case *messages.SaslAuthenticateRequest:
		c.notePrincipal(m.AuthBytes)
	}
	expect, err := c.tracker.Request(frame)
	switch {
	case err != nil:
		r.Note = "not paired: " + err.Error()
	case expect:
		p := pendingRequest{at: ts, key: key, version: version}
		if r.ClientID != nil {
			id := strings.Clone(*r.ClientID)
			p.clientID = &id
		}
		if _, dup := c.pending[corr]; dup {
			if c.reused == nil {
				c.reused = map[int32][]pendingRequest{}
			}
			c.reused[corr] = append(c.reused[corr], p)
			r.Note = join(r.Note, fmt.Sprintf("correlation id %d reused: a request with it is still in flight", corr))
		} else {
			c.pending[corr] = p
		}
		if o := &c.half[1-d]; !o.synced && len(o.buf) > 0 {
			o.frontier, o.waiting = 0, o.waiting[:0] // a new candidate: scan again
			c.replay = true
		}
	default:
		r.Note = "no response expected (acks=0)"
	}
	c.record(&r, d)
	if expect && len(c.held) > 0 {
		c.pairHeld(corr)
	}
}

// hold keeps a response to no request seen yet; the oldest goes out
// unpaired when too many wait.
func (c *conn) hold(d int, frame []byte, ts time.Time) {
	c.held = append(c.held, heldResponse{frame: append([]byte(nil), frame...), at: ts, dir: d})
	c.heldBytes += len(frame)
	for len(c.held) > maxHeld || c.heldBytes > maxHeldBytes {
		c.releaseHeld(0)
	}
}

// pairHeld answers the request just read from the held responses.
func (c *conn) pairHeld(corr int32) {
	for i, h := range c.held {
		if wire.Int32(h.frame[4:]) == corr {
			c.held = append(c.held[:i], c.held[i+1:]...)
			c.heldBytes -= len(h.frame)
			c.response(h.dir, h.frame, true, h.at)
			return
		}
	}
}

// releaseHeld reports held response i as answering no request.
func (c *conn) releaseHeld(i int) {
	h := c.held[i]
	c.held = append(c.held[:i], c.held[i+1:]...)
	c.heldBytes -= len(h.frame)
	corr := wire.Int32(h.frame[4:])
	c.s.stats.Unpaired++
	c.record(&Record{Time: h.at, Kind: Response, Key: -1, CorrelationID: corr, Size: len(h.frame),
		Err: fmt.Errorf("correlation id %d: no request in the capture", corr)}, h.dir)
}

// response reads one response frame (or the head of one over MaxFrame)
// at the version of the request it answers.
func (c *conn) response(d int, frame []byte, whole bool, ts time.Time) {
	r := Record{Time: ts, Kind: Response, Key: -1, Size: frameSize(frame)}
	corr, err := kwire.PeekResponse(frame)
	if err != nil {
		r.Err = err
		c.s.stats.Undecodable++
		c.record(&r, d)
		return
	}
	r.CorrelationID = corr
	req, err := c.tracker.Response(frame)
	if errors.Is(err, kwire.ErrUnknownCorrelation) && whole && len(frame) <= maxHeldBytes/4 {
		c.hold(d, frame, ts)
		return
	}
	if err != nil && !errors.Is(err, kwire.ErrOutOfOrder) {
		r.Err = err
		c.s.stats.Unpaired++
		c.record(&r, d)
		return
	}
	if err != nil {
		r.Note = err.Error()
	}
	p := c.pending[corr]
	if next := c.reused[corr]; len(next) > 0 {
		c.pending[corr] = next[0]
		if c.reused[corr] = next[1:]; len(next) == 1 {
			delete(c.reused, corr)
		}
	} else {
		delete(c.pending, corr)
	}
	r.Key, r.Version, r.ClientID, r.ClientInstanceID = req.APIKey, req.APIVersion, p.clientID, c.instance
	if ts.After(p.at) || ts.Equal(p.at) {
		r.Latency = ts.Sub(p.at)
	} else {
		r.Time, r.Latency = p.at, -1
		r.Note = join(r.Note, "the capture holds its request after it (a segment came late)")
	}
	c.s.stats.Paired++
	r.Version = responseVersion(req.APIKey, req.APIVersion, frame)
	if r.Version != req.APIVersion {
		r.Note = join(r.Note, fmt.Sprintf("the broker's v0 answer to ApiVersions v%d, which it does not read", req.APIVersion))
	}
	if !whole {
		r.Err = fmt.Errorf("frame of %d bytes, over the limit of %d: not decoded", r.Size-4, c.s.opt.MaxFrame)
	} else {
		_, r.Msg, r.Err = c.s.opt.Registry.ReadResponseWith(kafkaLimits, frame, r.Key, r.Version)
		if errors.Is(r.Err, kwire.ErrKafkaLimit) {
			r.Note = join(r.Note, pastKafkaLimits(r.Err))
			_, r.Msg, r.Err = c.s.opt.Registry.ReadResponse(frame, r.Key, r.Version)
		}
	}
	if r.Err != nil {
		c.s.stats.Undecodable++
	}
	if hs, ok := r.Msg.(*messages.SaslHandshakeResponse); ok && r.Version == 0 && hs.ErrorCode == 0 {
		c.saslTokens = true
	}
	c.record(&r, d)
}

// responseVersion is the version a response frame is written at: the
// request's, except Kafka's v0 answer to an ApiVersions it cannot read.
func responseVersion(key, version int16, frame []byte) int16 {
	if key == apiKeyAPIVersions && version > 0 && kwire.IsUnsupportedAPIVersions(frame) {
		return 0
	}
	return version
}

// frameSize is the whole frame's size by its prefix.
func frameSize(frame []byte) int {
	if len(frame) < 4 {
		return len(frame)
	}
	return 4 + int(wire.Int32(frame))
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// end closes the connection: what it left unfinished is reported.
func (c *conn) end() {
	if c.done {
		return
	}
	c.done = true
	delete(c.s.live, c)
	if c.state == detecting {
		if c.opened {
			c.s.stats.NotKafka++
		}
		return
	}
	if c.state != isKafka {
		return
	}
	for len(c.held) > 0 {
		c.releaseHeld(0)
	}
	var notes []string
	for d := range c.half {
		h := &c.half[d]
		switch {
		case h.discard > 0:
			c.s.stats.CutFrames++
			notes = append(notes, fmt.Sprintf("the %s's stream ended %d bytes short of a frame's end", c.role(d), h.discard))
		case len(h.buf) > 0 && h.synced:
			c.s.stats.CutFrames++
			notes = append(notes, fmt.Sprintf("the %s's stream ended inside a frame: %d bytes of it", c.role(d), len(h.buf)))
		case len(h.buf) > 0 || h.sought > 0:
			c.s.stats.SkippedBytes += int64(len(h.buf)) + h.sought
			notes = append(notes, fmt.Sprintf("the %s's last %d bytes were not at a frame boundary", c.role(d), int64(len(h.buf))+h.sought))
		}
	}
	n := len(c.pending)
	for _, r := range c.reused {
		n += len(r)
	}
	if n > 0 {
		c.s.stats.Unanswered += int64(n)
		notes = append(notes, fmt.Sprintf("%d requests unanswered", n))
	}
	if len(notes) > 0 {
		c.record(&Record{Time: c.last, Kind: Close, Key: -1, Note: strings.Join(notes, "; ")}, max(c.client, 0))
	}
	c.half[0].buf, c.half[1].buf = nil, nil
}

// notePrincipal remembers the user a SASL client message names.
func (c *conn) notePrincipal(auth []byte) {
	if p := trafficlog.SASLPrincipal(c.mechanism, auth); p != "" {
		c.principal = p
	}
}

// record fills in the connection's part of r and hands it on.
func (c *conn) record(r *Record, d int) {
	r.Conn, r.Principal = c.id, c.principal
	client := c.client
	if client < 0 {
		client = d
	}
	r.Client, r.Server = c.addr[client], c.addr[1-client]
	c.s.record(r)
}

// kafkaLimits decodes as Kafka's reader would, to name the frames a
// broker or a Java client refuses; such a frame is then decoded without
// the limits, so its content shows all the same.
var kafkaLimits = kwire.Decoder{KafkaLimits: true}

// pastKafkaLimits is the note on a frame that breaks Kafka's reader
// limits.
func pastKafkaLimits(err error) string {
	detail := err.Error()
	var e *kwire.Error
	if errors.As(err, &e) {
		detail = e.Detail
		if e.Path != "" {
			detail = e.Path + ": " + detail
		}
	}
	return "past Kafka's reader limits: Kafka refuses this frame (" + detail + ")"
}

// noteClient keeps the connection's first client id and ClientInstanceId
// and returns the client id a request of header h stands for: its own,
// else the connection's.
func (c *conn) noteClient(h *kwire.RequestHeader) *string {
	if c.clientID == nil && h.ClientID != nil {
		id := strings.Clone(*h.ClientID)
		c.clientID = &id
	}
	if c.instance == (kwire.UUID{}) {
		c.instance = h.ClientInstanceID
	}
	if h.ClientID != nil || h.Version < 1 { // header v0 has no client id to leave out
		return h.ClientID
	}
	return c.clientID
}
