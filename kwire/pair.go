package kwire

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

// SentRequest is a request waiting for its response: what a response frame
// cannot say about itself (its API and version), when it was sent, and
// what the caller kept with it (RequestWith).
type SentRequest struct {
	APIKey, APIVersion int16
	CorrelationID      int32
	Sent               time.Time
	Data               any
	// ClientID and ClientInstanceID are the connection's, when the
	// tracker knows the request header versions (SetRequestHeaders): the
	// request's own client id, or when it has none the first one the
	// connection sent (a KIP-1313 client sends it on its first request
	// only), and the ClientInstanceId of header v3 likewise.
	ClientID         *string
	ClientInstanceID UUID
}

// Tracker pairs responses with the requests of one connection, which is
// what reading a response needs: its frame names only a correlation id.
// Kafka answers a connection's requests in order and never answers an
// acks=0 Produce; the tracker knows both, reports a response out of
// order or to no request with a typed error, and holds at most a fixed
// number of requests, so a peer that never answers cannot grow it. It is
// safe for one goroutine writing requests and another reading responses.
type Tracker struct {
	limit       int
	newResponse func(apiKey, version int16) (any, error)

	// requestHeader, when set, is the request header version of an API
	// at a version: the tracker then reads the client ids.
	requestHeader func(apiKey, version int16) (int16, bool)

	mu       sync.Mutex
	pending  []SentRequest // in the order sent
	clientID *string       // the first the connection sent
	instance UUID          // likewise
}

// SetRequestHeaders has the tracker read each request's header past the
// correlation id, by the header version requestHeader gives (false: an
// API it does not know, whose header it leaves unread), to keep the
// connection's client id and ClientInstanceId (header v3, KIP-1313).
// messages.Registry.NewTracker sets it from the registry's header tables.
func (t *Tracker) SetRequestHeaders(requestHeader func(apiKey, version int16) (int16, bool)) {
	t.requestHeader = requestHeader
}

// NewTracker holds up to limit requests in flight. newResponse returns a
// pointer to the response struct of an API at a version (as
// messages.NewResponse does); an unknown key should be ErrUnknownAPI.
func NewTracker(limit int, newResponse func(apiKey, version int16) (any, error)) *Tracker {
	return &Tracker{limit: max(limit, 1), newResponse: newResponse}
}

// Request records a request frame (size prefix included) before it is
// sent, and reports whether a response will come: not for an acks=0
// Produce. With the tracker full it records nothing and returns
// ErrTooManyInFlight.
func (t *Tracker) Request(frame []byte) (expectResponse bool, err error) {
	return t.RequestWith(frame, nil)
}

// RequestWith is Request keeping data with the request, for Response to
// hand back beside it: what a proxy or client wants at the answer (the
// decoded request, its deadline, a span) without a map of its own.
func (t *Tracker) RequestWith(frame []byte, data any) (expectResponse bool, err error) {
	key, version, corr, err := PeekRequest(frame)
	if err != nil {
		return false, err
	}
	if key == apiKeyProduce {
		acks, err := produceAcks(frame, version)
		if err != nil {
			return false, err
		}
		if acks == 0 {
			return false, nil
		}
	}
	var h RequestHeader
	if t.requestHeader != nil {
		if hv, ok := t.requestHeader(key, version); ok && hv >= 1 {
			h.Version = hv
			d := decodeState{src: frame[4:], off: 8} // past the head PeekRequest read
			if err := d.readRequestHeaderRest(&h); err != nil {
				return false, headerError("RequestHeader", err)
			}
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.pending) >= t.limit {
		return false, &Error{Op: "frame", Type: "RequestHeader", Offset: -1, Err: ErrTooManyInFlight,
			Detail: fmt.Sprintf("%d in flight; correlation id %d not recorded", len(t.pending), corr)}
	}
	if t.clientID == nil {
		t.clientID = h.ClientID
	}
	if t.instance == (UUID{}) {
		t.instance = h.ClientInstanceID
	}
	cid := h.ClientID
	if cid == nil && h.Version >= 1 { // header v0 has no client id to leave out
		cid = t.clientID
	}
	t.pending = append(t.pending, SentRequest{APIKey: key, APIVersion: version, CorrelationID: corr, Sent: time.Now(), Data: data,
		ClientID: cid, ClientInstanceID: t.instance})
	return true, nil
}

// Response finds and forgets the request a response frame (or its first
// 8 bytes) answers. A response to an older request than the oldest in
// flight is still returned, with ErrOutOfOrder; the requests sent before
// it stay in flight.
func (t *Tracker) Response(frame []byte) (SentRequest, error) {
	corr, err := PeekResponse(frame)
	if err != nil {
		return SentRequest{}, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for i, p := range t.pending {
		if p.CorrelationID != corr {
			continue
		}
		t.pending = append(t.pending[:i], t.pending[i+1:]...)
		if i > 0 {
			return p, &Error{Op: "frame", Type: "ResponseHeader", Offset: 4, Err: ErrOutOfOrder,
				Detail: fmt.Sprintf("correlation id %d answered before %d older requests", corr, i)}
		}
		return p, nil
	}
	return SentRequest{}, &Error{Op: "frame", Type: "ResponseHeader", Offset: 4, Err: ErrUnknownCorrelation,
		Detail: fmt.Sprintf("correlation id %d", corr)}
}

// ReadResponse pairs a whole response frame with its request and decodes
// it. When the response is out of order it is decoded all the same and
// the error wraps ErrOutOfOrder (and the decode error, if any).
func (t *Tracker) ReadResponse(frame []byte) (SentRequest, ResponseHeader, any, error) {
	req, pairErr := t.Response(frame)
	if pairErr != nil && !errors.Is(pairErr, ErrOutOfOrder) {
		return req, ResponseHeader{}, nil, pairErr
	}
	msg, err := t.newResponse(req.APIKey, req.APIVersion)
	if err != nil {
		return req, ResponseHeader{}, nil, errors.Join(pairErr, err)
	}
	h, err := ReadResponse(frame, msg, req.APIVersion)
	if err != nil {
		return req, h, nil, errors.Join(pairErr, err)
	}
	return req, h, msg, pairErr
}

// InFlight is the number of requests waiting for a response.
func (t *Tracker) InFlight() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.pending)
}
