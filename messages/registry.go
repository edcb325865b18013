// Package messages holds tagged structs for the Kafka APIs and a registry
// of them by API key. The structs are encoded by package kwire.
package messages

import (
	"fmt"
	"reflect"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/kwirelabs/kwire/kwire"
)

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

// Registry maps API keys to APIs. Reads take no lock (a registry is an
// immutable table swapped whole on Register), so ReadRequest stays cheap.
// The zero Registry is empty; NewRegistry holds Kafka's APIs.
type Registry struct {
	mu    sync.Mutex // serialises Register
	table atomic.Pointer[apiTable]
}

type apiTable struct {
	byKey  map[int16]API
	sorted []API
	// replaced maps a key Replace gave to another API to the API the key
	// held before the first replacement (Apache's, in a dialect).
	replaced map[int16]API
	headers  map[int16]*apiHeaders
}

// apiHeaders are an API's header tables, read from its structs' tags the
// first time they are asked for.
type apiHeaders struct {
	once              sync.Once
	request, response kwire.HeaderVersions
}

// Default is the registry the package-level functions (Lookup, APIs,
// ReadRequest, Register, ...) use, and so the kwire tool's decode.
var Default = NewRegistry()

// NewRegistry returns a registry of every Kafka API this package has.
func NewRegistry() *Registry {
	r := &Registry{}
	r.table.Store(newTable(apis))
	return r
}

// Clone returns a registry holding the APIs r holds now; what is
// registered with either afterwards is not seen by the other. A tool
// adds its own APIs to a clone of Default, leaving Default as it was.
func (r *Registry) Clone() *Registry {
	c := &Registry{}
	c.table.Store(r.load()) // tables are never changed, only replaced
	return c
}

func newTable(list []API) *apiTable {
	t := &apiTable{byKey: make(map[int16]API, len(list)), sorted: append([]API(nil), list...), headers: make(map[int16]*apiHeaders, len(list))}
	for _, a := range list {
		t.byKey[a.Key] = a
		t.headers[a.Key] = new(apiHeaders)
	}
	sort.Slice(t.sorted, func(i, j int) bool { return t.sorted[i].Key < t.sorted[j].Key })
	return t
}

func (r *Registry) load() *apiTable {
	if t := r.table.Load(); t != nil {
		return t
	}
	return &apiTable{}
}

// Lookup returns the API with the given key.
func (r *Registry) Lookup(key int16) (API, bool) {
	a, ok := r.load().byKey[key]
	return a, ok
}

// HeaderVersions returns the header versions version v of the API at
// key travels with, as a request and as a response: the tables of its
// structs (kwire.MessageInfo's RequestHeaders and ResponseHeaders), which
// AppendRequest, ReadRequest and ReadResponse choose headers by too. ok
// is false when the registry has no API at key.
func (r *Registry) HeaderVersions(key, v int16) (request, response int16, ok bool) {
	t := r.load()
	a, ok := t.byKey[key]
	if !ok {
		return -1, -1, false
	}
	h := t.headers[key]
	h.once.Do(func() {
		// Register checked both structs' tags: Describe cannot fail.
		req, _ := kwire.MessageInfoOf(a.NewRequest())
		resp, _ := kwire.MessageInfoOf(a.NewResponse())
		h.request, h.response = req.RequestHeaders, resp.ResponseHeaders
	})
	return h.request.At(v), h.response.At(v), true
}

// APIs returns every API of the registry, sorted by key.
func (r *Registry) APIs() []API { return append([]API(nil), r.load().sorted...) }

