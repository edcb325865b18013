package pretty

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"reflect"
	"strconv"

	"github.com/kwirelabs/kwire/kwire"
)

// jsonForm is how one kind of field looks in JSON, in both directions:
// write appends the value, read sets it from the JSON value whose first
// token is t. Each form keeps the two side by side, and JSON and ParseJSON
// both choose forms through formOf, so what one writes the other reads.
type jsonForm interface {
	write(w *jsonWriter, f *kwire.Field, v reflect.Value)
	read(r *jsonReader, f *kwire.Field, v reflect.Value, t json.Token) error
}

// formOf is the form of a field (or of an array's element).
func formOf(f *kwire.Field) jsonForm {
	switch {
	case f.Records:
		return recordsForm{}
	case f.Struct != nil:
		return structForm{}
	case f.Elem != nil:
		return arrayForm{}
	}
	return scalarForm(f.Type)
}

func scalarForm(t reflect.Type) jsonForm {
	switch t.Kind() {
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return intForm{}
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return uintForm{}
	case reflect.Float64, reflect.Float32:
		return floatForm{}
	case reflect.Bool:
		return boolForm{}
	case reflect.String:
		return stringForm{}
	case reflect.Pointer: // *string
		return nullableForm{scalarForm(t.Elem())}
	case reflect.Array: // kwire.UUID, or a [16]byte of the user's
		return uuidForm{}
	case reflect.Slice: // bytes
		return bytesForm{}
	}
	return nullForm{}
}

// intForm: a JSON number, in the Go type's range.
type intForm struct{}

func (intForm) write(w *jsonWriter, _ *kwire.Field, v reflect.Value) {
	w.buf = strconv.AppendInt(w.buf, v.Int(), 10)
}

func (intForm) read(r *jsonReader, _ *kwire.Field, v reflect.Value, t json.Token) error {
	n, err := r.int(t, v.Type().Bits())
	v.SetInt(n)
	return err
}

type uintForm struct{}

func (uintForm) write(w *jsonWriter, _ *kwire.Field, v reflect.Value) {
	w.buf = strconv.AppendUint(w.buf, v.Uint(), 10)
}

func (uintForm) read(r *jsonReader, _ *kwire.Field, v reflect.Value, t json.Token) error {
	num, ok := t.(json.Number)
	if !ok {
		return r.mismatch("a number", t)
	}
	n, err := strconv.ParseUint(string(num), 10, v.Type().Bits())
	if err != nil {
		return r.fail(kwire.ErrValueOutOfRange, "%s is not a uint%d", num, v.Type().Bits())
	}
	v.SetUint(n)
	return nil
}

// floatForm: a number, or the string "NaN", "+Inf" or "-Inf", which JSON
// numbers cannot say.
type floatForm struct{}

func (floatForm) write(w *jsonWriter, _ *kwire.Field, v reflect.Value) {
	f := v.Float()
	switch {
	case math.IsNaN(f):
		w.buf = append(w.buf, `"NaN"`...)
	case math.IsInf(f, 1):
		w.buf = append(w.buf, `"+Inf"`...)
	case math.IsInf(f, -1):
		w.buf = append(w.buf, `"-Inf"`...)
	default:
		w.buf = strconv.AppendFloat(w.buf, f, 'g', -1, 64)
	}
}

func (floatForm) read(r *jsonReader, _ *kwire.Field, v reflect.Value, t json.Token) error {
	switch t := t.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(t), 64)
		if err != nil {
			return r.fail(kwire.ErrValueOutOfRange, "%s is not a float64", t)
		}
		v.SetFloat(f)
		return nil
	case string:
		switch t {
		case "NaN":
			v.SetFloat(math.NaN())
			return nil
		case "+Inf":
			v.SetFloat(math.Inf(1))
			return nil
		case "-Inf":
			v.SetFloat(math.Inf(-1))
			return nil
		}
	}
	return r.mismatch(`a number, "NaN", "+Inf" or "-Inf"`, t)
}

type boolForm struct{}

func (boolForm) write(w *jsonWriter, _ *kwire.Field, v reflect.Value) {
	w.buf = strconv.AppendBool(w.buf, v.Bool())
}

