package main

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// description is how the proxy shows a decoded message: a one-line
// summary, the non-zero error codes with their paths, and a JSON body.
type description struct {
	Summary string
	Errors  []string
	Body    json.RawMessage
}

// describe is the one place the proxy turns a message into text; the
// JSON body only when asked for (it is the costly part).
func describe(msg any, version int16, body bool) description {
	var d description
	v := reflect.ValueOf(msg).Elem()
	d.Summary = fmt.Sprintf("%s v%d", v.Type().Name(), version)
	for i := range v.NumField() {
		f, fv := v.Type().Field(i), v.Field(i)
		if !f.IsExported() || f.Name == "UnknownTags" {
			continue
		}
		switch fv.Kind() {
		case reflect.Slice:
			if fv.Len() > 0 && fv.Type().Elem().Kind() != reflect.Uint8 {
				d.Summary += fmt.Sprintf(" %s=%d", f.Name, fv.Len())
			}
		case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			if fv.Int() != 0 {
				d.Summary += fmt.Sprintf(" %s=%d", f.Name, fv.Int())
			}
		case reflect.String:
			if fv.Len() > 0 {
				d.Summary += fmt.Sprintf(" %s=%q", f.Name, fv.String())
			}
		}
	}
	findErrorCodes(v, "", &d.Errors)
	if body {
		d.Body, _ = json.Marshal(msg)
	}
	return d
}

func findErrorCodes(v reflect.Value, path string, out *[]string) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			findErrorCodes(v.Elem(), path, out)
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Struct {
			for i := range v.Len() {
				findErrorCodes(v.Index(i), fmt.Sprintf("%s[%d]", path, i), out)
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			p := strings.TrimPrefix(path+"."+f.Name, ".")
			if f.Type.Kind() == reflect.Int16 && strings.HasSuffix(f.Name, "ErrorCode") {
				if c := v.Field(i).Int(); c != 0 {
					*out = append(*out, fmt.Sprintf("%s = %d", p, c))
				}
				continue
			}
			findErrorCodes(v.Field(i), p, out)
		}
	}
}
