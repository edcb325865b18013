package main

import (
	"bytes"
	"encoding/hex"
	"net"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/app/sniff/capturetest"
	"github.com/kwirelabs/kwire/gen"
	"github.com/kwirelabs/kwire/kwire"
)

// The vendor-shaped schemas (gen/testdata/dialects/README.md).
const dialectDir = "../../gen/testdata/dialects/"

// A dialect case: -schemas and -replace, and the API at key the tools
// are to read (or the error they are to give). With -replace 93 the tool
// says on stderr that it replaced key 93.
type dialectCase struct {
	name    string
	schemas string
	replace string
	key     int16
	version int16
	api     string // the API key names under the flags
	err     string // the error, when the flags are refused
}

var dialectCases = []dialectCase{
	{name: "Inkless's key 93 without -replace", schemas: dialectDir + "inkless", key: 93,
		err: "register DisklessCommit: key 93 is StreamsGroupTopologyDescriptionUpdate already"},
	{name: "Inkless's key 93 with -replace 93", schemas: dialectDir + "inkless", replace: "93", key: 93, api: "DisklessCommit"},
	{name: "Inkless's key 99", schemas: dialectDir + "inkless", replace: "93", key: 99, api: "DescribeMirrors"},
	{name: "AutoMQ's key 513", schemas: dialectDir + "automq", key: 513, api: "GetKVs"},
	{name: "Confluent's key 10000, all three sets", schemas: dialectDir + "inkless," + dialectDir + "automq," + dialectDir + "confluent", replace: "93",
		key: 10000, version: 1, api: "ListClusterLinks"},
	{name: "-replace of a key the schemas lack", schemas: dialectDir + "automq", replace: "93", key: 513,
		err: "-replace 93: -schemas defines no API at that key"},
	{name: "-replace without -schemas", replace: "93", key: 93, err: "-replace: it replaces Kafka's APIs with those of -schemas, and there is no -schemas"},
}

func (c dialectCase) flags() []string {
	var a []string
	if c.schemas != "" {
		a = append(a, "-schemas", c.schemas)
	}
	if c.replace != "" {
		a = append(a, "-replace", c.replace)
	}
	return a
}

// frames are a request and its response of the case's API, built from
// the run-time types of the vendor's schemas (with the key-93 API the
// vendor's, whatever the flags).
func (c dialectCase) frames(t *testing.T) (req, resp []byte) {
	dirs := []string{dialectDir + "inkless", dialectDir + "automq", dialectDir + "confluent"}
	for _, d := range dirs {
		apis, err := gen.LoadAPIs(d)
		require.NoError(t, err)
		for _, a := range apis {
			if a.Key != c.key {
				continue
			}
			msg := a.NewRequest()
			if f := reflect.ValueOf(msg).Elem().FieldByName("ObjectKey"); f.IsValid() {
				f.SetString("wal/0001")
			}
			client := "vendor-client"
			req, err = kwire.AppendRequest(nil, msg, c.version, 4, &client)
			require.NoError(t, err)
			resp, err = kwire.AppendResponse(nil, a.NewResponse(), c.version, 4)
			require.NoError(t, err)
			return req, resp
		}
	}
	t.Fatalf("no vendor API at key %d", c.key)
	return nil, nil
}

// check checks a command's outcome against the case.
func (c dialectCase) check(t *testing.T, err error, stderr string) bool {
	t.Helper()
	if c.err != "" {
		require.Error(t, err)
		assert.Contains(t, err.Error(), c.err)
		return false
	}
	if c.replace != "" {
		assert.Contains(t, stderr, "kwire: -replace: key 93 is DisklessCommit (from -schemas), not Kafka's StreamsGroupTopologyDescriptionUpdate\n")
	} else {
		assert.NotContains(t, stderr, "-replace")
	}
	return true
}

func TestDialectDecode(t *testing.T) {
	requireDefaultUnchanged(t)
	for _, c := range dialectCases {
		t.Run(c.name, func(t *testing.T) {
			stderr := captureStderr(t)
			req, _ := c.frames(t)
			var out bytes.Buffer
			err := run(append(append([]string{"decode"}, c.flags()...), "-json", hex.EncodeToString(req)), &out)
			if c.check(t, err, string(stderr())) {
				require.NoError(t, err)
				assert.Contains(t, out.String(), `"api":"`+c.api+`"`)
			}
		})
	}
}

