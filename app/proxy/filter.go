package proxy

import (
	"crypto/tls"
	"fmt"
	"net"
	"reflect"
	"sync"
	"time"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/kerr"
	"github.com/kwirelabs/kwire/messages"
)

// Filter sees every request and response of every connection that kwire
// decodes, in the order of Config.Filters for requests and in reverse
// order for responses. It is called from the connection's goroutines:
// one for requests and one for responses, so a Filter shared by
// connections must be safe for concurrent use.
type Filter interface {
	Request(c *Conn, r *Request) Action
	Response(c *Conn, r *Response) Action
}

// Request is a decoded request on its way upstream.
type Request struct {
	Header kwire.RequestHeader // API key and version, correlation and client ids
	Body   any                 // the typed message: *messages.ProduceRequest, say

	changed    bool
	onResponse []func(*Conn, *Response)
	registry   *messages.Registry // the proxy's (Config.Registry): AnswerError builds its response from it
}

// Changed says the body was modified: the proxy re-encodes it with kwire
// rather than relaying the client's bytes.
func (r *Request) Changed() { r.changed = true }

// OnResponse runs fn on this request's response from upstream, before
// the response filters: a filter that removed part of a request (a
// denied topic, say) puts its answer for that part back here.
func (r *Request) OnResponse(fn func(*Conn, *Response)) { r.onResponse = append(r.onResponse, fn) }

// Response is a decoded response on its way to the client.
type Response struct {
	Header  kwire.ResponseHeader
	APIKey  int16
	Version int16
	Body    any           // the typed message: *messages.ProduceResponse, say
	Latency time.Duration // since the request was read from the client

	changed bool
}

// Changed says the body was modified: the proxy re-encodes it.
func (r *Response) Changed() { r.changed = true }

// Action is what a filter decided; the zero Action passes.
type Action struct {
	answer any    // a response body: the proxy answers the request itself
	close  string // why the connection is closed
}

// Pass relays the message (re-encoded if it was changed).
var Pass = Action{}

// Answer answers a request with resp, a response body of the request's
// API, encoded at the request's version; nothing goes upstream. The
// answer reaches the client in order, after the responses to the
// requests before it. A response filter may not answer.
func Answer(resp any) Action { return Action{answer: resp} }

// AnswerError answers a request with its API's response carrying code in
// every top-level error field (ErrorCode and the like), as a broker does
// for an error that concerns the whole request. Responses that report
// errors per topic or partition need them filled in: see the filters
// package for Produce, Fetch and Metadata.
func AnswerError(r *Request, code kerr.Code) Action {
	reg := r.registry
	if reg == nil { // a Request a filter's test built by hand
		reg = messages.Default
	}
	resp, err := errorResponse(reg, r.Header.APIKey, r.Header.APIVersion, code)
	if err != nil {
		return CloseConn(err.Error())
	}
	return Answer(resp)
}

// NewResponse is a new, empty response of the request's API at its
// version, from the proxy's registry (Config.Registry): a filter's
// answer to fill in.
func (r *Request) NewResponse() (any, error) {
	reg := r.registry
	if reg == nil {
		reg = messages.Default
	}
	return reg.ResponseFor(r.Header.APIKey, r.Header.APIVersion)
}

// CloseConn closes the connection, logging reason.
func CloseConn(reason string) Action { return Action{close: reason} }

// ErrorResponse is a new response of the API (of messages.Default) at
// version with code in each top-level int16 field whose name ends in
// ErrorCode.
func ErrorResponse(apiKey, version int16, code kerr.Code) (any, error) {
	return errorResponse(messages.Default, apiKey, version, code)
}

func errorResponse(reg *messages.Registry, apiKey, version int16, code kerr.Code) (any, error) {
	resp, err := reg.ResponseFor(apiKey, version)
	if err != nil {
		return nil, err
	}
	v := reflect.ValueOf(resp).Elem()
	set := false
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if f.IsExported() && f.Type.Kind() == reflect.Int16 && len(f.Name) >= 9 && f.Name[len(f.Name)-9:] == "ErrorCode" {
			v.Field(i).SetInt(int64(code))
			set = true
		}
	}
	if !set {
		return nil, fmt.Errorf("%s has no top-level error code to answer %s with", v.Type().Name(), code.Name())
	}
	return resp, nil
}

// Conn is what filters know of a client connection.
type Conn struct {
	ID         int      // counted from 1 in the order accepted
	ClientAddr net.Addr // the client's address
	LocalAddr  net.Addr // the proxy's listener the client reached
	Upstream   string   // the broker this connection relays to, HOST:PORT

	// TLS is the client connection's TLS state; nil on plaintext.
	TLS *tls.ConnectionState

	mu        sync.Mutex
	mechanism string
	principal string
	verified  bool
	values    map[any]any
	clientID  *string
	instance  kwire.UUID
}

// ClientID is the first client id the connection's requests carried
// (a KIP-1313 client sends it on its first request only), nil before one.
func (c *Conn) ClientID() *string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.clientID
}

// ClientInstanceID is the ClientInstanceId the connection sent (request
// header v3, KIP-1313), zero before one.
func (c *Conn) ClientInstanceID() kwire.UUID {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.instance
}

// keepClientID keeps id as the connection's client id if it has none
// yet; id is the frame's, so it is copied.
func (c *Conn) keepClientID(id []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.clientID == nil {
		s := string(id)
		c.clientID = &s
	}
}

// noteClient keeps the first client id and ClientInstanceId of the
// connection and returns the ids a request of header h stands for: its
// own client id, else the connection's, and the connection's instance id.
func (c *Conn) noteClient(h *kwire.RequestHeader) (*string, kwire.UUID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.clientID == nil && h.ClientID != nil {
		id := *h.ClientID
		c.clientID = &id
	}
	if c.instance == (kwire.UUID{}) {
		c.instance = h.ClientInstanceID
	}
	if h.ClientID != nil || h.Version < 1 { // header v0 has no client id to leave out
		return h.ClientID, c.instance
	}
	return c.clientID, c.instance
}

// Principal is who the client is: the user its SASL login named, else
// the subject of its verified TLS certificate, else "".
func (c *Conn) Principal() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.principal
}

// PrincipalVerified says whether Principal was vouched for: the subject
// of a TLS client certificate the proxy verified, or the user of a SASL
// login the broker accepted. Otherwise a SASL principal is only what the
// client claimed (for OAUTHBEARER, the sub of a token nobody has checked
// yet); the proxy holds no credentials and cannot check it itself.
func (c *Conn) PrincipalVerified() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.verified && c.principal != ""
}

// SASLMechanism is the mechanism the client chose in SaslHandshake.
func (c *Conn) SASLMechanism() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.mechanism
}

// Value returns what a filter stored for this connection under key.
func (c *Conn) Value(key any) any {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.values[key]
}

// SetValue stores per-connection state for filters.
func (c *Conn) SetValue(key, value any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.values == nil {
		c.values = map[any]any{}
	}
	c.values[key] = value
}

// setPrincipal records a principal, verified or only claimed.
func (c *Conn) setPrincipal(p string, verified bool) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p != "" {
		c.principal, c.verified = p, verified
	}
	return c.principal
}

// loginAccepted marks the claimed SASL principal as the broker's.
func (c *Conn) loginAccepted() {
	c.mu.Lock()
	c.verified = true
	c.mu.Unlock()
}

func (c *Conn) setMechanism(m string) {
	c.mu.Lock()
	c.mechanism = m
	c.mu.Unlock()
}
