package gen

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// Hand-written twins of testdata/vendorping, tagged as the kafka tag
// grammar documents, independently of the generator.
type pingProbe struct {
	ProbeID     int64   `kafka:"v=0+"`
	Label       *string `kafka:"v=1+,nullable=1+"`
	UnknownTags kwire.UnknownTags
}

type pingRequest struct {
	_           struct{}    `kafka:"api=10000,versions=0-2,flexible=1+"`
	Target      string      `kafka:"v=0+"`
	TimeoutMs   int32       `kafka:"v=0+,default=5000"`
	Probes      []pingProbe `kafka:"v=0+"`
	TraceID     kwire.UUID  `kafka:"v=2+"`
	Note        *string     `kafka:"v=1+,nullable=1+,tag=0,tagged=1+,default=null"`
	UnknownTags kwire.UnknownTags
}

type pingResponse struct {
	_           struct{} `kafka:"api=10000,versions=0-2,flexible=1+"`
	ErrorCode   int16    `kafka:"v=0+"`
	RoundTrips  []int32  `kafka:"v=0+"`
	Hops        int32    `kafka:"v=1+,tag=3,tagged=1+"`
	UnknownTags kwire.UnknownTags
}

// copyInto sets dst (a pointer to a run-time struct) field by field, by
// name, from src: the dynamic value is built without kwire's help.
func copyInto(t *testing.T, dst, src reflect.Value) {
	t.Helper()
	switch src.Kind() {
	case reflect.Struct:
		if src.Type() == reflect.TypeFor[kwire.UUID]() {
			dst.Set(src)
			return
		}
		for i := 0; i < src.NumField(); i++ {
			sf := src.Type().Field(i)
			if sf.Name == "_" || sf.Name == "UnknownTags" {
				continue
			}
			df := dst.FieldByName(sf.Name)
			require.True(t, df.IsValid(), "run-time struct %s has no field %s", dst.Type(), sf.Name)
			copyInto(t, df, src.Field(i))
		}
	case reflect.Slice:
		if src.IsNil() {
			return
		}
		dst.Set(reflect.MakeSlice(dst.Type(), src.Len(), src.Len()))
		for i := 0; i < src.Len(); i++ {
			copyInto(t, dst.Index(i), src.Index(i))
		}
	case reflect.Pointer:
		if src.IsNil() {
			return
		}
		dst.Set(reflect.New(dst.Type().Elem()))
		copyInto(t, dst.Elem(), src.Elem())
	default:
		dst.Set(src.Convert(dst.Type()))
	}
}

func TestLoadAPIsMatchesHandWrittenStructs(t *testing.T) {
	apis, err := LoadAPIs("testdata/vendorping")
	require.NoError(t, err)
	require.Len(t, apis, 1)
	api := apis[0]
	assert.Equal(t, int16(10000), api.Key)
	assert.Equal(t, "VendorPing", api.Name)
	assert.Equal(t, [3]int16{0, 2, 1}, [3]int16{api.MinVersion, api.MaxVersion, api.FlexibleFrom})

	label, note := "east", "from the test"
	for v := api.MinVersion; v <= api.MaxVersion; v++ {
		// every field the version has, set
		req := &pingRequest{Target: "broker-7", TimeoutMs: 250, Probes: []pingProbe{{ProbeID: 1}, {ProbeID: -9}}}
		resp := &pingResponse{ErrorCode: 7, RoundTrips: []int32{3, 1, 4}}
		if v >= 1 {
			req.Probes[0].Label, req.Note, resp.Hops = &label, &note, 5
		}
		if v >= 2 {
			req.TraceID = kwire.UUID{1, 2, 3}
		}
		for _, c := range []struct {
			hand any
			dyn  func() any
		}{{req, api.NewRequest}, {resp, api.NewResponse}} {
			dyn := c.dyn()
			copyInto(t, reflect.ValueOf(dyn).Elem(), reflect.ValueOf(c.hand).Elem())
			want, err := kwire.Marshal(c.hand, v)
			require.NoError(t, err)
			got, err := kwire.Marshal(dyn, v)
			require.NoError(t, err)
			assert.Equal(t, want, got, "%T v%d", c.hand, v)

			// and back: the run-time struct decodes what the hand-written one wrote
			back := c.dyn()
			require.NoError(t, kwire.Unmarshal(want, back, v))
			again, err := kwire.Marshal(back, v)
			require.NoError(t, err)
			assert.Equal(t, want, again, "%T v%d after a decode", c.hand, v)
		}
	}
	// An absent tagged field decodes to its schema default, as generated structs do.
	empty := api.NewRequest()
	b, err := kwire.Marshal(&pingRequest{}, 1)
	require.NoError(t, err)
	require.NoError(t, kwire.Unmarshal(b, empty, 1))
	assert.Nil(t, reflect.ValueOf(empty).Elem().FieldByName("Note").Interface())

	// The run-time types register like generated ones and are found by key.
	r := &messages.Registry{}
	require.NoError(t, r.Register(api))
	got, ok := r.Lookup(10000)
	require.True(t, ok)
	assert.Equal(t, "VendorPing", got.Name)
}

