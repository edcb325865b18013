package proxy

import (
	"reflect"
	"strings"
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
