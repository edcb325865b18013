package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/app/site"
	"github.com/kwirelabs/kwire/messages"
)

// kwire layout -html writes the same page the site has, without the
// site's links.
func TestLayoutHTMLIsTheSitePage(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run([]string{"layout", "ConsumerGroupHeartbeatRequest", "-v", "1", "-html"}, &out))
	api, _ := messages.Lookup(68)
	p, err := site.Build(api, 1)
	require.NoError(t, err)
	var want bytes.Buffer
	require.NoError(t, site.WritePage(&want, p, site.RenderOptions{Standalone: true}))
	assert.Equal(t, want.String(), out.String())
	assert.Contains(t, out.String(), "ConsumerGroupHeartbeatRequest v1, request header v2, 55 bytes on the wire")
}

func TestSiteCommand(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	require.NoError(t, run([]string{"site", "-o", dir}, &out))
	pages := 0
	for _, api := range messages.APIs() {
		for v := api.MinVersion; v <= api.MaxVersion; v++ {
			_, err := os.Stat(filepath.Join(dir, site.PageFile(api, v)))
			assert.NoError(t, err)
			pages++
		}
	}
	assert.FileExists(t, filepath.Join(dir, "index.html"))
	assert.True(t, strings.HasPrefix(out.String(), fmt.Sprintf("wrote %s/index.html and %d pages, ", dir, pages)), out.String())

	err := run([]string{"site"}, &out)
	assert.ErrorContains(t, err, "usage")
	err = run([]string{"site", "-o", dir, "-schemas", filepath.Join(dir, "nowhere")}, &out)
	assert.ErrorContains(t, err, "schemas")
}

// The text layout is the same model as the pages: records fields opened
// into their batch.
func TestLayoutTextOpensRecords(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run([]string{"layout", "ProduceRequest", "-v", "9"}, &out))
	assert.Contains(t, out.String(), "+-- RecordBatch[0] RecordBatch = v2, 0 records [0x001e, 61B]")
	assert.Contains(t, out.String(), "+-- crc uint32 = 0x595fb7dd [0x002f, 4B]")
}
