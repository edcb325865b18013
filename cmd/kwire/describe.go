package main

import (
	"encoding/json"

	"github.com/kwirelabs/kwire/kwire/kerr"
	"github.com/kwirelabs/kwire/kwire/pretty"
)

// description is how `kwire decode -json` and the proxy show a decoded
// message: a one-line summary (which names the first error codes too),
// every non-zero error code with its path, and the version-aware JSON
// body.
type description struct {
	Summary string
	Errors  []string
	Body    json.RawMessage
}

// describe is the one place a message becomes text; the error list and
// JSON body only when asked for (the body is the costly part).
func describe(msg any, version int16, full bool, opts ...pretty.Option) description {
	d := description{Summary: pretty.Summary(msg, version)}
	if !full {
		return d
	}
	found, err := kerr.Find(msg, version)
	for _, f := range found {
		d.Errors = append(d.Errors, f.String())
	}
	if err != nil {
		d.Errors = append(d.Errors, "("+err.Error()+")")
	}
	if body, err := pretty.JSON(msg, version, opts...); err == nil {
		d.Body = body
	} else {
		d.Body, _ = json.Marshal(map[string]string{"error": err.Error()})
	}
	return d
}
