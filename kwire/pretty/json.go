package pretty

import (
	"encoding/base64"
	"math"
	"reflect"
	"strconv"
	"unicode/utf8"

	"github.com/kwirelabs/kwire/kwire"
)

// Option changes what JSON writes.
type Option func(*options)

type options struct {
	records bool
}

// WithRecords writes records fields in full rather than as a summary:
// {"Bytes":N,"Partial":false,"Batches":[...]}, each batch with its header
// fields (BaseOffset, Magic, Codec, TimestampType, Transactional,
// Control, ProducerID, ProducerEpoch, BaseSequence, ...) and its Records:
// Offset, Timestamp, Key, Value and Headers. A key, value or header value
// is a JSON string when it is valid UTF-8, {"Base64":"..."} when it is
// not, and null when null.
func WithRecords() Option { return func(o *options) { o.records = true } }

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
	rv, err := structValue(msg)
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

// structValue is the struct msg is or points to.
func structValue(msg any) (reflect.Value, error) {
	rv := reflect.ValueOf(msg)
	for rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return rv, &kwire.Error{Op: "json", Type: reflect.TypeOf(msg).String(), Offset: -1, Err: kwire.ErrNotAMessage, Detail: "nil pointer"}
		}
		rv = rv.Elem()
	}
	return rv, nil
}

type jsonWriter struct {
	buf  []byte
	opts options
}

func (w *jsonWriter) object(s *kwire.Schema, sv reflect.Value) {
	w.buf = append(w.buf, '{')
	for i := range s.Fields {
		f := &s.Fields[i]
		if i > 0 {
			w.buf = append(w.buf, ',')
		}
		w.buf = appendString(w.buf, f.Name)
		w.buf = append(w.buf, ':')
		w.value(f, sv.Field(f.Index))
	}
	if s.UnknownTags >= 0 {
		if tags := sv.Field(s.UnknownTags).Interface().(kwire.UnknownTags); tags.Len() > 0 {
			if len(s.Fields) > 0 {
				w.buf = append(w.buf, ',')
			}
			w.buf = appendString(w.buf, s.Type.Field(s.UnknownTags).Name)
			w.buf = append(w.buf, ":["...)
			for i, t := range tags.Fields() {
				if i > 0 {
					w.buf = append(w.buf, ',')
				}
				w.buf = append(w.buf, `{"Tag":`...)
				w.buf = strconv.AppendUint(w.buf, uint64(t.Tag), 10)
				w.buf = append(w.buf, `,"Data":`...)
				w.buf = appendBase64(w.buf, t.Data)
				w.buf = append(w.buf, '}')
			}
			w.buf = append(w.buf, ']')
		}
	}
	w.buf = append(w.buf, '}')
}

func (w *jsonWriter) value(f *kwire.Field, v reflect.Value) {
	switch {
	case f.Records:
		b := v.Bytes()
		if b == nil {
			w.buf = append(w.buf, "null"...)
		} else if w.opts.records {
			w.buf = appendRecordsDetail(w.buf, b)
		} else {
			w.buf = appendRecordsSummary(w.buf, b)
		}
		return
	case f.Struct != nil:
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				w.buf = append(w.buf, "null"...)
				return
			}
			v = v.Elem()
		}
		w.object(f.Struct, v)
		return
	case f.Elem != nil:
		if v.IsNil() && f.Nullable {
			w.buf = append(w.buf, "null"...)
			return
		}
		w.buf = append(w.buf, '[')
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				w.buf = append(w.buf, ',')
			}
			w.value(f.Elem, v.Index(i))
		}
		w.buf = append(w.buf, ']')
		return
	}
	w.buf = appendScalar(w.buf, v)
}

// appendScalar writes a number, bool, string, nullable string, UUID or
// bytes value.
func appendScalar(dst []byte, v reflect.Value) []byte {
	switch v.Kind() {
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.AppendInt(dst, v.Int(), 10)
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.AppendUint(dst, v.Uint(), 10)
	case reflect.Float64, reflect.Float32:
		f := v.Float()
		switch {
		case math.IsNaN(f):
			return append(dst, `"NaN"`...)
		case math.IsInf(f, 1):
			return append(dst, `"+Inf"`...)
		case math.IsInf(f, -1):
			return append(dst, `"-Inf"`...)
		}
		return strconv.AppendFloat(dst, f, 'g', -1, 64)
	case reflect.Bool:
		return strconv.AppendBool(dst, v.Bool())
	case reflect.String:
		return appendString(dst, v.String())
	case reflect.Pointer:
		if v.IsNil() {
			return append(dst, "null"...)
		}
		return appendScalar(dst, v.Elem())
	case reflect.Array: // kwire.UUID, or a [16]byte of the user's
		var u kwire.UUID
		reflect.Copy(reflect.ValueOf(u[:]), v)
		dst = append(dst, '"')
		dst = append(dst, u.String()...)
		return append(dst, '"')
	case reflect.Slice:
		if v.IsNil() {
			return append(dst, "null"...)
		}
		return appendBase64(dst, v.Bytes())
	}
	return append(dst, "null"...)
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
