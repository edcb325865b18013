package pretty

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"

	"github.com/kwirelabs/kwire/kwire"
)

// Sentinels of ParseJSON's errors, besides kwire's ErrValueOutOfRange,
// ErrNullNotAllowed and ErrFieldNotInVersion.
var (
	ErrJSONSyntax   = errors.New("invalid JSON")
	ErrUnknownField = errors.New("unknown field")
	ErrJSONValue    = errors.New("JSON value does not fit the field")
)

// ParseJSON sets msg (a pointer to a message struct) from JSON as JSON
// writes it at version: the inverse of JSON, for fixtures and requests
// written by hand. msg is first reset to its defaults (its Default method
// if it has one, as the generated messages do, otherwise the zero value),
// and so is every struct the JSON creates (array elements, nullable
// structs): a field left out keeps its default.
//
// Every form JSON writes is read: numbers in their Go type's range,
// "NaN"/"+Inf"/"-Inf" floats, UUIDs as text (or Kafka's base64), bytes in
// base64, nulls, unknown tagged fields. A records field is read in each
// of its forms: null; base64 (WithRawRecords), read byte for byte; in full
// (WithRecords), rebuilt batch by batch with record.AppendBatchLike,
// where batch header fields left out take what a producer would send
// (magic 2, no compression, -1 producer fields, offsets and timestamps
// spanning the records) and CRC, NumRecords and Bytes are computed rather
// than read. A summary cannot be read back, unless it says the set is
// empty; nor can a full form marked Partial or Error.
//
// A key the struct does not have, or has only in other versions, is an
// error, as is a key given twice.
//
// Memory is bounded by the size of data: arrays, records and the values
// behind pointers may take at most 16 times len(data) plus 1 MiB, and
// JSON that would need more (a million "{}" for 352-byte structs) fails
// with kwire.ErrTooLarge before it is allocated. What JSON writes needs
// at most 3 bytes for a byte: it writes every field's name.
//
// Errors are *kwire.Error values (Op "parse json") naming the field's
// path and the byte offset in data, and wrapping ErrJSONSyntax, ErrUnknownField, ErrJSONValue,
// kwire.ErrFieldNotInVersion, kwire.ErrValueOutOfRange,
// kwire.ErrNullNotAllowed or kwire.ErrTooLarge.
func ParseJSON(data []byte, msg any, version int16) error {
	s, err := kwire.SchemaOf(msg, version)
	if err != nil {
		return err
	}
	rv, err := messageValue(msg, "parse json", true)
	if err != nil {
		return err
	}
	r := jsonReader{data: data, tokens: jsonTokens{data: data}, typ: rv.Type().String(),
		budget: allocPerByte*uint64(len(data)) + allocSlack}
	setDefault(rv)
	r.mark("")
	t, err := r.next()
	if err != nil {
		return err
	}
	if t != json.Delim('{') {
		return r.mismatch("an object", t)
	}
	if err := r.object(s, rv); err != nil {
		return err
	}
	r.mark("")
	if _, err := r.tokens.next(); err != io.EOF {
		return r.fail(ErrJSONSyntax, "data after the object")
	}
	return nil
}

// setDefault resets an addressable struct to its defaults.
func setDefault(v reflect.Value) {
	if d, ok := v.Addr().Interface().(interface{ Default() }); ok {
		d.Default()
		return
	}
	v.SetZero()
}

// ParseJSON's allocation budget: two bytes of JSON ("{}") can stand for
// a 352-byte struct, so without it memory would follow the schema's
// sizes rather than the bytes present.
const (
	allocPerByte = 16
	allocSlack   = 1 << 20
)

// jsonReader reads JSON tokens, keeping the path of the value being read
// for errors.
type jsonReader struct {
	data   []byte
	tokens jsonTokens
	typ    string     // the message's Go type
	path   []pathStep // outermost first
	at     int        // where the value being read starts, for errors
	key    int        // where the key of the member being read starts
	budget uint64     // the bytes arrays and pointers may still take
}

// charge takes n values of size bytes from the budget, before they are
// allocated.
func (r *jsonReader) charge(n int, size uintptr) error {
	need := uint64(n) * uint64(size) // n is at most len(data)
	if need > r.budget {
		return r.fail(kwire.ErrTooLarge, "%d values of %d bytes each: more than %d bytes of JSON may allocate (%d bytes a byte, and 1 MiB)",
			n, size, len(r.data), allocPerByte)
	}
	r.budget -= need
	return nil
}

// elements counts the elements of the array whose '[' was just read, from
// the bytes, so that the array is allocated once at its size (and charged
// before). In JSON that does not parse the count may be too high, never
// too low before the decoder's error.
func (r *jsonReader) elements() int {
	depth, commas, empty, inString := 0, 0, true, false
	for i := r.tokens.off; i < len(r.data); i++ {
		c := r.data[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '"':
			inString = true
		case '[', '{':
			depth++
		case ']', '}':
			if depth == 0 {
				if empty {
					return 0
				}
				return commas + 1
			}
			depth--
		case ',':
			if depth == 0 {
				commas++
			}
		}
		empty = false
	}
	return commas + 1
}

// sized counts the elements of the array whose '[' was just read and
// charges them at size bytes each.
func (r *jsonReader) sized(size uintptr) (int, error) {
	n := r.elements()
	return n, r.charge(n, size)
}

