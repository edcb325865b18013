package pretty

import (
	"encoding/base64"
	"fmt"
	"reflect"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/kwirelabs/kwire/kwire"
)

// Option changes what JSON writes.
type Option func(*options)

type options struct {
	records    bool
	rawRecords bool
}

// WithRecords writes records fields in full rather than as a summary:
// {"Bytes":N,"Batches":[...]}, each batch with its header fields
// (BaseOffset, Magic, Codec, TimestampType, Transactional, Control,
// DeleteHorizon when set, ProducerID, ProducerEpoch, BaseSequence, ...)
// and its Records: Offset, Timestamp, CreateTimestamp (the timestamp the
// bytes hold, where a LogAppendTime batch shows its own time as
// Timestamp), Attributes when set, Key, Value and Headers. A key, value or
// header value is a JSON string when it is valid UTF-8, {"Base64":"..."}
// when it is not, and null when null. ParseJSON rebuilds the batches from
// it: an uncompressed batch to the same bytes.
//
// Records in full are bounded by the message's records bytes, since a few
// KiB of zstd can stand for gigabytes: they may take 8 MiB of JSON and 32
// bytes for each byte of records fields; no batch is decompressed past
// what is left of that (though one batch's JSON can be six times its
// decompressed bytes, where they all need escaping), and once it is spent
// the set ends with an Error saying the rest is left out.
func WithRecords() Option { return func(o *options) { o.records = true } }

// WithRawRecords writes records fields as their bytes in standard base64,
// as a bytes field is written: what ParseJSON reads back byte for byte,
// compressed or cut-short batches included. It overrides WithRecords.
func WithRawRecords() Option { return func(o *options) { o.rawRecords = true } }

// JSON returns msg (a struct or a pointer to one) at version as JSON.
func JSON(msg any, version int16, opts ...Option) ([]byte, error) {
	return AppendJSON(nil, msg, version, opts...)
}

// AppendJSON appends the JSON of msg at version to dst.
func AppendJSON(dst []byte, msg any, version int16, opts ...Option) ([]byte, error) {
	s, err := kwire.SchemaOf(msg, version)
	if err != nil {
		return dst, err
	}
	rv, err := messageValue(msg, "json", false)
	if err != nil {
		return dst, err
	}
	w := jsonWriter{buf: dst}
	for _, o := range opts {
		o(&w.opts)
	}
	w.object(s, rv)
	return w.buf, nil
}

// messageValue is the struct msg is or points to, for pretty's entry
// point op; a parse writes into it, so it must be a non-nil pointer. It
// refuses anything else as kwire's own entry points do.
func messageValue(msg any, op string, write bool) (reflect.Value, error) {
	rv := reflect.ValueOf(msg)
	need := "need a struct or a non-nil pointer to one"
	if write {
		need = "need a non-nil pointer to a struct"
		if rv.Kind() == reflect.Pointer && !rv.IsNil() && rv.Elem().Kind() == reflect.Struct {
			return rv.Elem(), nil
		}
	} else {
		for rv.Kind() == reflect.Pointer && !rv.IsNil() {
			rv = rv.Elem()
		}
		if rv.Kind() == reflect.Struct {
			return rv, nil
		}
	}
	return rv, &kwire.Error{Op: op, Type: fmt.Sprintf("%T", msg), Offset: -1, Err: kwire.ErrNotAMessage, Detail: need}
}

type jsonWriter struct {
	buf  []byte
	opts options
	// fullRecords are the bytes written so far of records in full, and
	// fullRecordsAllowed what they may take (fullRecordsBudget).
	fullRecords, fullRecordsAllowed int
}

// member is one key of a struct's JSON object: a field the version has,
// or (field nil) the struct's UnknownTags field. JSON writes the members
// in this order and ParseJSON accepts exactly these keys.
type member struct {
	name  string
	key   []byte // name quoted, and the colon: escaped once per type, not per value
	field *kwire.Field
	index int // in the Go struct
}

var memberCache sync.Map // *kwire.Schema -> []member

func members(s *kwire.Schema) []member {
	if m, ok := memberCache.Load(s); ok {
		return m.([]member)
	}
	m := make([]member, 0, len(s.Fields)+1)
	for i := range s.Fields {
		f := &s.Fields[i]
		m = append(m, member{name: f.Name, key: memberKey(f.Name), field: f, index: f.Index})
	}
	if s.UnknownTags >= 0 {
		m = append(m, member{name: s.Type.Field(s.UnknownTags).Name, key: memberKey(s.Type.Field(s.UnknownTags).Name), index: s.UnknownTags})
	}
	memberCache.Store(s, m)
	return m
}

func memberKey(name string) []byte { return append(appendString(nil, name), ':') }

func (w *jsonWriter) object(s *kwire.Schema, sv reflect.Value) { w.members(members(s), sv) }

// members writes struct sv as the object of its members ms.
func (w *jsonWriter) members(ms []member, sv reflect.Value) {
	w.buf = append(w.buf, '{')
	n := 0
	for _, m := range ms {
		v := sv.Field(m.index)
		if m.field == nil && v.Interface().(kwire.UnknownTags).Len() == 0 {
			continue
		}
		if n > 0 {
			w.buf = append(w.buf, ',')
		}
		n++
		w.buf = append(w.buf, m.key...)
		if m.field == nil {
			unknownTagsForm{}.write(w, nil, v)
		} else {
			formOf(m.field).write(w, m.field, v)
		}
	}
	w.buf = append(w.buf, '}')
}

func appendBase64(dst, b []byte) []byte {
	dst = append(dst, '"')
	dst = base64.StdEncoding.AppendEncode(dst, b)
	return append(dst, '"')
}

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string; invalid UTF-8 becomes U+FFFD,
// as encoding/json does.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendInt writes a JSON number.
func appendInt(dst []byte, v int64) []byte { return strconv.AppendInt(dst, v, 10) }
