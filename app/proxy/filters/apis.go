package filters

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/kwirelabs/kwire/app/proxy"
	"github.com/kwirelabs/kwire/app/trafficlog"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/kerr"
	"github.com/kwirelabs/kwire/messages"
)

// APIPolicy refuses requests by API key: a refused request is answered
// by the proxy with its API's own response, CLUSTER_AUTHORIZATION_FAILED
// in every error code the response has for what the request named (each
// topic, partition, group... as a broker answers a request it refuses),
// and the key is removed from ApiVersions answers so that clients do not
// try it. The APIs a client needs to connect (ApiVersions,
// SaslHandshake, SaslAuthenticate) are always allowed.
type APIPolicy struct {
	refused func(key int16) bool
	flag    string // how the policy was given, for the error message
}

// alwaysAllowed are the APIs no policy refuses: without them a client
// cannot connect at all.
var alwaysAllowed = map[int16]bool{17: true, 18: true, 36: true}

// DenyAPIs refuses the given API keys.
func DenyAPIs(keys ...int16) (*APIPolicy, error) {
	deny := map[int16]bool{}
	for _, k := range keys {
		if alwaysAllowed[k] {
			return nil, fmt.Errorf("%s cannot be denied: clients need it to connect", trafficlog.APIName(k))
		}
		deny[k] = true
	}
	return &APIPolicy{refused: func(k int16) bool { return deny[k] }, flag: "-deny-api"}, nil
}

// AllowAPIs refuses every API key but the given ones (and those a client
// needs to connect).
func AllowAPIs(keys ...int16) *APIPolicy {
	allow := map[int16]bool{}
	for _, k := range keys {
		allow[k] = true
	}
	return &APIPolicy{refused: func(k int16) bool { return !allow[k] && !alwaysAllowed[k] }, flag: "-allow-api"}
}

// Refuses says whether the policy refuses an API key.
func (a *APIPolicy) Refuses(key int16) bool { return a.refused(key) }

func (a *APIPolicy) Request(c *proxy.Conn, r *proxy.Request) proxy.Action {
	key := r.Header.APIKey
	if !a.refused(key) {
		return proxy.Pass
	}
	why := trafficlog.APIName(key) + " is refused by the proxy's " + a.flag + " policy"
	return RefuseRequest(r, kerr.ClusterAuthorizationFailed, why)
}

func (a *APIPolicy) Response(c *proxy.Conn, r *proxy.Response) proxy.Action {
	av, ok := r.Body.(*messages.ApiVersionsResponse)
	if !ok {
		return proxy.Pass
	}
	kept := av.ApiKeys[:0]
	for _, k := range av.ApiKeys {
		if !a.refused(k.ApiKey) {
			kept = append(kept, k)
		}
	}
	if len(kept) != len(av.ApiKeys) {
		av.ApiKeys = kept
		r.Changed()
	}
	return proxy.Pass
}

// RefuseRequest answers a request with its API's response refusing all
// of it: code in the top-level error fields, and an entry with code for
// each thing the request names (a topic, its partitions, a group, a
// resource), built from the request as a broker builds its answer to a
// request it refuses as a whole; why goes in each ErrorMessage. A request
// whose response has nowhere to put an error closes the connection.
func RefuseRequest(r *proxy.Request, code kerr.Code, why string) proxy.Action {
	if _, ok := r.Body.(*messages.ProduceRequest); ok {
		return RefuseProduce(r, func(string, kwire.UUID, int32, []byte) *Refusal { return &Refusal{code, why} })
	}
	resp, err := refusal(r, code, why)
	if err != nil {
		return proxy.CloseConn(why + " (" + err.Error() + ")")
	}
	return proxy.Answer(resp)
}

// refusal is the response refusing all of r.
func refusal(r *proxy.Request, code kerr.Code, why string) (any, error) {
	resp, err := r.NewResponse()
	if err != nil {
		return nil, err
	}
	if d, ok := resp.(interface{ Default() }); ok {
		d.Default()
	}
	if !refuseInto(reflect.ValueOf(resp).Elem(), reflect.ValueOf(r.Body).Elem(), r.Header.APIVersion, int16(code), why) {
		return nil, errors.New("its response has no error code to say so")
	}
	notNull(reflect.ValueOf(resp).Elem(), r.Header.APIVersion)
	return resp, nil
}

// notNull gives each nil string of v that the version does not let be
// null the empty string, as a broker's answer has.
func notNull(v reflect.Value, version int16) {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() || !inVersion(f, version) {
				continue
			}
			if fv := v.Field(i); f.Type == reflect.TypeFor[*string]() && fv.IsNil() && !nullableIn(f, version) {
				fv.Set(reflect.ValueOf(new(string)))
			} else {
				notNull(fv, version)
			}
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Struct {
			for i := range v.Len() {
				notNull(v.Index(i), version)
			}
		}
	}
}

