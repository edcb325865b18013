package filters

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/app/proxy"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/kerr"
	"github.com/kwirelabs/kwire/messages"
)

// TestRefuseEveryAPI: a request of every API and version, with one
// element in each of its lists, is refused with a response that carries
// the error and encodes at the request's version: no API is left to the
// fallback of closing the connection.
func TestRefuseEveryAPI(t *testing.T) {
	var cannot []string
	for _, api := range messages.Default.APIs() {
		for v := api.MinVersion; v <= api.MaxVersion; v++ {
			req, err := messages.Default.RequestFor(api.Key, v)
			require.NoError(t, err)
			fillOne(reflect.ValueOf(req).Elem(), 3)
			r := &proxy.Request{Header: kwire.RequestHeader{APIKey: api.Key, APIVersion: v, CorrelationID: 1}, Body: req}
			resp, err := refusal(r, kerr.ClusterAuthorizationFailed, "refused")
			if err != nil {
				cannot = append(cannot, api.Name)
				continue
			}
			_, err = kwire.AppendResponse(nil, resp, v, 1)
			assert.NoError(t, err, "%s v%d", api.Name, v)
		}
	}
	assert.Empty(t, cannot)
}

// fillOne puts one element in every list of v, depth levels down.
func fillOne(v reflect.Value, depth int) {
	if depth == 0 {
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillOne(v.Field(i), depth)
			}
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return
		}
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fillOne(v.Index(0), depth-1)
	case reflect.String:
		v.SetString("x")
	}
}
