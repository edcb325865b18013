package site

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/messages"
)

// chromium runs headless Chromium on a file:// URL with extra flags and
// returns its standard output. The timeout only stops a hung browser.
func chromium(t *testing.T, bin, page string, flags ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir(), "--window-size=1200,1400"}, flags...)
	cmd := exec.CommandContext(ctx, bin, append(args, "file://"+page)...)
	cmd.WaitDelay = 10 * time.Second // a renderer left holding stdout does not hold the test
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "chromium %v: %s", flags, stderr.String())
	return stdout.Bytes()
}

func chromiumBinary(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("Chromium is not installed (Debian package chromium; .ci/run installs it): the pages are not rendered by a browser here")
	return ""
}

// TestPagesRenderInChromium loads the index and the ConsumerGroupHeartbeat
// v1 page from file:// in headless Chromium: the screenshots show the
// page's colours, and the rendered DOM the sizes and that the script ran.
func TestPagesRenderInChromium(t *testing.T) {
	bin := chromiumBinary(t)
	api, _ := messages.Lookup(68)
	page := filepath.Join(siteDir, PageFile(api, 1))
	index := filepath.Join(siteDir, "index.html")

	dom := string(chromium(t, bin, page, "--dump-dom"))
	assert.Contains(t, dom, "ConsumerGroupHeartbeatRequest v1, request header v2, 55 bytes on the wire")
	assert.Contains(t, dom, "ConsumerGroupHeartbeatResponse v1, response header v1, 51 bytes on the wire")
	assert.Contains(t, dom, `data-js="ready"`, "the page's script ran")

	// Hovering, by link: byte 0x19 of the response lights the presence
	// marker's line and that one byte; node q1 (the request's frame
	// prefix) lights its four bytes.
	dom = string(chromium(t, bin, page+"#response@25", "--dump-dom"))
	assert.Regexp(t, `<span class="n hi" id="r\d+" data-s="25" data-e="26" data-d="\d+">[^<]*present int8 = 1`, dom)
	assert.Equal(t, 1, strings.Count(dom, `<td class="resp hi"`)+strings.Count(dom, `<td class="req hi"`), "one byte lit")
	dom = string(chromium(t, bin, page+"#q1", "--dump-dom"))
	assert.Equal(t, 4, strings.Count(dom, `<td class="frame hi"`), "the size prefix lit")
	assert.Contains(t, dom, `<span class="n hi" id="q1" data-s="0" data-e="4"`)

	dom = string(chromium(t, bin, index, "--dump-dom"))
	assert.Regexp(t, `(?s)id="api-68".*ConsumerGroupHeartbeat.*55 B.*51 B`, dom)
	assert.Regexp(t, `id="size-68-v1".*>55 B<.*>51 B<.*the page says 50`, dom, "the index's every-version table")
	assert.Equal(t, len(strings.Split(dom, `<tr id="size-`))-1, pairs(), "a sizes row per API and version")

	for _, c := range []struct {
		url    string
		colors []color.RGBA // backgrounds the page must show
	}{
		{page, []color.RGBA{{0xbc, 0xd7, 0xf5, 0xff}, {0xc9, 0xeb, 0xc4, 0xff}, {0xdc, 0xc8, 0xf0, 0xff}, {0xf5, 0xbf, 0xd6, 0xff}, {0xd9, 0xd9, 0xd9, 0xff}}},
		{index, []color.RGBA{{0xf4, 0xf4, 0xf4, 0xff}}},
	} {
		shot := filepath.Join(t.TempDir(), "shot.png")
		chromium(t, bin, c.url, "--screenshot="+shot, "--hide-scrollbars")
		f, err := os.Open(shot)
		require.NoError(t, err)
		img, err := png.Decode(f)
		f.Close()
		require.NoError(t, err)
		seen := colorsOf(img)
		assert.Greater(t, len(seen), 20, "%s: the screenshot is blank or nearly so", c.url)
		for _, want := range c.colors {
			assert.True(t, seen[want], "%s: no pixel of %v", c.url, want)
		}
	}
}

func pairs() int {
	n := 0
	for _, api := range messages.APIs() {
		n += int(api.MaxVersion-api.MinVersion) + 1
	}
	return n
}

func colorsOf(img image.Image) map[color.RGBA]bool {
	seen := map[color.RGBA]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			seen[color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)] = true
		}
	}
	return seen
}
