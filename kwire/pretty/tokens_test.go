package pretty

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

// decoderTokens are the tokens encoding/json's Decoder gives for data,
// up to its first error, and that error (io.EOF at the end).
func decoderTokens(data []byte) ([]json.Token, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return allTokens(dec.Token)
}

func ourTokens(data []byte) ([]json.Token, error) {
	tokens := jsonTokens{data: data}
	return allTokens(tokens.next)
}

// allTokens calls next until it fails, and returns the tokens and the error.
func allTokens(next func() (json.Token, error)) ([]json.Token, error) {
	var out []json.Token
	for {
		t, err := next()
		if err != nil {
			return out, err
		}
		out = append(out, t)
	}
}

// errorKind sorts a tokenizer's final error: the end, data cut in a
// token, or bad syntax.
func errorKind(err error) string {
	switch {
	case err == io.EOF:
		return "end"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "cut"
	}
	return "syntax"
}

// checkSameTokens fails t unless jsonTokens and encoding/json's Decoder
// give data the same tokens and end alike; a syntax error between tokens
// is placed at the same offset.
func checkSameTokens(t *testing.T, data []byte) {
	t.Helper()
	want, wantErr := decoderTokens(data)
	got, gotErr := ourTokens(data)
	if !reflect.DeepEqual(got, want) || errorKind(gotErr) != errorKind(wantErr) {
		t.Fatalf("%q:\n got %#v, %v\nwant %#v, %v", data, got, gotErr, want, wantErr)
	}
	// A syntax error is found by the grammar checks, which place it, not
	// by encoding/json unquoting a string they let through.
	if _, ok := gotErr.(*tokenError); errorKind(gotErr) == "syntax" && !ok {
		t.Fatalf("%q: a syntax error of type %T, not *tokenError: %v", data, gotErr, gotErr)
	}
	// The Decoder counts from the start of the data only for an error
	// between values (inside one it counts from the value's start).
	var se *json.SyntaxError
	var te *tokenError
	between := func(msg string) bool {
		return strings.HasSuffix(msg, " after array element") || strings.HasSuffix(msg, " after object key") ||
			strings.HasSuffix(msg, " after object key:value pair")
	}
	if errors.As(wantErr, &se) && errors.As(gotErr, &te) && between(se.Error()) && int64(te.at) != se.Offset {
		t.Fatalf("%q: error at offset %d (%v), encoding/json says %d (%v)", data, te.at, te, se.Offset, se)
	}
}

var tokenSeeds = []string{
	`{"Acks":-1,"TimeoutMs":30000,"TopicData":[{"Name":"t","PartitionData":[{"Index":0,"Records":null}]}]}`,
	` [ 1 , -0.5e+3 , 2E9 , 0 , true , false , null , "" , {} , [] ] `,
	`{"a":"\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00\ud800\udc00x\ud800\u0041\udc00"}`,
	"\"caf\xc3\xa9 \xff\xfe bad utf-8\"",
	`{"a":1}{"b":2} 3 "s"`,
	// Each of these ends in an error.
	`{"Acks":1`, `{"Acks" 1}`, `{"a":1,}`, `[1,]`, `[1 2]`, `{1:2}`, `{"a" "b"}`, `{"a":}`, `]`, `}`, `,`, `:`,
	`[01]`, `[-]`, `[1.]`, `[1e]`, `[1e+]`, `[.5]`, `[+1]`, `[1x]`, `tru`, `trUe`, `nul`, `fals`, `x`,
	`"abc`, `"a\`, `"\x"`, `"\u12"`, `"\u12g4"`, "\"a\nb\"", "\"tab\there\"", `[1,2`, `{"a":[`, `-`, `1.`, `1e`,
}

func TestTokensAsEncodingJSON(t *testing.T) {
	for _, s := range tokenSeeds {
		checkSameTokens(t, []byte(s))
	}
}

// FuzzTokens: for any bytes, jsonTokens gives what encoding/json's
// Decoder.Token gives.
func FuzzTokens(f *testing.F) {
	for _, s := range tokenSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkSameTokens(t, data) })
}