func TestDialectEncode(t *testing.T) {
	requireDefaultUnchanged(t)
	for _, c := range dialectCases {
		t.Run(c.name, func(t *testing.T) {
			stderr := captureStderr(t)
			req, _ := c.frames(t)
			var out bytes.Buffer
			args := append(c.flags(), "-k", itoa(c.key), "-v", itoa(c.version), "-corr", "4", "-client", "vendor-client")
			body := `{}`
			if c.key == 93 {
				body = `{"ObjectKey": "wal/0001"}`
			}
			err := runEncode(args, strings.NewReader(body), &out)
			if c.check(t, err, string(stderr())) {
				require.NoError(t, err)
				assert.Equal(t, hex.EncodeToString(req), strings.TrimSpace(out.String()), "the vendor's frame, byte for byte")
			}
		})
	}
}

func itoa(n int16) string { return strconv.Itoa(int(n)) }

func TestDialectSend(t *testing.T) {
	requireDefaultUnchanged(t)
	for _, c := range dialectCases {
		t.Run(c.name, func(t *testing.T) {
			stderr := captureStderr(t)
			b := startFakeBroker(t)
			req, _ := c.frames(t)
			body := `{}`
			if c.key == 93 {
				body = `{"ObjectKey": "wal/0001"}`
			}
			args := append(c.flags(), "-b", b.ln.Addr().String(), "-k", itoa(c.key), "-v", itoa(c.version), "-corr", "4", "-client", "vendor-client")
			var out bytes.Buffer
			err := runSend(args, strings.NewReader(body), &out)
			if c.check(t, err, string(stderr())) {
				// The fake broker does not know the API: it closes the
				// connection, having read the vendor's request.
				require.Error(t, err)
				assert.Contains(t, err.Error(), "without answering "+c.api+" v"+itoa(c.version))
				require.Len(t, b.requests(), 1)
				assert.Equal(t, req, b.requests()[0], "the vendor's frame, byte for byte")
			}
		})
	}
}

func TestDialectSniff(t *testing.T) {
	requireDefaultUnchanged(t)
	for _, c := range dialectCases {
		t.Run(c.name, func(t *testing.T) {
			req, resp := c.frames(t)
			capture := capturetest.New()
			conn := capture.Dial("10.0.0.5:40001", "10.0.0.9:9092", true)
			conn.Send(true, req, 1460)
			conn.Send(false, resp, 1460)
			conn.Close()
			file := writeCapture(t, capture.Pcap(), "dialect.pcap")
			var out, stderr bytes.Buffer
			err := runSniff(append(c.flags(), "-r", file), nil, &out, &stderr)
			if c.check(t, err, stderr.String()) {
				require.NoError(t, err)
				assert.Contains(t, out.String(), "request  "+c.api+" v"+itoa(c.version)+" corr=4")
				assert.Contains(t, out.String(), "response "+c.api+" v"+itoa(c.version)+" corr=4")
				assert.NotContains(t, out.String(), "UNDECODABLE")
				assert.NotContains(t, out.String(), "StreamsGroupTopologyDescriptionUpdate")
			}
		})
	}
}

// TestDialectProxy: the proxy takes the same flags; it builds its
// registry before it listens, so a port already taken ends it once the
// flags are through. With -as-kafka a replaced key is left out of the
// offer rather than clamped to the release's API of that key.
func TestDialectProxy(t *testing.T) {
	requireDefaultUnchanged(t)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer taken.Close()
	for _, c := range dialectCases {
		t.Run(c.name, func(t *testing.T) {
			stderr := captureStderr(t)
			args := append(c.flags(), "-listen", taken.Addr().String(), "-upstream", "127.0.0.1:1", "-log", "off", "-as-kafka", "4.4")
			err := runProxy(args, &bytes.Buffer{})
			require.Error(t, err)
			if c.check(t, err, string(stderr())) {
				assert.Contains(t, err.Error(), "address already in use", "the flags were accepted, the listen failed")
				if c.replace != "" {
					assert.Contains(t, string(stderr()), "kwire proxy: -as-kafka 4.4: key 93 is DisklessCommit here (-replace), not StreamsGroupTopologyDescriptionUpdate: not offered")
				}
			}
		})
	}
}

