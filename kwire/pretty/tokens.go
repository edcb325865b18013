package pretty

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"unicode/utf8"
)

// jsonTokens splits JSON held in memory into the tokens encoding/json's
// Decoder.Token gives (json.Delim, string, json.Number, bool, nil),
// checking the grammar the same way. The Decoder leaves about 120 bytes
// of garbage for every number or string; here a token costs its string,
// if it is new: a token met before (a key, a small number) is returned as
// it was made the first time.
type jsonTokens struct {
	data  []byte
	off   int          // where the last token ended
	state tokenState   // what may come next
	stack []tokenState // the states to return to when the open arrays and objects close
	seen  map[string]json.Token
}

// tokenState is where the tokenizer is in the grammar.
type tokenState uint8

const (
	topValue    tokenState = iota // a value at the top level
	arrayStart                    // after '[': a value or ']'
	arrayValue                    // after ',' in an array: a value
	arrayComma                    // after an array's element: ',' or ']'
	objectStart                   // after '{': a key or '}'
	objectKey                     // after ',' in an object: a key
	objectColon                   // after a key: ':'
	objectValue                   // after ':': a value
	objectComma                   // after a member's value: ',' or '}'
)

// Tokens of at most maxSeenLen bytes are remembered, up to maxSeen of
// them: enough for a message's keys and small numbers, little memory.
const (
	maxSeenLen = 32
	maxSeen    = 1024
)

// tokenError is a syntax error at a byte offset.
type tokenError struct {
	at  int
	msg string
}

func (e *tokenError) Error() string { return e.msg + " at offset " + strconv.Itoa(e.at) }

// fail is the error for the byte c at offset at, found where context says.
func (t *jsonTokens) fail(at int, context string, c byte) error {
	return &tokenError{at: at, msg: "invalid character " + strconv.QuoteRune(rune(c)) + context}
}