// refuseInto fills resp, a response struct, from req, the request struct
// it answers, at a version: error codes and messages set, and for each
// list of results in resp one entry per element of the request's matching
// lists, with the fields of the same name copied (Name, PartitionIndex,
// TopicId...). Fields the version lacks are left alone. It reports
// whether resp can carry the error.
func refuseInto(resp, req reflect.Value, version, code int16, why string) bool {
	ok := false
	t := resp.Type()
	for i := range t.NumField() {
		f, v := t.Field(i), resp.Field(i)
		if !f.IsExported() || !inVersion(f, version) {
			continue
		}
		switch {
		case f.Type.Kind() == reflect.Int16 && strings.HasSuffix(f.Name, "ErrorCode"):
			v.SetInt(int64(code))
			ok = true
		case f.Name == "ErrorMessage" && f.Type == reflect.TypeFor[*string]():
			v.Set(reflect.ValueOf(&why))
		case f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() == reflect.Struct && carriesError(f.Type.Elem()):
			srcs := matchingLists(req, f.Name, version)
			if srcs == nil {
				continue
			}
			ok = true
			out := reflect.MakeSlice(f.Type, 0, 0)
			for _, src := range srcs {
				for j := range src.Len() {
					ep := reflect.New(f.Type.Elem())
					if d, ok := ep.Interface().(interface{ Default() }); ok {
						d.Default()
					}
					e := ep.Elem()
					copySame(e, src.Index(j), version)
					if s := src.Index(j); s.Kind() == reflect.Struct {
						refuseInto(e, s, version, code, why)
					} else {
						refuseInto(e, reflect.Value{}, version, code, why)
					}
					out = reflect.Append(out, e)
				}
			}
			v.Set(out)
		}
	}
	return ok
}

// carriesError says whether a response element type has an error code,
// itself or in its lists.
func carriesError(t reflect.Type) bool {
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Type.Kind() == reflect.Int16 && strings.HasSuffix(f.Name, "ErrorCode") {
			return true
		}
		if f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() == reflect.Struct && f.Type.Elem() != t && carriesError(f.Type.Elem()) {
			return true
		}
	}
	return false
}

// matchingLists finds the request's lists that a response list answers:
// the one of the same name, else all the request's lists at the version
// (AlterUserScramCredentials answers its deletions and upsertions in one
// list of results).
func matchingLists(req reflect.Value, name string, version int16) []reflect.Value {
	if !req.IsValid() {
		return nil
	}
	if f, ok := req.Type().FieldByName(name); ok && f.Type.Kind() == reflect.Slice && inVersion(f, version) {
		return []reflect.Value{req.FieldByIndex(f.Index)}
	}
	var lists []reflect.Value
	for i := range req.NumField() {
		f := req.Type().Field(i)
		if f.IsExported() && f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() != reflect.Uint8 && inVersion(f, version) {
			lists = append(lists, req.Field(i))
		}
	}
	return lists
}

// inVersion says whether a message field is in the version: its kafka
// tag's v= range ("3+", "0-5", "2") holds it.
func inVersion(f reflect.StructField, version int16) bool { return tagRange(f, "v=", version) }

// nullableIn says whether the field may be null at the version.
func nullableIn(f reflect.StructField, version int16) bool {
	return tagRange(f, "nullable=", version)
}

// tagRange says whether the version range the kafka tag gives under key
// holds version.
func tagRange(f reflect.StructField, key string, version int16) bool {
	tag, ok := f.Tag.Lookup("kafka")
	if !ok {
		return false
	}
	for _, item := range strings.Split(tag, ",") {
		r, ok := strings.CutPrefix(item, key)
		if !ok {
			continue
		}
		lo, hi, ranged := strings.Cut(r, "-")
		open := strings.HasSuffix(lo, "+")
		lo = strings.TrimSuffix(lo, "+")
		first, err := strconv.Atoi(lo)
		if err != nil {
			return false
		}
		switch {
		case open:
			return int(version) >= first
		case ranged:
			last, err := strconv.Atoi(hi)
			return err == nil && int(version) >= first && int(version) <= last
		default:
			return int(version) == first
		}
	}
	return false
}

// sameAs are request field names whose value a response names
// differently.
var sameAs = map[string][]string{
	"PartitionIndex": {"Partition", "Index"},
	"Name":           {"Topic", "TopicName", "GroupID", "GroupId"},
	"ResourceName":   {"Name"},
}

// copySame copies into dst (a response element) the fields src (a
// request element, or a string naming one) has under the same name and
// type, both in the version; a string src is dst's Name.
func copySame(dst, src reflect.Value, version int16) {
	if src.Kind() == reflect.String {
		if f, ok := dst.Type().FieldByName("Name"); ok && inVersion(f, version) {
			setName(dst.FieldByIndex(f.Index), src.String())
		}
		return
	}
	if src.Kind() != reflect.Struct {
		return
	}
	t := dst.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() || !inVersion(f, version) || f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() != reflect.Uint8 {
			continue
		}
		for _, name := range append([]string{f.Name}, sameAs[f.Name]...) {
			if sf, ok := src.Type().FieldByName(name); ok && sf.Type == f.Type && inVersion(sf, version) {
				dst.Field(i).Set(src.FieldByIndex(sf.Index))
				break
			}
		}
	}
}

func setName(v reflect.Value, name string) {
	switch {
	case !v.IsValid():
	case v.Kind() == reflect.String:
		v.SetString(name)
	case v.Type() == reflect.TypeFor[*string]():
		v.Set(reflect.ValueOf(&name))
	}
}