// TestDecodeKIP1313: kwire decode with the KIP-1313 fixture as a dialect
// reads OffsetDelete v1 on request header v3 and names the client's
// instance; without -replace the fixture's key 47 collides.
func TestDecodeKIP1313(t *testing.T) {
	requireDefaultUnchanged(t)
	const frame = "0000003d002f000100000009000e6b6970313331332d636c69656e740100100102030405060708090a0b0c0d0e0f10000167000000010001740000000100000003"
	var out bytes.Buffer
	require.NoError(t, run([]string{"decode", "-schemas", "../../gen/testdata/kip1313", "-replace", "47", "-json", frame}, &out))
	assert.Contains(t, out.String(), `"api":"OffsetDelete","key":47,"version":1,"correlation_id":9,"client_id":"kip1313-client","client_instance_id":"01020304-0506-0708-090a-0b0c0d0e0f10"`)
	err := run([]string{"decode", "-schemas", "../../gen/testdata/kip1313", frame}, &out)
	assert.ErrorContains(t, err, "key 47 is OffsetDelete already")
}

// TestEncodeKIP1313: kwire encode takes a header v3's ClientInstanceId
// from a decode -json line (or -client-instance-id), so the fixture's
// frame decodes and encodes back byte for byte; an id (or -client) on a
// version whose header has no place for it is refused, not dropped.
func TestEncodeKIP1313(t *testing.T) {
	requireDefaultUnchanged(t)
	const frame = "0000003d002f000100000009000e6b6970313331332d636c69656e740100100102030405060708090a0b0c0d0e0f10000167000000010001740000000100000003"
	flags := []string{"-schemas", "../../gen/testdata/kip1313", "-replace", "47"}
	var line, out bytes.Buffer
	require.NoError(t, run(append(append([]string{"decode"}, flags...), "-json", frame), &line))
	require.NoError(t, runEncode(flags, &line, &out))
	assert.Equal(t, frame, strings.TrimSpace(out.String()), "decode -json, then encode: the same frame")

	out.Reset()
	body := `{"GroupID":"g","Topics":[{"Name":"t","Partitions":[{"PartitionIndex":3}]}]}`
	args := append(flags, "-k", "47", "-v", "1", "-corr", "9", "-client", "kip1313-client", "-client-instance-id", "01020304-0506-0708-090a-0b0c0d0e0f10")
	require.NoError(t, runEncode(args, strings.NewReader(body), &out))
	assert.Equal(t, frame, strings.TrimSpace(out.String()), "-client-instance-id")

	args = append(flags, "-k", "47", "-v", "0", "-client-instance-id", "01020304-0506-0708-090a-0b0c0d0e0f10")
	err := runEncode(args, strings.NewReader(body), &out)
	assert.ErrorContains(t, err, "-client-instance-id: OffsetDelete v0 travels with request header v1; only request header v3 and up carry a ClientInstanceId")
	err = runEncode([]string{"-k", "47", "-v", "0", "-client-instance-id", "01020304"}, strings.NewReader(body), &out)
	assert.ErrorContains(t, err, "client-instance-id")

	// Likewise a client id where the header has none (header v0).
	err = runEncode([]string{"-k", "ControlledShutdown", "-v", "0", "-client", "app"}, strings.NewReader(`{"BrokerID": 1}`), &out)
	assert.ErrorContains(t, err, "-client: ControlledShutdown v0 travels with request header v0, which has no client id")
	out.Reset()
	require.NoError(t, runEncode([]string{"-k", "ControlledShutdown", "-v", "0"}, strings.NewReader(`{"BrokerID": 1}`), &out))
	assert.Equal(t, "0000000c0007000000000000"+"00000001", strings.TrimSpace(out.String()))
}
