package trafficlog

import (
	"reflect"
	"strconv"
	"time"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/kerr"
	"github.com/kwirelabs/kwire/messages"
)

// Dir says what an Event is about.
type Dir string

const (
	Request  Dir = "request"  // Key -1: a frame that is no Kafka request (a raw SASL token)
	Response Dir = "response" // Key -1: not paired with a request, or a raw SASL token
	Open     Dir = "open"     // a connection began; Note says from where to where
	Close    Dir = "close"    // a connection ended badly; Note says why
	Auth     Dir = "auth"     // a SASL login named its principal
)

// Event is one line of a traffic log.
type Event struct {
	Time time.Time
	Conn int // the connection's number, counted by the writer of the log
	Dir  Dir

	// Key is the API key, -1 when unknown (a response that could not be
	// paired, say).
	Key int16
	// API is the API's name when the writer of the log knows it from a
	// registry of its own; empty, the log uses APIName(Key).
	API           string
	Version       int16
	CorrelationID int32
	// ClientID is the request's client id or, when it has none, the
	// first one its connection sent (a KIP-1313 client sends it once).
	ClientID *string
	// ClientInstanceID is the connection's ClientInstanceId (request
	// header v3, KIP-1313); zero when it sent none.
	ClientInstanceID kwire.UUID
	Latency          time.Duration // responses: since the request was read

	ClientAddr string // the client's address, when the writer knows it
	Principal  string // who the connection authenticated as, when known

	Msg  any    // the decoded body; nil when it did not decode
	Err  error  // why it did not decode (or pair)
	Note string // what the writer of the log did besides relaying

	// Summary, when not empty, is Msg's summary and ErrorCodes its
	// non-zero error codes as pretty.SummaryAndErrors gave them, from a
	// writer that walked Msg already (sniff, which counts the codes): the
	// line of a message without secrets takes them from here instead of
	// walking Msg again.
	Summary    string
	ErrorCodes []kerr.FieldCode
}

// aboutAPI says whether the event concerns a Kafka message rather than
// the connection.
func (e *Event) aboutAPI() bool {
	return (e.Dir == Request || e.Dir == Response) && (e.Key >= 0 || e.Err != nil)
}

// APIName is the name of an API key: Kafka's, one registered with
// messages.Register, or "key" and the number.
func APIName(key int16) string {
	if key < 0 {
		return "?"
	}
	if a, ok := messages.Lookup(key); ok {
		return a.Name
	}
	return "key" + strconv.Itoa(int(key))
}

// apiName is the name the log gives e's API.
func (e *Event) apiName() string {
	if e.API != "" {
		return e.API
	}
	return APIName(e.Key)
}

// summary is the one-line summary of e's message. A message of a type
// without a name (a struct built at run time from schemas) is named after
// its API and direction.
func (e *Event) summary(d Description) string {
	t := reflect.TypeOf(e.Msg)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	name := e.API
	if a, ok := messages.Lookup(e.Key); ok && name == "" {
		name = a.Name
	}
	if t == nil || t.Name() != "" || name == "" {
		return d.Summary
	}
	side := "Request"
	if e.Dir == Response {
		side = "Response"
	}
	return name + side + " " + d.Summary
}
