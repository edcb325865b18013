package trafficlog

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/gen"
)

// TestRunTimeTypeLine: a message of a struct built at run time from
// schemas is named in text and JSON after the API the writer names
// (Event.API), which the default registry does not know.
func TestRunTimeTypeLine(t *testing.T) {
	apis, err := gen.LoadAPIs("../../gen/testdata/vendorping")
	require.NoError(t, err)
	req := reflect.ValueOf(apis[0].NewRequest())
	req.Elem().FieldByName("Target").SetString("broker-7")
	e := Event{Time: time.Unix(0, 0), Conn: 1, Dir: Request, Key: 10000, Version: 2, API: "VendorPing", Msg: req.Interface()}

	text := string(AppendText(nil, e))
	assert.Contains(t, text, ` VendorPing v2 corr=0 | VendorPingRequest v2 Target="broker-7"`)

	var line struct{ API, Summary string }
	require.NoError(t, json.Unmarshal(AppendJSON(nil, e), &line))
	assert.Equal(t, "VendorPing", line.API)
	assert.True(t, strings.HasPrefix(line.Summary, `VendorPingRequest v2 Target="broker-7"`), line.Summary)

	e.API = ""
	assert.Contains(t, string(AppendText(nil, e)), ` key10000 v2 corr=0 | v2 Target=`)
}
