package interop

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/kwirelabs/kwire/kwire"
)

// kmsgNullBeyondSchema lists byte fields kmsg declares nullable in
// versions where Kafka's schema does not: kmsg writes a nil one as null,
// which kwire (following the schema) refuses. The random kmsg instances
// of these bodies get empty bytes instead of nil there, so the rest of
// the body is still compared; TestKmsgNullBeyondSchema checks the
// departure itself and fails if kmsg stops writing the null. Keyed by
// kmsg struct and field name. See README.md.
var kmsgNullBeyondSchema = map[exclusion]map[string]bool{
	// Kafka's ShareFetchResponse.json: Records "nullableVersions": "0".
	{78, 1, true}: {"ShareFetchResponseTopicPartition.Records": true},
	{78, 2, true}: {"ShareFetchResponseTopicPartition.Records": true},
}

// setNullsEmpty replaces nil in the listed []byte fields, anywhere in
// the message, with empty bytes.
func setNullsEmpty(rv reflect.Value, fields map[string]bool) {
	switch rv.Kind() {
	case reflect.Pointer:
		if !rv.IsNil() {
			setNullsEmpty(rv.Elem(), fields)
		}
	case reflect.Slice:
		for i := 0; i < rv.Len() && rv.Type() != bytesType; i++ {
			setNullsEmpty(rv.Index(i), fields)
		}
	case reflect.Struct:
		t := rv.Type()
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			if !sf.IsExported() {
				continue
			}
			fv := rv.Field(i)
			if fields[t.Name()+"."+sf.Name] && fv.Type() == bytesType && fv.IsNil() {
				fv.SetBytes([]byte{})
				continue
			}
			setNullsEmpty(fv, fields)
		}
	}
}

// Each listed field: kmsg's smallest instance with the field nil is
// written with a null there, and kwire refuses it with ErrNullNotAllowed
// at that field.
func TestKmsgNullBeyondSchema(t *testing.T) {
	meta, err := kmsgMeta()
	if err != nil {
		t.Fatal(err)
	}
	both, _, _ := sides(t)
	checked := 0
	for _, s := range both {
		fields := kmsgNullBeyondSchema[exclusion{s.api.Key, s.v, s.resp}]
		if fields == nil {
			continue
		}
		km := s.kmsgMsg()
		root := reflect.ValueOf(km).Elem()
		kmsgMinimal(root, meta, 0)
		nilFields(root, fields)
		km.SetVersion(s.v)
		err := kwire.Unmarshal(km.AppendTo(nil), s.kwireMsg(), s.v)
		if !errors.Is(err, kwire.ErrNullNotAllowed) || !strings.Contains(err.Error(), ".Records") {
			t.Errorf("%s: kwire read kmsg's nil %v with %v; want ErrNullNotAllowed (has kmsg stopped writing null? then remove the entry)", s, fields, err)
			continue
		}
		checked++
	}
	if checked != len(kmsgNullBeyondSchema) {
		t.Errorf("checked %d of %d entries", checked, len(kmsgNullBeyondSchema))
	}
}

// nilFields sets the listed []byte fields to nil, anywhere in the message.
func nilFields(rv reflect.Value, fields map[string]bool) {
	switch rv.Kind() {
	case reflect.Pointer:
		if !rv.IsNil() {
			nilFields(rv.Elem(), fields)
		}
	case reflect.Slice:
		for i := 0; i < rv.Len() && rv.Type() != bytesType; i++ {
			nilFields(rv.Index(i), fields)
		}
	case reflect.Struct:
		t := rv.Type()
		for i := 0; i < t.NumField(); i++ {
			if sf := t.Field(i); sf.IsExported() {
				if fields[t.Name()+"."+sf.Name] && sf.Type == bytesType {
					rv.Field(i).SetBytes(nil)
					continue
				}
				nilFields(rv.Field(i), fields)
			}
		}
	}
}