func (boolForm) read(r *jsonReader, _ *kwire.Field, v reflect.Value, t json.Token) error {
	b, ok := t.(bool)
	if !ok {
		return r.mismatch("true or false", t)
	}
	v.SetBool(b)
	return nil
}

type stringForm struct{}

func (stringForm) write(w *jsonWriter, _ *kwire.Field, v reflect.Value) {
	w.buf = appendString(w.buf, v.String())
}

func (stringForm) read(r *jsonReader, _ *kwire.Field, v reflect.Value, t json.Token) error {
	s, ok := t.(string)
	if !ok {
		return r.mismatch("a string", t)
	}
	v.SetString(s)
	return nil
}

// nullableForm is a pointer to a scalar: null, or the scalar's form.
type nullableForm struct{ elem jsonForm }

func (p nullableForm) write(w *jsonWriter, f *kwire.Field, v reflect.Value) {
	if v.IsNil() {
		w.buf = append(w.buf, "null"...)
		return
	}
	p.elem.write(w, f, v.Elem())
}

func (p nullableForm) read(r *jsonReader, f *kwire.Field, v reflect.Value, t json.Token) error {
	if t == nil {
		v.SetZero()
		return nil
	}
	if err := r.charge(1, v.Type().Elem().Size()); err != nil {
		return err
	}
	e := reflect.New(v.Type().Elem())
	if err := p.elem.read(r, f, e.Elem(), t); err != nil {
		return err
	}
	v.Set(e)
	return nil
}

// uuidForm: the canonical 8-4-4-4-12 hex text; Kafka's 22-character
// base64 is read too.
type uuidForm struct{}

func (uuidForm) write(w *jsonWriter, _ *kwire.Field, v reflect.Value) {
	var u kwire.UUID
	reflect.Copy(reflect.ValueOf(u[:]), v)
	w.buf = append(w.buf, '"')
	w.buf = append(w.buf, u.String()...)
	w.buf = append(w.buf, '"')
}

func (uuidForm) read(r *jsonReader, _ *kwire.Field, v reflect.Value, t json.Token) error {
	s, ok := t.(string)
	if !ok {
		return r.mismatch("a UUID string", t)
	}
	u, err := kwire.ParseUUID(s)
	if err != nil {
		return r.fail(ErrJSONValue, "%q is not a UUID", s)
	}
	reflect.Copy(v, reflect.ValueOf(u[:]))
	return nil
}

// bytesForm: standard base64, as encoding/json writes []byte; null for
// nil.
type bytesForm struct{}

func (bytesForm) write(w *jsonWriter, _ *kwire.Field, v reflect.Value) {
	if v.IsNil() {
		w.buf = append(w.buf, "null"...)
		return
	}
	w.buf = appendBase64(w.buf, v.Bytes())
}

func (bytesForm) read(r *jsonReader, _ *kwire.Field, v reflect.Value, t json.Token) error {
	if t == nil {
		v.SetZero()
		return nil
	}
	b, err := r.base64(t)
	if err != nil {
		return err
	}
	v.SetBytes(b)
	return nil
}

// nullForm is a Go type the codec accepts that JSON has no form for.
type nullForm struct{}

func (nullForm) write(w *jsonWriter, _ *kwire.Field, _ reflect.Value) {
	w.buf = append(w.buf, "null"...)
}

func (nullForm) read(r *jsonReader, _ *kwire.Field, v reflect.Value, _ json.Token) error {
	return r.fail(ErrJSONValue, "no JSON form for %s", v.Type())
}

// structForm: an object of the struct's members; a nullable struct is
// null or an object.
type structForm struct{}

func (structForm) write(w *jsonWriter, f *kwire.Field, v reflect.Value) {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			w.buf = append(w.buf, "null"...)
			return
		}
		v = v.Elem()
	}
	w.object(f.Struct, v)
}

func (structForm) read(r *jsonReader, f *kwire.Field, v reflect.Value, t json.Token) error {
	if t == nil {
		if v.Kind() != reflect.Pointer {
			return r.fail(kwire.ErrNullNotAllowed, "null for a struct that cannot be null")
		}
		v.SetZero()
		return nil
	}
	if t != json.Delim('{') {
		return r.mismatch("an object", t)
	}
	if v.Kind() == reflect.Pointer {
		if err := r.charge(1, v.Type().Elem().Size()); err != nil {
			return err
		}
		p := reflect.New(v.Type().Elem())
		setDefault(p.Elem())
		v.Set(p)
		v = p.Elem()
	}
	return r.object(f.Struct, v)
}

