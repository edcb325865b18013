package site

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/kwirelabs/kwire/messages"
)

// probeSchema is a Kafka-style definition written for this test (with a
// comment, as Kafka's files have), not one of Kafka's own.
const probeSchema = `// a probe
{
  "apiKey": 68, "type": "request", "name": "ConsumerGroupHeartbeatRequest",
  "validVersions": "0-1", "flexibleVersions": "0+",
  "fields": [
    { "name": "GroupId", "type": "string", "versions": "0+", "about": "probe: the group" },
    { "name": "TopicPartitions", "type": "[]TopicPartitions", "versions": "0+", "about": "probe: owned",
      "fields": [ { "name": "TopicId", "type": "uuid", "versions": "0+", "about": "probe: topic id" } ] }
  ]
}`

func TestSchemasAddJSONAndDescriptions(t *testing.T) {
	older, newer := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(older, "ConsumerGroupHeartbeatRequest.json"),
		[]byte(strings.ReplaceAll(probeSchema, "probe:", "older:")), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(newer, "ConsumerGroupHeartbeatRequest.json"),
		[]byte(strings.ReplaceAll(probeSchema, `"0-1"`, `"1"`)), 0o644))
	schemas, err := LoadSchemas([]string{older, newer})
	require.NoError(t, err)

	api, _ := messages.Lookup(68)
	for _, c := range []struct {
		version int16
		prefix  string
	}{{1, "probe:"}, {0, "older:"}} { // the later directory defines the versions it lists
		p, err := Build(api, c.version)
		require.NoError(t, err)
		var buf bytes.Buffer
		require.NoError(t, WritePage(&buf, p, RenderOptions{Schemas: schemas}))
		out := buf.String()
		root, err := html.Parse(&buf)
		require.NoError(t, err)
		page := parsePage(t, root)
		req := page.sides[0]
		assert.True(t, anyLineHas(req.lines, `GroupID string = "" (compact, len+1=1) [0x000f, 1B] `+c.prefix+" the group"), "v%d", c.version)
		assert.True(t, anyLineHas(req.lines, "TopicID uuid = 00000000-0000-0000-0000-000000000000 [0x0020, 16B] "+c.prefix+" topic id") ||
			anyLineHas(req.lines, "[0x001f, 16B] "+c.prefix+" topic id"), "v%d: nested fields through array elements", c.version)
		assert.Contains(t, out, "// a probe", "the JSON is shown as written")
		assert.Equal(t, 1, strings.Count(out, `<pre class="json">`), "v%d: the request's JSON, no response JSON (none given)", c.version)
	}
}