// next is the next token; a syntax error or the end of the data is an
// error.
func (r *jsonReader) next() (json.Token, error) {
	t, err := r.tokens.next()
	if err == nil {
		return t, nil
	}
	if te, ok := err.(*tokenError); ok {
		return nil, r.failAt(te.at, ErrJSONSyntax, "%s", te.msg)
	}
	return nil, r.fail(ErrJSONSyntax, "unexpected end of the data") // io.EOF or io.ErrUnexpectedEOF
}

// pathStep is a key of an object (index -1) or an index of an array;
// the path is formatted only for an error.
type pathStep struct {
	key   string
	index int
}

// pathString is the path as kwire's errors write it: Topics[0].Name.
func (r *jsonReader) pathString() string {
	var b strings.Builder
	for _, p := range r.path {
		if p.index >= 0 {
			b.WriteString("[" + strconv.Itoa(p.index) + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(p.key)
	}
	return b.String()
}

func (r *jsonReader) fail(sentinel error, format string, args ...any) error {
	return r.failAt(r.at, sentinel, format, args...)
}

// mark sets r.at to the start of the next key or value: past the
// separators skip names and white space.
func (r *jsonReader) mark(skip string) {
	i := r.tokens.off
	for i < len(r.data) && (isSpace(r.data[i]) || strings.IndexByte(skip, r.data[i]) >= 0) {
		i++
	}
	r.at = i
}

func (r *jsonReader) failAt(offset int, sentinel error, format string, args ...any) error {
	return &kwire.Error{Op: "parse json", Type: r.typ, Path: r.pathString(),
		Offset: offset, Err: sentinel, Detail: fmt.Sprintf(format, args...)}
}

// mismatch is the error for a value of the wrong JSON type.
func (r *jsonReader) mismatch(want string, t json.Token) error {
	var got string
	switch t := t.(type) {
	case nil:
		got = "null"
	case json.Delim:
		got = map[json.Delim]string{'{': "an object", '[': "an array"}[t]
	case string:
		got = strconv.Quote(t)
	default:
		got = fmt.Sprint(t)
	}
	return r.fail(ErrJSONValue, "want %s, got %s", want, got)
}

func (r *jsonReader) unknownKey(key, known string) error {
	return r.failAt(r.key, ErrUnknownField, "%q (known: %s)", key, known)
}

// int reads a JSON integer that fits in bits.
func (r *jsonReader) int(t json.Token, bits int) (int64, error) {
	num, ok := t.(json.Number)
	if !ok {
		return 0, r.mismatch("an integer", t)
	}
	n, err := strconv.ParseInt(string(num), 10, bits)
	if err != nil {
		return 0, r.fail(kwire.ErrValueOutOfRange, "%s is not an int%d", num, bits)
	}
	return n, nil
}

// fields reads an object's members, after its '{': fn reads the value of
// each key, whose first token it gets. A key given twice is an error.
func (r *jsonReader) fields(fn func(key string, t json.Token) error) error {
	var room [16]string // on the stack: most objects have fewer keys
	seen := room[:0]
	for {
		r.mark(",")
		t, err := r.next()
		if err != nil {
			return err
		}
		if t == json.Delim('}') {
			return nil
		}
		key := t.(string) // the decoder checks that keys are strings
		r.path = append(r.path, pathStep{key: key, index: -1})
		for _, k := range seen {
			if k == key {
				return r.failAt(r.at, ErrJSONSyntax, "key %q given twice", key)
			}
		}
		seen = append(seen, key)
		r.key = r.at
		r.mark(":")
		if t, err = r.next(); err == nil {
			err = fn(key, t)
		}
		if err != nil {
			return err
		}
		r.path = r.path[:len(r.path)-1]
	}
}

// array reads an array's elements, after its '[': at most n of them
// (the count sized gave, which only JSON that does not parse can pass),
// or any number where n < 0.
func (r *jsonReader) array(n int, fn func(i int, t json.Token) error) error {
	for i := 0; ; i++ {
		r.mark(",")
		t, err := r.next()
		if err != nil {
			return err
		}
		if t == json.Delim(']') {
			return nil
		}
		r.path = append(r.path, pathStep{index: i})
		if i == n {
			return r.fail(ErrJSONSyntax, "more elements than the array holds")
		}
		if err := fn(i, t); err != nil {
			return err
		}
		r.path = r.path[:len(r.path)-1]
	}
}

// object reads a struct's members, after its '{'.
func (r *jsonReader) object(s *kwire.Schema, sv reflect.Value) error {
	ms := members(s)
	return r.fields(func(key string, t json.Token) error {
		for _, m := range ms {
			if m.name != key {
				continue
			}
			if m.field == nil {
				return unknownTagsForm{}.read(r, nil, sv.Field(m.index), t)
			}
			return formOf(m.field).read(r, m.field, sv.Field(m.index), t)
		}
		if sf, ok := s.Type.FieldByName(key); ok && sf.IsExported() && len(sf.Index) == 1 {
			if _, tagged := sf.Tag.Lookup("kafka"); tagged {
				return r.failAt(r.key, kwire.ErrFieldNotInVersion, "%s v%d has no %s", s.Type.Name(), s.Version, key)
			}
		}
		names := make([]string, len(ms))
		for i, m := range ms {
			names[i] = m.name
		}
		return r.unknownKey(key, s.Type.Name()+" v"+strconv.Itoa(int(s.Version))+" has "+strings.Join(names, ", "))
	})
}
