package trafficlog

import (
	"encoding/json"

	"github.com/kwirelabs/kwire/kwire/kerr"
	"github.com/kwirelabs/kwire/kwire/pretty"
)

// Description is a decoded message as people read it: a one-line
// summary (which names the first error codes too), every non-zero error
// code with its path, the version-aware JSON body, and the paths of the
// fields redacted from all three.
type Description struct {
	Summary  string
	Errors   []string
	Body     json.RawMessage
	Redacted []string
}

// Describe is the one place a message becomes text. It redacts msg
// first; the error list and JSON body only when full is set (the body
// is the costly part).
func Describe(msg any, version int16, full bool, opts ...pretty.Option) Description {
	msg, d := describe(msg, version, full, "", nil)
	if full {
		d.Body = appendBody(nil, msg, version, opts...)
	}
	return d
}

// describe is Describe without the body, and msg redacted, which the
// body is to be written from. A summary not empty, with its codes, is
// what pretty.SummaryAndErrors gave for msg: it stands when Redact
// leaves msg as it was.
func describe(msg any, version int16, full bool, summary string, codes []kerr.FieldCode) (any, Description) {
	msg, redacted := Redact(msg)
	if summary != "" && redacted == nil {
		d := Description{Summary: summary}
		if full {
			for _, f := range codes {
				d.Errors = append(d.Errors, f.String())
			}
		}
		return msg, d
	}
	if !full {
		return msg, Description{Summary: pretty.Summary(msg, version), Redacted: redacted}
	}
	summary, found, err := pretty.SummaryAndErrors(msg, version) // one walk for both
	d := Description{Summary: summary, Redacted: redacted}
	for _, f := range found {
		d.Errors = append(d.Errors, f.String())
	}
	if err != nil {
		d.Errors = append(d.Errors, "("+err.Error()+")")
	}
	return msg, d
}

// appendBody appends the body of msg, already redacted: pretty.JSON's,
// or an object saying why there is none.
func appendBody(b []byte, msg any, version int16, opts ...pretty.Option) []byte {
	out, err := pretty.AppendJSON(b, msg, version, opts...)
	if err == nil {
		return out
	}
	j, _ := json.Marshal(map[string]string{"error": err.Error()})
	return append(b, j...)
}
