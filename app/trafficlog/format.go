package trafficlog

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/pretty"
)

// AppendText appends e as one line: time, connection, direction, API and
// version, correlation id, client id, principal, latency, then the
// summary (which ends in the non-zero error codes by name), what was
// redacted, and the note:
//
//	21:04:05.123456 #3 response Metadata v12 corr=7 client="rdkafka" 0.412ms | MetadataResponse v12 Brokers=3 Topics=1
//	21:04:05.123901 #4 request  SaslAuthenticate v2 corr=3 client="kgo" user="alice" | SaslAuthenticateRequest v2 | redacted: AuthBytes
//	21:04:04.998000 #4 open     | from 10.1.2.3:50122 to broker-1:9092
func AppendText(b []byte, e Event) []byte {
	b = e.Time.UTC().AppendFormat(b, "15:04:05.000000")
	b = fmt.Appendf(b, " #%d %-8s", e.Conn, e.Dir)
	if e.aboutAPI() {
		b = fmt.Appendf(b, " %s v%d corr=%d", e.apiName(), e.Version, e.CorrelationID)
		if e.ClientID != nil {
			b = fmt.Appendf(b, " client=%q", *e.ClientID)
		}
		if e.ClientInstanceID != (kwire.UUID{}) {
			b = fmt.Appendf(b, " instance=%s", e.ClientInstanceID)
		}
	}
	if e.Principal != "" {
		b = fmt.Appendf(b, " user=%q", e.Principal)
	}
	if e.aboutAPI() && e.Dir == Response && e.Latency > 0 {
		b = fmt.Appendf(b, " %.3fms", float64(e.Latency)/float64(time.Millisecond))
	}
	if e.Msg != nil {
		_, d := describe(e.Msg, e.Version, false, e.Summary, e.ErrorCodes)
		b = append(b, " | "...)
		b = append(b, e.summary(d)...)
		if len(d.Redacted) > 0 {
			b = append(b, " | redacted: "...)
			b = append(b, strings.Join(d.Redacted, ", ")...)
		}
	}
	if e.Err != nil {
		b = append(b, " | UNDECODABLE: "...)
		b = append(b, e.Err.Error()...)
	}
	if e.Note != "" {
		b = append(b, " | "...)
		b = append(b, e.Note...)
	}
	return append(b, '\n')
}

// jsonLine is the JSON form of an Event; its keys are the log's public
// format. Time and conn are left out only for a message read outside a
// connection (AppendMessageJSON).
type jsonLine struct {
	Time          string          `json:"time,omitempty"`
	Conn          *int            `json:"conn,omitempty"`
	Dir           Dir             `json:"dir"`
	API           string          `json:"api,omitempty"`
	Key           *int16          `json:"key,omitempty"`
	Version       *int16          `json:"version,omitempty"`
	CorrelationID *int32          `json:"correlation_id,omitempty"`
	ClientID      *string         `json:"client_id,omitempty"`
	ClientInstID  string          `json:"client_instance_id,omitempty"`
	ClientAddr    string          `json:"client_addr,omitempty"`
	Principal     string          `json:"principal,omitempty"`
	LatencyMs     *float64        `json:"latency_ms,omitempty"`
	Summary       string          `json:"summary,omitempty"`
	Errors        []string        `json:"errors,omitempty"`
	Redacted      []string        `json:"redacted,omitempty"`
	Undecodable   string          `json:"undecodable,omitempty"`
	Note          string          `json:"note,omitempty"`
	Body          json.RawMessage `json:"body,omitempty"`
}

// AppendJSON appends e as one JSON object and a newline. Keys: time
// (RFC 3339, UTC), conn, dir, and when known api, key, version,
// correlation_id, client_id, client_addr, principal, latency_ms
// (responses), summary, errors (every non-zero error code with its
// path), redacted (paths of the fields left out), undecodable (why the
// frame did not decode), note and body (the message, as pretty.JSON
// writes it, shaped by opts: pretty.WithRawRecords, say).
func AppendJSON(b []byte, e Event, opts ...pretty.Option) []byte {
	var d Description
	var msg any
	if e.Msg != nil {
		msg, d = describe(e.Msg, e.Version, true, e.Summary, e.ErrorCodes)
	}
	l := e.jsonLine(d)
	l.Time, l.Conn, l.ClientAddr, l.Principal, l.Note = e.Time.UTC().Format(time.RFC3339Nano), &e.Conn, e.ClientAddr, e.Principal, e.Note
	if e.Dir == Response && e.Latency > 0 {
		ms := float64(e.Latency) / float64(time.Millisecond)
		l.LatencyMs = &ms
	}
	if e.Err != nil {
		l.Undecodable = e.Err.Error()
	}
	j, err := json.Marshal(l)
	if err != nil {
		j, _ = json.Marshal(jsonLine{Time: l.Time, Conn: &e.Conn, Dir: e.Dir, Undecodable: "log: " + err.Error()})
		return append(append(b, j...), '\n')
	}
	if e.Msg == nil {
		return append(append(b, j...), '\n')
	}
	// The body, the last key, is written straight into b: a body is most
	// of a line, and building it apart would cost a copy and the garbage
	// of its growing buffer.
	b = append(append(b, j[:len(j)-1]...), `,"body":`...)
	return append(appendBody(b, msg, e.Version, opts...), '}', '\n')
}

// marshal is json.Marshal(l) with the body, the last key, appended as it
// is: pretty.JSON wrote it compact, and json.Marshal would check and
// compact a RawMessage again, a quarter of a captured Produce line's
// cost.
func (l jsonLine) marshal() ([]byte, error) {
	body := l.Body
	l.Body = nil
	j, err := json.Marshal(l)
	if err != nil || body == nil {
		return j, err
	}
	j = append(j[:len(j)-1], `,"body":`...)
	return append(append(j, body...), '}'), nil
}

// AppendMessageJSON appends e's message as AppendJSON would, but without
// the keys of a connection (time, conn, client_addr, principal,
// latency_ms, note): the line of one frame decoded on its own, as kwire
// decode -json prints it. opts shape the body (pretty.JSON's options);
// with showSecrets the body keeps its secrets, for a user looking at
// their own frame, while summary and errors stay redacted.
func AppendMessageJSON(b []byte, e Event, showSecrets bool, opts ...pretty.Option) ([]byte, error) {
	d := Describe(e.Msg, e.Version, true, opts...)
	if showSecrets {
		body, err := pretty.JSON(e.Msg, e.Version, opts...)
		if err != nil {
			return b, err
		}
		d.Body, d.Redacted = body, nil
	}
	j, err := e.jsonLine(d).marshal()
	if err != nil {
		return b, err
	}
	return append(append(b, j...), '\n'), nil
}

// jsonLine holds what e says about its API and message, d describing the
// message.
func (e *Event) jsonLine(d Description) jsonLine {
	l := jsonLine{Dir: e.Dir, ClientID: e.ClientID}
	if e.ClientInstanceID != (kwire.UUID{}) {
		l.ClientInstID = e.ClientInstanceID.String()
	}
	if e.aboutAPI() {
		l.API, l.Key, l.Version, l.CorrelationID = e.apiName(), &e.Key, &e.Version, &e.CorrelationID
	}
	if e.Msg != nil {
		l.Summary, l.Errors, l.Body, l.Redacted = e.summary(d), d.Errors, d.Body, d.Redacted
	}
	return l
}
