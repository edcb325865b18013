// Package wiretest holds the helpers this repository's tests share for
// reading wire bytes and comparing verdicts; it is for tests only.
package wiretest

import (
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/wire"
)

// Hex reads hex bytes written for people: the parts are joined, white
// space is ignored, and on each line what follows "#" is a comment, so a
// frame can be written field by field.
func Hex(t testing.TB, parts ...string) []byte {
	t.Helper()
	var digits strings.Builder
	for _, line := range strings.Split(strings.Join(parts, ""), "\n") {
		line, _, _ = strings.Cut(line, "#")
		digits.WriteString(strings.Join(strings.Fields(line), ""))
	}
	b, err := hex.DecodeString(digits.String())
	if err != nil {
		t.Fatalf("wiretest.Hex: %v", err)
	}
	return b
}

// SameVerdict fails the test unless a read and a trace of frame agree:
// both succeed, or both fail with a *kwire.Error naming the same
// sentinel, type, field path and offset (their Op differs in the body,
// "unmarshal" against "layout", but not in the header, "frame").
func SameVerdict(t testing.TB, frame []byte, read, trace error) {
	t.Helper()
	if (read == nil) != (trace == nil) {
		t.Fatalf("read and trace disagree on %x:\n read: %v\ntrace: %v", frame, read, trace)
	}
	if read == nil {
		return
	}
	var r, tr *kwire.Error
	if !errors.As(read, &r) || !errors.As(trace, &tr) {
		t.Fatalf("read and trace of %x fail with an error other than *kwire.Error:\n read: %v\ntrace: %v", frame, read, trace)
	}
	if r.Err != tr.Err || r.Type != tr.Type || r.Path != tr.Path || r.Offset != tr.Offset || (r.Op == "frame") != (tr.Op == "frame") {
		t.Fatalf("read and trace fail differently on %x:\n read: %v\ntrace: %v", frame, read, trace)
	}
}

// Frame is body behind a size prefix that counts it.
func Frame(body string) []byte {
	return append(wire.AppendInt32(nil, int32(len(body))), body...)
}
