package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/kwirelabs/kwire/messages"
)

// event is one line of the proxy's log: a request or response relayed,
// or a connection that ended badly.
type event struct {
	Time     time.Time
	Conn     int
	Dir      string // "request", "response", "close"
	Key      int16  // -1 when unknown
	Version  int16
	Corr     int32
	ClientID *string
	Latency  time.Duration // responses: since the request was read
	Msg      any           // the decoded body; nil when it did not decode
	Err      error         // why it did not decode (or pair)
	Note     string        // what the proxy did besides relaying
}

// aboutAPI says whether the event concerns a Kafka message (not a closed
// connection or a raw SASL token).
func (e event) aboutAPI() bool { return e.Dir != "close" && (e.Key >= 0 || e.Err != nil) }

func apiName(key int16) string {
	if key < 0 {
		return "?"
	}
	if a, ok := messages.Lookup(key); ok {
		return a.Name
	}
	return "key" + strconv.Itoa(int(key))
}

// formatText is one line: time, connection, direction, API and version,
// correlation id, client id, latency, then the summary, which ends in
// the non-zero error codes by name.
func formatText(b []byte, e event) []byte {
	b = e.Time.UTC().AppendFormat(b, "15:04:05.000000")
	b = fmt.Appendf(b, " #%d %-8s", e.Conn, e.Dir)
	if e.aboutAPI() {
		b = fmt.Appendf(b, " %s v%d corr=%d", apiName(e.Key), e.Version, e.Corr)
		if e.ClientID != nil {
			b = fmt.Appendf(b, " client=%q", *e.ClientID)
		}
		if e.Dir == "response" && e.Latency > 0 {
			b = fmt.Appendf(b, " %.3fms", float64(e.Latency)/float64(time.Millisecond))
		}
	}
	if e.Msg != nil {
		b = append(b, " | "...)
		b = append(b, describe(e.Msg, e.Version, false).Summary...)
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

// jsonLine is the -json form of an event.
type jsonLine struct {
	Time          string          `json:"time"`
	Conn          int             `json:"conn"`
	Dir           string          `json:"dir"`
	API           string          `json:"api,omitempty"`
	Key           *int16          `json:"key,omitempty"`
	Version       *int16          `json:"version,omitempty"`
	CorrelationID *int32          `json:"correlation_id,omitempty"`
	ClientID      *string         `json:"client_id,omitempty"`
	LatencyMs     *float64        `json:"latency_ms,omitempty"`
	Summary       string          `json:"summary,omitempty"`
	Errors        []string        `json:"errors,omitempty"`
	Undecodable   string          `json:"undecodable,omitempty"`
	Note          string          `json:"note,omitempty"`
	Body          json.RawMessage `json:"body,omitempty"`
}

func formatJSON(b []byte, e event) []byte {
	l := jsonLine{Time: e.Time.UTC().Format(time.RFC3339Nano), Conn: e.Conn, Dir: e.Dir, ClientID: e.ClientID, Note: e.Note}
	if e.aboutAPI() {
		l.API, l.Key, l.Version, l.CorrelationID = apiName(e.Key), &e.Key, &e.Version, &e.Corr
	}
	if e.Dir == "response" && e.Latency > 0 {
		ms := float64(e.Latency) / float64(time.Millisecond)
		l.LatencyMs = &ms
	}
	if e.Msg != nil {
		d := describe(e.Msg, e.Version, true)
		l.Summary, l.Errors, l.Body = d.Summary, d.Errors, d.Body
	}
	if e.Err != nil {
		l.Undecodable = e.Err.Error()
	}
	j, err := json.Marshal(l)
	if err != nil {
		j, _ = json.Marshal(jsonLine{Time: l.Time, Conn: e.Conn, Dir: e.Dir, Undecodable: "log: " + err.Error()})
	}
	return append(append(b, j...), '\n')
}

// lineLog writes log lines from a goroutine of its own, so relaying
// never waits for the disk unless the log falls far behind; lines are
// never dropped.
type lineLog struct {
	asJSON bool
	lines  chan []byte
	done   chan struct{}
}

func newLineLog(w io.Writer, asJSON bool) *lineLog {
	l := &lineLog{asJSON: asJSON, lines: make(chan []byte, 4096), done: make(chan struct{})}
	go func() {
		defer close(l.done)
		bw := bufio.NewWriterSize(w, 64<<10)
		for line := range l.lines {
			bw.Write(line)
			if len(l.lines) == 0 {
				bw.Flush()
			}
		}
		bw.Flush()
	}()
	return l
}

// write formats e at once: a decoded body may alias the frame buffer,
// which the relay reuses.
func (l *lineLog) write(e event) {
	if l.asJSON {
		l.lines <- formatJSON(nil, e)
	} else {
		l.lines <- formatText(nil, e)
	}
}

func (l *lineLog) close() {
	close(l.lines)
	<-l.done
}
