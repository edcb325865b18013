package proxy

import (
	"fmt"
	"net"
	"reflect"
	"strconv"

	"github.com/kwirelabs/kwire/app/typereach"
)

// rewriteAddresses points every broker address in msg at the proxy: any
// struct with a Host string and an int32 Port, which is how Kafka's
// schemas describe a broker to clients (Metadata, FindCoordinator,
// DescribeCluster, and the leader endpoints of Produce, Fetch,
// ShareFetch and ShareAcknowledge). Endpoints with a uint16 port are
// other things (Kafka Streams application endpoints, Raft voters) and are
// left alone. It returns how many addresses it changed.
func rewriteAddresses(msg any, localFor func(upstream string) (string, error)) (int, error) {
	v := reflect.ValueOf(msg)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return 0, nil
	}
	n := 0
	err := walkEndpoints(v.Elem(), func(host, port reflect.Value) error {
		if host.String() == "" || port.Int() <= 0 {
			return nil // no coordinator, say
		}
		local, err := localFor(net.JoinHostPort(host.String(), strconv.Itoa(int(port.Int()))))
		if err != nil {
			return err
		}
		h, ps, err := net.SplitHostPort(local)
		if err != nil {
			return err
		}
		p, err := strconv.Atoi(ps)
		if err != nil {
			return fmt.Errorf("local port %q: %v", ps, err)
		}
		if h != host.String() || int64(p) != port.Int() {
			host.SetString(h)
			port.SetInt(int64(p))
			n++
		}
		return nil
	})
	return n, err
}

// walkEndpoints calls fn for every (Host, Port) pair in v, depth first.
func walkEndpoints(v reflect.Value, fn func(host, port reflect.Value) error) error {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() && hasEndpoints(v.Type().Elem()) {
			return walkEndpoints(v.Elem(), fn)
		}
	case reflect.Slice:
		if hasEndpoints(v.Type().Elem()) {
			for i := range v.Len() {
				if err := walkEndpoints(v.Index(i), fn); err != nil {
					return err
				}
			}
		}
	case reflect.Struct:
		if !hasEndpoints(v.Type()) {
			return nil
		}
		if host, port := v.FieldByName("Host"), v.FieldByName("Port"); isEndpoint(v.Type()) {
			if err := fn(host, port); err != nil {
				return err
			}
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				if err := walkEndpoints(v.Field(i), fn); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func isEndpoint(t reflect.Type) bool {
	h, okh := t.FieldByName("Host")
	p, okp := t.FieldByName("Port")
	return okh && okp && h.Type.Kind() == reflect.String && p.Type.Kind() == reflect.Int32
}

// endpointTypes finds the types that can hold an endpoint, so the walk
// skips the rest (partitions, records) without looking.
var endpointTypes = typereach.New(isEndpoint)

// hasEndpoints reports whether values of t can hold an endpoint.
func hasEndpoints(t reflect.Type) bool { return endpointTypes.CanHold(t) }
