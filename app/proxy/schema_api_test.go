package proxy

import (
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/app/trafficlog"
	"github.com/kwirelabs/kwire/gen"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// vendorPingRegistry is a registry of Kafka's APIs and VendorPing (key
// 10000), built at run time from its JSON schemas by gen.LoadAPIs, as
// kwire proxy -schemas does; api is VendorPing.
func vendorPingRegistry(t *testing.T) (reg *messages.Registry, api messages.API) {
	apis, err := gen.LoadAPIs("../../gen/testdata/vendorping")
	require.NoError(t, err)
	reg = messages.NewRegistry()
	for _, a := range apis {
		require.NoError(t, reg.Register(a))
	}
	api, ok := reg.Lookup(10000)
	require.True(t, ok)
	return reg, api
}

// TestProxySchemaAPI: a vendor API known only from its JSON schemas
// (built at run time by gen.LoadAPIs) is relayed byte for byte and logged
// decoded, field by field.
func TestProxySchemaAPI(t *testing.T) {
	reg, api := vendorPingRegistry(t)

	up := startUpstream(t)
	log := &syncBuffer{}
	p := startProxy(t, Config{Upstream: up.ln.Addr().String(), Registry: reg}, log, trafficlog.Options{})
	c, err := dialT(t, p.Addr().String())
	require.NoError(t, err)
	defer c.Close()

	req := reflect.ValueOf(api.NewRequest()).Elem()
	req.FieldByName("Target").SetString("broker-7")
	req.FieldByName("TimeoutMs").SetInt(250)
	probes := reflect.MakeSlice(req.FieldByName("Probes").Type(), 1, 1)
	probes.Index(0).FieldByName("ProbeID").SetInt(42)
	req.FieldByName("Probes").Set(probes)
	resp := reflect.ValueOf(api.NewResponse()).Elem()
	resp.FieldByName("RoundTrips").Set(reflect.ValueOf([]int32{3, 1}))
	resp.FieldByName("Hops").SetInt(6)

	client := "vendor-cli"
	reqFrame := frameOf(kwire.AppendRequest(nil, req.Addr().Interface(), 2, 17, &client))
	respFrame := frameOf(kwire.AppendResponse(nil, resp.Addr().Interface(), 2, 17))
	up.answers <- respFrame
	_, err = c.Write(reqFrame)
	require.NoError(t, err)
	assert.Equal(t, respFrame, readFrame(t, c), "the response relayed byte for byte")
	c.Close()
	require.NoError(t, p.close())
	assert.Equal(t, reqFrame, up.received(), "the request relayed byte for byte")

	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	require.Len(t, lines, 3, log.String())
	assert.Contains(t, lines[1], `request  VendorPing v2 corr=17 client="vendor-cli" | VendorPingRequest v2 Target="broker-7" TimeoutMs=250 Probes=1`)
	assert.Contains(t, lines[2], `response VendorPing v2 corr=17 client="vendor-cli"`)
	assert.Contains(t, lines[2], `| VendorPingResponse v2 Hops=6 RoundTrips=2`)
	assert.NotContains(t, log.String(), "UNDECODABLE")
}

// dialectRegistry is Kafka's APIs as an Inkless cluster speaks them (the
// vendor-shaped schemas of gen/testdata/dialects): DisklessCommit in
// place of key 93, DescribeMirrors at 99, and AutoMQ's 513 and
// Confluent's 10000 besides.
func dialectRegistry(t *testing.T) *messages.Registry {
	const dir = "../../gen/testdata/dialects/"
	apis, err := gen.LoadAPIs(dir+"inkless", dir+"automq", dir+"confluent")
	require.NoError(t, err)
	reg := messages.NewRegistry()
	for _, a := range apis {
		if a.Key == 93 {
			_, err = reg.Replace(a)
		} else {
			err = reg.Register(a)
		}
		require.NoError(t, err)
	}
	return reg
}

// TestProxyDialect: with a dialect's registry the proxy logs a key-93
// request as the vendor's DisklessCommit, and its ApiVersions answers
// keep the vendor's keys (99, 513, 10000) at the vendor's versions: the
// default Versions are the registry's, not Kafka's.
func TestProxyDialect(t *testing.T) {
	reg := dialectRegistry(t)
	up := startUpstream(t)
	log := &syncBuffer{}
	p := startProxy(t, Config{Upstream: up.ln.Addr().String(), Registry: reg}, log, trafficlog.Options{})
	c, err := dialT(t, p.Addr().String())
	require.NoError(t, err)
	defer c.Close()

	client := "inkless-broker"
	av := &messages.ApiVersionsResponse{ApiKeys: []messages.ApiVersionsResponseApiVersion{
		{ApiKey: 3, MinVersion: 0, MaxVersion: 12},
		{ApiKey: 93, MinVersion: 0, MaxVersion: 2}, // the vendor's, not Apache's range
		{ApiKey: 99, MinVersion: 0, MaxVersion: 0},
		{ApiKey: 513, MinVersion: 0, MaxVersion: 0},
		{ApiKey: 10000, MinVersion: 0, MaxVersion: 3},
	}}
	up.answers <- frameOf(kwire.AppendResponse(nil, av, 3, 1))
	_, err = c.Write(frameOf(kwire.AppendRequest(nil, &messages.ApiVersionsRequest{ClientSoftwareName: "x", ClientSoftwareVersion: "1"}, 3, 1, &client)))
	require.NoError(t, err)
	got := &messages.ApiVersionsResponse{}
	_, err = kwire.ReadResponse(readFrame(t, c), got, 3)
	require.NoError(t, err)
	assert.Equal(t, []kwire.APIVersionRange{{APIKey: 3, MaxVersion: 12}, {APIKey: 93}, {APIKey: 99}, {APIKey: 513}, {APIKey: 10000, MaxVersion: 1}}, got.Versions(),
		"clamped to what the dialect reads: DisklessCommit v0, ListClusterLinks v0-1")

	commit, _ := reg.Lookup(93)
	req := reflect.ValueOf(commit.NewRequest()).Elem()
	req.FieldByName("ObjectKey").SetString("wal/0001")
	up.answers <- frameOf(kwire.AppendResponse(nil, commit.NewResponse(), 0, 2))
	_, err = c.Write(frameOf(kwire.AppendRequest(nil, req.Addr().Interface(), 0, 2, &client)))
	require.NoError(t, err)
	readFrame(t, c)
	c.Close()
	require.NoError(t, p.close())
	assert.Contains(t, log.String(), `request  DisklessCommit v0 corr=2 client="inkless-broker" | DisklessCommitRequest v0 ObjectKey="wal/0001"`)
	assert.NotContains(t, log.String(), "StreamsGroupTopologyDescriptionUpdate")
	assert.NotContains(t, log.String(), "UNDECODABLE")
}

// TestProxyClientInstanceID: with the KIP-1313 fixture (OffsetDelete v1
// on request header v3) a client names itself and its instance on its
// first request only; the log names both on every request and response
// of the connection, and filters see them on the Conn.
func TestProxyClientInstanceID(t *testing.T) {
	apis, err := gen.LoadAPIs("../../gen/testdata/kip1313")
	require.NoError(t, err)
	reg := messages.NewRegistry()
	_, err = reg.Replace(apis[0])
	require.NoError(t, err)
	up := startUpstream(t)
	log := &syncBuffer{}
	seen := &connSeen{}
	p := startProxy(t, Config{Upstream: up.ln.Addr().String(), Registry: reg, Filters: []Filter{seen}}, log, trafficlog.Options{})
	c, err := dialT(t, p.Addr().String())
	require.NoError(t, err)
	defer c.Close()

	client := "kip-client"
	id := kwire.UUID{0xc0, 15: 0xff}
	for corr, h := range []kwire.RequestHeader{
		{APIVersion: 1, CorrelationID: 0, ClientID: &client, ClientInstanceID: id},
		{APIVersion: 1, CorrelationID: 1},
	} {
		up.answers <- frameOf(kwire.AppendResponse(nil, apis[0].NewResponse(), 1, int32(corr)))
		_, err = c.Write(frameOf(kwire.AppendRequestWithHeader(nil, h, apis[0].NewRequest())))
		require.NoError(t, err)
		readFrame(t, c)
	}
	c.Close()
	require.NoError(t, p.close())
	for _, want := range []string{
		`request  OffsetDelete v1 corr=0 client="kip-client" instance=c0000000-0000-0000-0000-0000000000ff`,
		`response OffsetDelete v1 corr=0 client="kip-client" instance=c0000000-0000-0000-0000-0000000000ff`,
		`request  OffsetDelete v1 corr=1 client="kip-client" instance=c0000000-0000-0000-0000-0000000000ff`,
		`response OffsetDelete v1 corr=1 client="kip-client" instance=c0000000-0000-0000-0000-0000000000ff`,
	} {
		assert.Contains(t, log.String(), want)
	}
	seen.mu.Lock()
	defer seen.mu.Unlock()
	assert.Equal(t, []string{"kip-client c0000000-0000-0000-0000-0000000000ff", "kip-client c0000000-0000-0000-0000-0000000000ff"}, seen.ids)
}

// connSeen is a filter noting the Conn's client id and instance id at
// each request.
type connSeen struct {
	mu  sync.Mutex
	ids []string
}

func (s *connSeen) Request(c *Conn, _ *Request) Action {
	s.mu.Lock()
	defer s.mu.Unlock()
	cid := "<nil>"
	if p := c.ClientID(); p != nil {
		cid = *p
	}
	s.ids = append(s.ids, cid+" "+c.ClientInstanceID().String())
	return Pass
}

func (s *connSeen) Response(*Conn, *Response) Action { return Pass }