// TestLoadAPIsTagsMatchGenerator: the run-time struct carries exactly the
// tags kwire gen writes for the same schema.
func TestLoadAPIsTagsMatchGenerator(t *testing.T) {
	apis, err := LoadAPIs("testdata/vendorping")
	require.NoError(t, err)
	res, err := Generate(Config{SchemaDirs: []string{"testdata/vendorping"}, Package: "vendor"})
	require.NoError(t, err)
	src := string(res.Files["vendor_ping.go"])
	require.NotEmpty(t, src, "files: %v", sortedNames(res.Files))
	typ := reflect.TypeOf(apis[0].NewRequest()).Elem()
	for i := 0; i < typ.NumField(); i++ {
		if tag := typ.Field(i).Tag; tag != "" {
			assert.Contains(t, src, "`"+string(tag)+"`", "field %s", typ.Field(i).Name)
		}
	}
}

func TestLoadAPIsBadSchemas(t *testing.T) {
	for _, c := range []struct {
		name, file, body, want string
	}{
		{"not JSON", "VendorPingRequest.json", `{"apiKey": 10000, "type": "request",`, "VendorPingRequest.json"},
		{"unknown key", "VendorPingRequest.json", `{"apiKey": 10000, "type": "request", "name": "VendorPingRequest", "validVersions": "0-2", "flexibleVersions": "1+", "fields": [], "evil": 1}`, `unknown field "evil"`},
		{"key beyond int16", "VendorPingRequest.json", `{"apiKey": 70000, "type": "request", "name": "VendorPingRequest", "validVersions": "0-2", "flexibleVersions": "1+", "fields": []}`, "VendorPingRequest.json"},
		{"huge version", "VendorPingRequest.json", `{"apiKey": 10000, "type": "request", "name": "VendorPingRequest", "validVersions": "0-2000000000", "flexibleVersions": "1+", "fields": []}`, "32767"},
		{"unknown type", "VendorPingRequest.json", `{"apiKey": 10000, "type": "request", "name": "VendorPingRequest", "validVersions": "0-2", "flexibleVersions": "1+", "fields": [{"name": "X", "type": "int128", "versions": "0+"}]}`, "unknown type int128"},
		{"not a Go name", "VendorPingRequest.json", `{"apiKey": 10000, "type": "request", "name": "VendorPingRequest", "validVersions": "0-2", "flexibleVersions": "1+", "fields": [{"name": "a b", "type": "int32", "versions": "0+"}]}`, "VendorPingRequest.json"},
		{"nullable int", "VendorPingRequest.json", `{"apiKey": 10000, "type": "request", "name": "VendorPingRequest", "validVersions": "0-2", "flexibleVersions": "1+", "fields": [{"name": "X", "type": "int32", "versions": "0+", "nullableVersions": "0+"}]}`, "VendorPingRequest.json"},
		{"lone request", "Other.json", `{"apiKey": 10001, "type": "request", "name": "OtherRequest", "validVersions": "0", "flexibleVersions": "none", "fields": []}`, "Other.json: API key 10001 has a request and no response"},
		{"self-holding struct", "VendorPingRequest.json", `{"apiKey": 10000, "type": "request", "name": "VendorPingRequest", "validVersions": "0-2", "flexibleVersions": "1+", "fields": [{"name": "X", "type": "Loop", "versions": "0+"}], "commonStructs": [{"name": "Loop", "versions": "0+", "fields": [{"name": "Next", "type": "[]Loop", "versions": "0+"}]}]}`, "contains itself"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, n := range []string{"VendorPingRequest.json", "VendorPingResponse.json"} {
				good, err := os.ReadFile(filepath.Join("testdata/vendorping", n))
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(filepath.Join(dir, n), good, 0o600))
			}
			require.NoError(t, os.WriteFile(filepath.Join(dir, c.file), []byte(c.body), 0o600))
			_, err := LoadAPIs(dir)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			if c.want != c.file {
				assert.Contains(t, err.Error(), c.file, "the error names the file")
			}
		})
	}
}