// Register adds a request/response pair under api.Key, after checking
// that both structs have valid tags (kwire.Validate) that agree with api:
// the API key if they name one, every version MinVersion-MaxVersion, and
// the flexible versions from FlexibleFrom. A key already taken is an
// error. Register may run while other goroutines read the registry: they
// see the table before or after, never half of one. NewAPI fills api in
// from the structs' own tags.
func (r *Registry) Register(api API) error {
	if err := checkAPI(api); err != nil {
		return fmt.Errorf("messages: register %s (key %d): %w", api.Name, api.Key, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.load()
	if a, ok := old.byKey[api.Key]; ok {
		return fmt.Errorf("messages: register %s: key %d is %s already (Replace puts a vendor's API in its place)", api.Name, api.Key, a.Name)
	}
	t := newTable(append(old.sorted, api))
	t.replaced = old.replaced
	r.table.Store(t)
	return nil
}

// Replace puts api at api.Key in place of the API the registry holds
// there, and returns that API. It is how a registry speaks a dialect:
// a vendor's fork that gives one of Apache's keys to an API of its own
// (Aiven's Inkless defines DisklessCommit as key 93, which Apache gave to
// StreamsGroupTopologyDescriptionUpdate). Register refuses such a
// collision, so a replacement happens only when asked for; a key that is
// free is an error here (Register adds it). api is checked as Register
// checks it. Replaced and ReplacedKeys say afterwards which keys no
// longer mean what they mean to Apache, for code (release.GuessIgnoring,
// a proxy's -as-kafka) that reads a key as Apache's.
func (r *Registry) Replace(api API) (API, error) {
	if err := checkAPI(api); err != nil {
		return API{}, fmt.Errorf("messages: replace with %s (key %d): %w", api.Name, api.Key, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.load()
	prev, ok := old.byKey[api.Key]
	if !ok {
		return API{}, fmt.Errorf("messages: replace with %s: no API holds key %d (Register adds it)", api.Name, api.Key)
	}
	list := make([]API, 0, len(old.sorted))
	for _, a := range old.sorted {
		if a.Key != api.Key {
			list = append(list, a)
		}
	}
	t := newTable(append(list, api))
	t.replaced = make(map[int16]API, len(old.replaced)+1)
	for k, a := range old.replaced {
		t.replaced[k] = a
	}
	if _, again := t.replaced[api.Key]; !again {
		t.replaced[api.Key] = prev
	}
	r.table.Store(t)
	return prev, nil
}

// Replaced returns the API key held before Replace gave it to another
// API (the first one, if it was replaced twice), and whether it was.
func (r *Registry) Replaced(key int16) (API, bool) {
	a, ok := r.load().replaced[key]
	return a, ok
}

// ReplacedKeys lists, ascending, the keys Replace gave to other APIs.
func (r *Registry) ReplacedKeys() []int16 {
	t := r.load()
	keys := make([]int16, 0, len(t.replaced))
	for k := range t.replaced {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	return keys
}

// checkAPI checks api against the tags of its request and response.
func checkAPI(api API) error {
	if api.Name == "" || api.NewRequest == nil || api.NewResponse == nil {
		return fmt.Errorf("an API needs a Name, NewRequest and NewResponse")
	}
	if api.MinVersion < 0 || api.MaxVersion < api.MinVersion {
		return fmt.Errorf("versions %d-%d", api.MinVersion, api.MaxVersion)
	}
	for _, newMsg := range []func() any{api.NewRequest, api.NewResponse} {
		msg := newMsg()
		if v := reflect.ValueOf(msg); v.Kind() != reflect.Pointer || v.IsNil() {
			return fmt.Errorf("%T: the constructors must return non-nil pointers to structs", msg)
		}
		info, err := kwire.MessageInfoOf(msg)
		if err != nil {
			return err
		}
		switch {
		case info.APIKey >= 0 && info.APIKey != api.Key:
			return fmt.Errorf("%T says api=%d", msg, info.APIKey)
		case !info.Versions.Contains(api.MinVersion) || !info.Versions.Contains(api.MaxVersion):
			return fmt.Errorf("%T has versions=%s, not all of %d-%d", msg, info.Versions, api.MinVersion, api.MaxVersion)
		}
		for v := int(api.MinVersion); v <= int(api.MaxVersion); v++ { // int: v++ past 32767 would wrap
			if info.Flexible.Contains(int16(v)) != api.IsFlexible(int16(v)) {
				return fmt.Errorf("%T has flexible=%s, but FlexibleFrom is %d", msg, info.Flexible, api.FlexibleFrom)
			}
		}
	}
	return nil
}

// NewAPI describes the API of a request/response pair from their struct
// tags: the key from api=K, the versions both declare, and the first
// flexible one. The result can be given to Register.
func NewAPI(name string, newRequest, newResponse func() any) (API, error) {
	api := API{Name: name, NewRequest: newRequest, NewResponse: newResponse, FlexibleFrom: -1}
	if newRequest == nil || newResponse == nil {
		return api, fmt.Errorf("messages: NewAPI %s: nil constructor", name)
	}
	req, err := kwire.MessageInfoOf(newRequest())
	if err != nil {
		return api, err
	}
	resp, err := kwire.MessageInfoOf(newResponse())
	if err != nil {
		return api, err
	}
	if req.APIKey < 0 {
		return api, fmt.Errorf("messages: NewAPI %s: the request struct names no API key (api=K on its _ field)", name)
	}
	api.Key = req.APIKey
	api.MinVersion = max(req.Versions.Min, resp.Versions.Min)
	api.MaxVersion = min(req.Versions.Max, resp.Versions.Max)
	if api.MaxVersion < api.MinVersion || api.MaxVersion == kwire.AllVersions.Max {
		return api, fmt.Errorf("messages: NewAPI %s: the request (versions=%s) and response (versions=%s) share no bounded range", name, req.Versions, resp.Versions)
	}
	for v := api.MinVersion; v <= api.MaxVersion; v++ {
		if req.Flexible.Contains(v) {
			api.FlexibleFrom = v
			break
		}
	}
	return api, checkAPI(api)
}

// Register adds an API to the Default registry (see Registry.Register).
func Register(api API) error { return Default.Register(api) }

// APIs returns every API of the Default registry, sorted by key.
func APIs() []API { return Default.APIs() }

// Lookup returns the API with the given key from the Default registry.
func Lookup(key int16) (API, bool) { return Default.Lookup(key) }
