package trafficlog

import (
	"reflect"
	"strconv"
	"strings"

	"github.com/kwirelabs/kwire/app/typereach"
)

// secretBytes are the []byte fields that carry credentials in Kafka's
// messages: SASL exchanges (SaslAuthenticate), delegation-token HMACs
// (CreateDelegationToken, DescribeDelegationToken, RenewDelegationToken,
// ExpireDelegationToken), SCRAM credentials being set
// (AlterUserScramCredentials), and whole forwarded requests and responses
// (Envelope), which may be any of those.
var secretBytes = map[string]bool{
	"AuthBytes": true, "Hmac": true, "Salt": true, "SaltedPassword": true,
	"RequestData": true, "ResponseData": true,
}

// SensitiveConfig reports whether a config's value should stay out of
// logs: passwords, secrets, JAAS configs (which embed passwords),
// credentials, and keys (ssl.keystore.key, delegation.token.secret.key).
// Kafka marks such configs PASSWORD and never returns their values; a
// request setting one carries the value in the clear.
func SensitiveConfig(name string) bool {
	n := strings.ToLower(name)
	for _, s := range []string{"password", "secret", "jaas", "credential", "user.info"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	return strings.HasSuffix(n, ".key") || strings.HasSuffix(n, "_key")
}

// maxRedactedPaths bounds the paths Redact names; the rest are counted.
const maxRedactedPaths = 8

// Redact returns msg with every secret left out, and the paths of the
// fields it cleared ("AuthBytes", "Tokens[2].Hmac",
// "Resources[0].Configs[1].Value"). msg itself is never changed: the
// parts holding a secret are copied, the rest shared. Secret bytes
// become nil, secret config values null (or "" where the field is not a
// pointer). A message without secrets comes back as it is, at the cost
// of one map lookup.
func Redact(msg any) (any, []string) {
	v := reflect.ValueOf(msg)
	if !v.IsValid() || !mayHoldSecrets(v.Type()) {
		return msg, nil
	}
	r := redactor{limit: maxRedactedPaths}
	out, changed := r.value(v, "")
	if !changed {
		return msg, nil
	}
	paths := make([]string, len(r.fields))
	for i, f := range r.fields {
		paths[i] = f.Path
	}
	if r.more > 0 {
		paths = append(paths, "(and "+strconv.Itoa(r.more)+" more)")
	}
	return out.Interface(), paths
}

// SecretField is one value Redact clears: its path in the message, as
// Redact names it, and its length in bytes.
type SecretField struct {
	Path string
	Len  int
}

// SecretFields lists every value of msg that Redact clears, all of them,
// for a view that shows the message some other way (a byte layout) and
// must blank the same values.
func SecretFields(msg any) []SecretField {
	v := reflect.ValueOf(msg)
	if !v.IsValid() || !mayHoldSecrets(v.Type()) {
		return nil
	}
	var r redactor
	r.value(v, "")
	return r.fields
}

// redactor collects what it clears; past limit (when set) it only counts.
type redactor struct {
	fields []SecretField
	limit  int
	more   int
}

func (r *redactor) note(path string, n int) {
	if r.limit == 0 || len(r.fields) < r.limit {
		r.fields = append(r.fields, SecretField{path, n})
	} else {
		r.more++
	}
}

// value returns v with its secrets cleared, and whether it had any; when
// it had, the returned value is a copy.
func (r *redactor) value(v reflect.Value, path string) (reflect.Value, bool) {
	t := v.Type()
	if !mayHoldSecrets(t) {
		return v, false
	}
	switch t.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return v, false
		}
		e, changed := r.value(v.Elem(), path)
		if !changed {
			return v, false
		}
		p := reflect.New(t.Elem())
		p.Elem().Set(e)
		return p, true
	case reflect.Slice:
		var out reflect.Value
		for i := range v.Len() {
			e, changed := r.value(v.Index(i), path+"["+strconv.Itoa(i)+"]")
			if !changed {
				continue
			}
			if !out.IsValid() {
				out = reflect.MakeSlice(t, v.Len(), v.Len())
				reflect.Copy(out, v)
			}
			out.Index(i).Set(e)
		}
		return out, out.IsValid()
	case reflect.Struct:
		return r.structValue(v, path)
	}
	return v, false
}

func (r *redactor) structValue(v reflect.Value, path string) (reflect.Value, bool) {
	t := v.Type()
	var out reflect.Value
	set := func(i int, x reflect.Value) {
		if !out.IsValid() {
			out = reflect.New(t).Elem()
			out.Set(v)
		}
		out.Field(i).Set(x)
	}
	prefix := path
	if prefix != "" {
		prefix += "."
	}
	if i, ok := configValueField(t); ok && SensitiveConfig(v.FieldByName("Name").String()) {
		if f := v.Field(i); !f.IsZero() {
			set(i, reflect.Zero(f.Type()))
			r.note(prefix+"Value", len(reflect.Indirect(f).String()))
		}
	}
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		f := v.Field(i)
		if isSecretBytes(sf) {
			if f.Len() > 0 {
				set(i, reflect.Zero(sf.Type))
				r.note(prefix+sf.Name, f.Len())
			}
			continue
		}
		if x, changed := r.value(f, prefix+sf.Name); changed {
			set(i, x)
		}
	}
	return out, out.IsValid()
}

func isSecretBytes(sf reflect.StructField) bool {
	return secretBytes[sf.Name] && sf.Type.Kind() == reflect.Slice && sf.Type.Elem().Kind() == reflect.Uint8
}

// configValueField finds the Value field of a config entry: a struct
// with a string Name and a string or *string Value.
func configValueField(t reflect.Type) (int, bool) {
	n, okn := t.FieldByName("Name")
	v, okv := t.FieldByName("Value")
	if !okn || !okv || n.Type.Kind() != reflect.String || len(v.Index) != 1 {
		return 0, false
	}
	vt := v.Type
	if vt.Kind() == reflect.Pointer {
		vt = vt.Elem()
	}
	return v.Index[0], vt.Kind() == reflect.String
}

// secretTypes finds the types that can hold a secret, so Redact skips the
// rest (records, partitions) without looking.
var secretTypes = typereach.New(holdsSecret)

// mayHoldSecrets reports whether values of t can hold a secret.
func mayHoldSecrets(t reflect.Type) bool { return secretTypes.CanHold(t) }

// holdsSecret reports whether struct t has a secret of its own: it is a
// config entry, or has a secret bytes field.
func holdsSecret(t reflect.Type) bool {
	if _, ok := configValueField(t); ok {
		return true
	}
	for i := range t.NumField() {
		if sf := t.Field(i); sf.IsExported() && isSecretBytes(sf) {
			return true
		}
	}
	return false
}
