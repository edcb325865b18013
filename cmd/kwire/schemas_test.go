package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/gen"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

const vendorSchemas = "../../gen/testdata/vendorping"

// TestDecodeSchemas: kwire decode -schemas decodes a vendor API it has
// only the JSON schemas of, field by field; twice in one process too.
func TestDecodeSchemas(t *testing.T) {
	requireDefaultUnchanged(t)
	frame := vendorPingRequest(t)
	for range 2 {
		var out bytes.Buffer
		require.NoError(t, run([]string{"decode", "-schemas", vendorSchemas, hex.EncodeToString(frame)}, &out))
		assert.Contains(t, out.String(), "+-- request_api_key int16 = 10000")
		assert.Contains(t, out.String(), `Target string = "broker-7" (compact, len+1=9)`)
		assert.Contains(t, out.String(), "TimeoutMs int32 = 250")
		assert.Contains(t, out.String(), "\nVendorPingRequest message v1")
		assert.Contains(t, out.String(), "+-- VendorPingRequest struct v1")
		assert.Contains(t, out.String(), "+-- Probes []struct = 0 elements")
	}
	// -json names the run-time struct after its API, as the traffic log does.
	var out bytes.Buffer
	require.NoError(t, run([]string{"decode", "-schemas", vendorSchemas, "-json", hex.EncodeToString(frame)}, &out))
	assert.Contains(t, out.String(), `{"dir":"request","api":"VendorPing","key":10000,"version":1,"correlation_id":5,"client_id":"cli","summary":"VendorPingRequest v1 `)
}

// TestDecodeSchemasResponse: a response of a -schemas API decodes given
// its key and version.
func TestDecodeSchemasResponse(t *testing.T) {
	requireDefaultUnchanged(t)
	apis, err := gen.LoadAPIs(vendorSchemas)
	require.NoError(t, err)
	resp := reflect.ValueOf(apis[0].NewResponse()).Elem()
	resp.FieldByName("Hops").SetInt(6)
	frame, err := kwire.AppendResponse(nil, resp.Addr().Interface(), 2, 5)
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, runDecode([]string{"-schemas", vendorSchemas, "-response", "-k", "10000", "-v", "2"}, strings.NewReader(hex.EncodeToString(frame)), &out))
	assert.Contains(t, out.String(), "\nVendorPingResponse message v2")
	assert.Contains(t, out.String(), "Hops")
}

// TestProxySchemasBad: kwire proxy -schemas refuses a malformed schema
// before it listens, naming the file.
func TestProxySchemasBad(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "BrokenRequest.json"), []byte(`{"apiKey": 10001, "type": "request",`), 0o600))
	err := runProxy([]string{"-listen", "127.0.0.1:0", "-upstream", "127.0.0.1:1", "-log", "off", "-schemas", dir}, &bytes.Buffer{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "-schemas")
	assert.Contains(t, err.Error(), "BrokenRequest.json")

	// A schema claiming one of Kafka's keys is refused, not shadowing it.
	clash := t.TempDir()
	for _, n := range []string{"VendorPingRequest.json", "VendorPingResponse.json"} {
		b, err := os.ReadFile(filepath.Join(vendorSchemas, n))
		require.NoError(t, err)
		b = bytes.Replace(b, []byte(`"apiKey": 10000`), []byte(`"apiKey": 0`), 1)
		require.NoError(t, os.WriteFile(filepath.Join(clash, n), b, 0o600))
	}
	err = runProxy([]string{"-listen", "127.0.0.1:0", "-upstream", "127.0.0.1:1", "-log", "off", "-schemas", clash}, &bytes.Buffer{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "key 0 is Produce already")
}

// requireDefaultUnchanged fails t if messages.Default holds an API
// other than those it held when the test started: -schemas is to add its
// APIs to the command's own registry, not to the process's.
func requireDefaultUnchanged(t *testing.T) {
	before := len(messages.APIs())
	t.Cleanup(func() {
		_, vendor := messages.Lookup(10000)
		assert.False(t, vendor, "-schemas registered VendorPing in messages.Default")
		assert.Equal(t, before, len(messages.APIs()), "messages.Default gained APIs")
	})
}

// TestEncodeSchemas: a VendorPing frame, which kwire knows only from its
// JSON schemas, decodes with decode -schemas -json and encodes back with
// encode -schemas to the same bytes, from the whole line or from its body
// and flags (-k before or after -schemas); without -schemas encode does
// not know the API.
func TestEncodeSchemas(t *testing.T) {
	requireDefaultUnchanged(t)
	frame := vendorPingRequest(t)
	want := hex.EncodeToString(frame)

	// Before any -schemas, VendorPing is unknown.
	var out bytes.Buffer
	assert.ErrorContains(t, runEncode([]string{"-k", "VendorPing", "-v", "1"}, strings.NewReader(`{}`), &out), `no API named "VendorPing"`)

	// Each command knows VendorPing from its own -schemas only.
	require.NoError(t, run([]string{"decode", "-schemas", vendorSchemas, "-json", want}, &out))
	line := strings.TrimSpace(out.String())
	require.Contains(t, line, `"api":"VendorPing"`)
	var decoded struct {
		Body json.RawMessage `json:"body"`
	}
	require.NoError(t, json.Unmarshal([]byte(line), &decoded))

	for _, c := range []struct {
		args  []string
		input string
	}{
		{[]string{"-schemas", vendorSchemas}, line},
		{[]string{"-k", "VendorPing", "-schemas", vendorSchemas, "-v", "1", "-corr", "5", "-client", "cli"}, string(decoded.Body)},
		{[]string{"-schemas", vendorSchemas, "-k", "10000", "-v", "1", "-corr", "5", "-client", "cli"}, string(decoded.Body)},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			var out bytes.Buffer
			require.NoError(t, runEncode(c.args, strings.NewReader(c.input), &out))
			assert.Equal(t, want, strings.TrimSpace(out.String()))
		})
	}
	var again bytes.Buffer
	assert.ErrorContains(t, runEncode([]string{"-k", "VendorPing", "-v", "1"}, strings.NewReader(`{}`), &again), `no API named "VendorPing"`)
}

// vendorPingRequest is a VendorPing v1 request frame (correlation id 5,
// client "cli") built from the run-time type its schemas give.
func vendorPingRequest(t *testing.T) []byte {
	apis, err := gen.LoadAPIs(vendorSchemas)
	require.NoError(t, err)
	req := reflect.ValueOf(apis[0].NewRequest()).Elem()
	req.FieldByName("Target").SetString("broker-7")
	req.FieldByName("TimeoutMs").SetInt(250)
	client := "cli"
	frame, err := kwire.AppendRequest(nil, req.Addr().Interface(), 1, 5, &client)
	require.NoError(t, err)
	return frame
}