// next returns the next token: io.EOF when the data ends between
// tokens, io.ErrUnexpectedEOF when it ends inside one, or a *tokenError.
func (t *jsonTokens) next() (json.Token, error) {
	for {
		for t.off < len(t.data) && isSpace(t.data[t.off]) {
			t.off++
		}
		if t.off == len(t.data) {
			return nil, io.EOF
		}
		c := t.data[t.off]
		switch c {
		case '[', '{':
			if !t.valueAllowed() {
				return nil, t.unexpected(c)
			}
			t.off++
			t.stack = append(t.stack, t.state)
			t.state = arrayStart
			if c == '{' {
				t.state = objectStart
			}
			return json.Delim(c), nil
		case ']', '}':
			if c == ']' && t.state != arrayStart && t.state != arrayComma ||
				c == '}' && t.state != objectStart && t.state != objectComma {
				return nil, t.unexpected(c)
			}
			t.off++
			t.state = t.stack[len(t.stack)-1]
			t.stack = t.stack[:len(t.stack)-1]
			t.valueEnd()
			return json.Delim(c), nil
		case ':':
			if t.state != objectColon {
				return nil, t.unexpected(c)
			}
			t.off++
			t.state = objectValue
			continue
		case ',':
			switch t.state {
			case arrayComma:
				t.state = arrayValue
			case objectComma:
				t.state = objectKey
			default:
				return nil, t.unexpected(c)
			}
			t.off++
			continue
		case '"':
			if t.state == objectStart || t.state == objectKey {
				tok, err := t.value()
				t.state = objectColon
				return tok, err
			}
		}
		if !t.valueAllowed() {
			return nil, t.unexpected(c)
		}
		tok, err := t.value()
		t.valueEnd()
		return tok, err
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func (t *jsonTokens) valueAllowed() bool {
	switch t.state {
	case topValue, arrayStart, arrayValue, objectValue:
		return true
	}
	return false
}

func (t *jsonTokens) valueEnd() {
	switch t.state {
	case arrayStart, arrayValue:
		t.state = arrayComma
	case objectValue:
		t.state = objectComma
	}
}

// unexpected is the error for c where the state does not allow it.
func (t *jsonTokens) unexpected(c byte) error {
	context := " looking for beginning of value"
	switch t.state {
	case arrayComma:
		context = " after array element"
	case objectStart, objectKey:
		context = " looking for beginning of object key string"
	case objectColon:
		context = " after object key"
	case objectComma:
		context = " after object key:value pair"
	}
	return t.fail(t.off, context, t.data[t.off])
}

// value reads the string, number or literal at t.off.
func (t *jsonTokens) value() (json.Token, error) {
	start := t.off
	var end int
	var err error
	switch c := t.data[start]; {
	case c == '"':
		end, err = t.stringEnd(start)
	case c == '-' || '0' <= c && c <= '9':
		end, err = t.numberEnd(start)
	default:
		if t.off, err = t.literalEnd(start); err != nil {
			return nil, err
		}
		switch c {
		case 't':
			return true, nil
		case 'f':
			return false, nil
		}
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	t.off = end
	raw := t.data[start:end]
	if tok, ok := t.seen[string(raw)]; ok {
		return tok, nil
	}
	var tok json.Token = json.Number(raw)
	if raw[0] == '"' {
		s, err := unquote(raw)
		if err != nil {
			return nil, err
		}
		tok = s
	}
	if len(raw) <= maxSeenLen && len(t.seen) < maxSeen {
		if t.seen == nil {
			t.seen = make(map[string]json.Token)
		}
		t.seen[string(raw)] = tok
	}
	return tok, nil
}

// stringEnd is the end of the string starting at start (its quote),
// after checking its escapes.
func (t *jsonTokens) stringEnd(start int) (int, error) {
	for i := start + 1; i < len(t.data); i++ {
		switch c := t.data[i]; {
		case c == '"':
			return i + 1, nil
		case c < 0x20:
			return 0, t.fail(i, " in string literal", c)
		case c == '\\':
			i++
			if i == len(t.data) {
				return 0, io.ErrUnexpectedEOF
			}
			switch e := t.data[i]; e {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				for j := i + 1; j <= i+4; j++ {
					if j == len(t.data) {
						return 0, io.ErrUnexpectedEOF
					}
					if !isHex(t.data[j]) {
						return 0, t.fail(j, " in \\u hexadecimal character escape", t.data[j])
					}
				}
				i += 4
			default:
				return 0, t.fail(i, " in string escape code", e)
			}
		}
	}
	return 0, io.ErrUnexpectedEOF
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// unquote is the string a checked JSON string stands for; bytes that are
// not UTF-8 become U+FFFD, as encoding/json has them. A string with an
// escape or such a byte is left to encoding/json, which has the rules.
func unquote(raw []byte) (string, error) {
	s := raw[1 : len(raw)-1]
	if bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s) {
		return string(s), nil
	}
	var out string
	err := json.Unmarshal(raw, &out)
	return out, err
}

// numberEnd is the end of the number starting at start: -?(0|[1-9]d*)(.d+)?([eE][+-]?d+)?
func (t *jsonTokens) numberEnd(start int) (int, error) {
	i := start
	if t.data[i] == '-' {
		i++
	}
	digits := func(i int, context string) (int, error) {
		if i == len(t.data) {
			return 0, io.ErrUnexpectedEOF
		}
		if c := t.data[i]; c < '0' || c > '9' {
			return 0, t.fail(i, context, c)
		}
		for i < len(t.data) && '0' <= t.data[i] && t.data[i] <= '9' {
			i++
		}
		return i, nil
	}
	var err error
	if i < len(t.data) && t.data[i] == '0' {
		i++
	} else if i, err = digits(i, " in numeric literal"); err != nil {
		return 0, err
	}
	if i < len(t.data) && t.data[i] == '.' {
		if i, err = digits(i+1, " after decimal point in numeric literal"); err != nil {
			return 0, err
		}
	}
	if i < len(t.data) && (t.data[i] == 'e' || t.data[i] == 'E') {
		i++
		if i < len(t.data) && (t.data[i] == '+' || t.data[i] == '-') {
			i++
		}
		if i, err = digits(i, " in exponent of numeric literal"); err != nil {
			return 0, err
		}
	}
	return i, nil
}

// literalEnd is the end of the true, false or null starting at start.
func (t *jsonTokens) literalEnd(start int) (int, error) {
	var word string
	switch c := t.data[start]; c {
	case 't':
		word = "true"
	case 'f':
		word = "false"
	case 'n':
		word = "null"
	default:
		return 0, t.fail(start, " looking for beginning of value", c)
	}
	for k := 1; k < len(word); k++ {
		i := start + k
		if i == len(t.data) {
			return 0, io.ErrUnexpectedEOF
		}
		if t.data[i] != word[k] {
			return 0, t.fail(i, " in literal "+word+" (expecting "+strconv.QuoteRune(rune(word[k]))+")", t.data[i])
		}
	}
	return start + len(word), nil
}
