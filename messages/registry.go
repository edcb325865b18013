// Package messages holds tagged structs for the Kafka APIs and a registry
// of them by API key. The structs are encoded by package kwire.
package messages

import "sort"

// API describes one Kafka API: its key, name, valid versions and how to
// make its request and response structs.
type API struct {
	Key                    int16
	Name                   string // "ConsumerGroupHeartbeat"
	MinVersion, MaxVersion int16
	// FlexibleFrom is the first flexible version of both request and
	// response, or -1 if the API has none.
	FlexibleFrom int16
	// LatestVersionUnstable says the schema marks MaxVersion unstable
	// (still under development; brokers do not offer it by default).
	LatestVersionUnstable   bool
	NewRequest, NewResponse func() any // pointers to new zero structs
}

// MaxStable is the newest version a broker or client should offer by
// default: MaxVersion, or the one before it when that is unstable.
func (a API) MaxStable() int16 {
	if a.LatestVersionUnstable {
		return a.MaxVersion - 1
	}
	return a.MaxVersion
}

// IsFlexible reports whether version v of the API is a flexible version.
func (a API) IsFlexible(v int16) bool { return a.FlexibleFrom >= 0 && v >= a.FlexibleFrom }

var byKey = func() map[int16]API {
	m := make(map[int16]API, len(apis))
	for _, a := range apis {
		m[a.Key] = a
	}
	return m
}()

// APIs returns every API this package knows, sorted by key.
func APIs() []API {
	out := append([]API(nil), apis...)
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// Lookup returns the API with the given key.
func Lookup(key int16) (API, bool) {
	a, ok := byKey[key]
	return a, ok
}