// arrayForm: a JSON array of the element's form; null for a nil array
// where the version allows null (elsewhere nil is written as empty, as
// the codec writes it).
type arrayForm struct{}

func (arrayForm) write(w *jsonWriter, f *kwire.Field, v reflect.Value) {
	if v.IsNil() && f.Nullable {
		w.buf = append(w.buf, "null"...)
		return
	}
	elem := formOf(f.Elem)
	var ms []member
	if f.Elem.Struct != nil && v.Type().Elem().Kind() == reflect.Struct {
		// The members once for the array, not once an element: a
		// Metadata answer has thousands of partitions.
		ms = members(f.Elem.Struct)
	}
	w.buf = append(w.buf, '[')
	for i := 0; i < v.Len(); i++ {
		if i > 0 {
			w.buf = append(w.buf, ',')
		}
		if ms != nil {
			w.members(ms, v.Index(i))
		} else {
			elem.write(w, f.Elem, v.Index(i))
		}
	}
	w.buf = append(w.buf, ']')
}

func (arrayForm) read(r *jsonReader, f *kwire.Field, v reflect.Value, t json.Token) error {
	if t == nil {
		v.SetZero()
		return nil
	}
	if t != json.Delim('[') {
		return r.mismatch("an array", t)
	}
	elem := formOf(f.Elem)
	n, err := r.sized(v.Type().Elem().Size())
	if err != nil {
		return err
	}
	v.Set(reflect.MakeSlice(v.Type(), n, n))
	read := 0
	err = r.array(n, func(i int, t json.Token) error {
		read = i + 1
		e := v.Index(i)
		if e.Kind() == reflect.Struct {
			setDefault(e)
		}
		return elem.read(r, f.Elem, e, t)
	})
	v.SetLen(read)
	return err
}

// unknownTagsForm: the tagged fields a struct does not know, as
// [{"Tag":N,"Data":"base64"}] (left out of the object when there are none).
type unknownTagsForm struct{}

func (unknownTagsForm) write(w *jsonWriter, _ *kwire.Field, v reflect.Value) {
	w.buf = append(w.buf, '[')
	for i, t := range v.Interface().(kwire.UnknownTags).Fields() {
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

func (unknownTagsForm) read(r *jsonReader, _ *kwire.Field, v reflect.Value, t json.Token) error {
	if t != json.Delim('[') {
		return r.mismatch("an array of {\"Tag\",\"Data\"}", t)
	}
	n, err := r.sized(reflect.TypeOf(kwire.TaggedField{}).Size())
	if err != nil {
		return err
	}
	fields := make([]kwire.TaggedField, 0, n)
	err = r.array(n, func(_ int, t json.Token) error {
		if t != json.Delim('{') {
			return r.mismatch(`{"Tag":N,"Data":"base64"}`, t)
		}
		var tf kwire.TaggedField
		err := r.fields(func(key string, t json.Token) error {
			switch key {
			case "Tag":
				n, err := r.int(t, 33)
				if err == nil && (n < 0 || n > math.MaxUint32) {
					err = r.fail(kwire.ErrValueOutOfRange, "tag %d is not a uint32", n)
				}
				tf.Tag = uint32(n)
				return err
			case "Data":
				b, err := r.base64(t)
				tf.Data = b
				return err
			}
			return r.unknownKey(key, "Tag, Data")
		})
		if tf.Data == nil {
			tf.Data = []byte{}
		}
		fields = append(fields, tf)
		return err
	})
	tags := v.Addr().Interface().(*kwire.UnknownTags)
	tags.Set(fields...)
	return err
}

// base64 reads a standard base64 string.
func (r *jsonReader) base64(t json.Token) ([]byte, error) {
	s, ok := t.(string)
	if !ok {
		return nil, r.mismatch("a base64 string", t)
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, r.fail(ErrJSONValue, "not standard base64: %v", err)
	}
	return b, nil
}
