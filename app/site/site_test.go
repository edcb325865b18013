package site

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/kwirelabs/kwire/internal/sizes"
	"github.com/kwirelabs/kwire/messages"
)

// siteDir holds the site every test reads, written once by TestMain.
var siteDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "kwire-site-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	siteDir = dir
	st, err := Write(dir, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "site:", err)
		os.Exit(1)
	}
	if st.Pages == 0 {
		fmt.Fprintln(os.Stderr, "site: no pages")
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

var wantLegend = []string{"frame:frame", "hdr:rpc header", "req:request body", "batch:RecordBatch",
	"rec:Record", "resp:response body", "tag:tagged_fields"}

var categoryClass = map[string]bool{"frame": true, "hdr": true, "req": true, "batch": true, "rec": true, "resp": true, "tag": true}

// TestEveryPage parses every page of the site and checks its structure
// against the frames kwire encodes.
func TestEveryPage(t *testing.T) {
	pages := 0
	for _, api := range messages.APIs() {
		for v := api.MinVersion; v <= api.MaxVersion; v++ {
			name := PageFile(api, v)
			built, err := Build(api, v)
			require.NoError(t, err, name)
			p := parseFile(t, filepath.Join(siteDir, name))
			checkPage(t, name, p, built)
			pages++
		}
	}
	entries, err := os.ReadDir(siteDir)
	require.NoError(t, err)
	assert.Len(t, entries, pages+1, "a page per API and version, and the index")
}

func checkPage(t *testing.T, name string, p *parsedPage, built *Page) {
	t.Helper()
	assert.Equal(t, []string{"facts", "legend",
		"side request", "title", "grid", "tree", "schema",
		"side response", "title", "grid", "tree", "schema"}, p.order, "%s: the reference page's parts, in its order", name)
	assert.Equal(t, wantLegend, p.legend, name)
	require.Len(t, p.facts, 8, name)
	assert.Equal(t, "Encoded at", p.facts[1][0])
	if built.Version > built.API.MaxStable() {
		assert.Equal(t, fmt.Sprintf("v%d (unstable: not offered by default)", built.Version), p.facts[1][1], name)
	} else {
		assert.Equal(t, fmt.Sprintf("v%d", built.Version), p.facts[1][1], name)
	}
	assert.Equal(t, [2]string{"Request size", fmt.Sprintf("%d bytes", len(built.Request.Frame))}, p.facts[6], name)
	assert.Equal(t, [2]string{"Response size", fmt.Sprintf("%d bytes", len(built.Response.Frame))}, p.facts[7], name)
	require.Len(t, p.sides, 2, name)
	for i, want := range []*Side{&built.Request, &built.Response} {
		s := &p.sides[i]
		where := name + " " + s.id
		assert.Equal(t, len(want.Frame), s.size, where)
		assert.Equal(t, want.Title(built.Version), s.title, where)
		// The grid has exactly the frame's bytes, in order, each with a category.
		require.Len(t, s.cells, len(want.Frame), where)
		assert.Equal(t, hex.EncodeToString(want.Frame), hex.EncodeToString(s.frameOf(t)), where)
		lines := map[string]parsedLine{}
		index := map[string]int{}
		for i, l := range s.lines {
			lines[l.id] = l
			index[l.id] = i
		}
		for i, c := range s.cells {
			assert.Equal(t, i, c.off, where)
			assert.True(t, categoryClass[c.class], "%s: byte %d has no category (%q)", where, i, c.class)
			l, ok := lines[c.node]
			if assert.True(t, ok, "%s: byte %d names node %q, not in the tree", where, i, c.node) {
				assert.True(t, l.start <= i && i < l.end, "%s: byte %d's node %s is [%d,%d)", where, i, l.id, l.start, l.end)
				// ... and it is the deepest: none of its descendants holds the byte.
				for _, d := range s.lines[index[c.node]+1:] {
					if d.depth <= l.depth {
						break
					}
					assert.False(t, d.start <= i && i < d.end && d.end > d.start, "%s: byte %d lies in %q, deeper than %q", where, i, d.text, l.text)
				}
			}
		}
		checkTree(t, where, s)
	}
}

// checkTree: every node lies inside the frame, the root is the whole
// frame, and the top-level nodes tile it.
func checkTree(t *testing.T, where string, s *parsedSide) {
	t.Helper()
	require.NotEmpty(t, s.lines, where)
	root := s.lines[0]
	assert.Equal(t, [3]int{0, 0, s.size}, [3]int{root.depth, root.start, root.end}, "%s: root", where)
	next := 0
	for _, l := range s.lines {
		assert.True(t, 0 <= l.start && l.start <= l.end && l.end <= s.size, "%s: node %q [%d,%d) outside the frame", where, l.text, l.start, l.end)
		assert.Regexp(t, fmt.Sprintf(`\[0x%04x, %dB\]`, l.start, l.end-l.start), l.text, where)
		if l.depth == 1 {
			assert.Equal(t, next, l.start, "%s: top-level node %q does not follow on", where, l.text)
			next = l.end
		}
	}
	assert.Equal(t, s.size, next, "%s: the top-level nodes stop short of the frame's end", where)
}

// The reference page's ConsumerGroupHeartbeat v1 request, byte for byte
// (as kwire_test.go pins it), and its response with the presence marker
// Kafka writes at 0x19.
const (
	referenceRequestHex = "00000033" + "0044000100000000000000" +
		"0101000000000101000000000201010102" + "00000000000000000000000000000000" + "0200000000" + "00" + "00"
	referenceResponseHex = "0000002f" + "0000000000" + "00000000000001010000000000000000" +
		"01" + "02" + "00000000000000000000000000000000" + "0200000000" + "00" + "00" + "00"
)

func TestConsumerGroupHeartbeatV1Golden(t *testing.T) {
	api, ok := messages.Lookup(68)
	require.True(t, ok)
	p := parseFile(t, filepath.Join(siteDir, PageFile(api, 1)))
	assert.Equal(t, [][2]string{
		{"API key", "68"}, {"Encoded at", "v1"}, {"Flexible versions", "0+"}, {"Headers", "req v2, resp v1"},
		{"Request versions", "0-1"}, {"Response versions", "0-1"}, {"Request size", "55 bytes"}, {"Response size", "51 bytes"},
	}, p.facts)
	req, resp := &p.sides[0], &p.sides[1]
	assert.Equal(t, "ConsumerGroupHeartbeatRequest v1, request header v2, 55 bytes on the wire", req.title)
	assert.Equal(t, referenceRequestHex, hex.EncodeToString(req.frameOf(t)))
	assert.Equal(t, "ConsumerGroupHeartbeatResponse v1, response header v1, 51 bytes on the wire", resp.title)
	assert.Equal(t, referenceResponseHex, hex.EncodeToString(resp.frameOf(t)))

	// The reference page's offsets and sizes, node by node.
	for _, want := range []string{
		"Frame size-delimited [0x0000, 4B]", "RequestHeader v2 [0x0004, 11B]",
		"ConsumerGroupHeartbeatRequest struct v1 [0x000f, 40B]", "GroupID string = \"\" (compact, len+1=1) [0x000f, 1B]",
		"MemberEpoch int32 = 0 [0x0011, 4B]", "SubscribedTopicNames []string = 1 element [0x001b, 2B]",
		"TopicPartitions []ConsumerGroupHeartbeatRequestTopicPartitions = 1 element [0x001f, 23B]",
		"TopicID uuid = 00000000-0000-0000-0000-000000000000 [0x0020, 16B]", "tagged_fields uvarint = 0 [0x0036, 1B]",
	} {
		assert.True(t, anyLineHas(req.lines, want), "request tree lacks %q", want)
	}
	// The response departs from the page by one byte, and says so.
	assert.True(t, anyLineHas(resp.lines, "present int8 = 1 [0x0019, 1B]"))
	require.Len(t, p.notes, 1)
	assert.Contains(t, p.notes[0], "50 bytes")
	assert.Contains(t, p.notes[0], "51")
	assert.Contains(t, p.notes[0], "presence marker (01) at 0x0019")
	assert.Equal(t, byte(0x01), resp.frameOf(t)[0x19])

	// No other page claims a departure.
	v0 := parseFile(t, filepath.Join(siteDir, PageFile(api, 0)))
	assert.Empty(t, v0.notes)
}

// referenceTrees is the reference page's two object trees, one node a
// line, as cmd/kwire keeps them (checked there against the page itself).
const referenceTrees = "../../cmd/kwire/testdata/reference-page-trees.txt"

// TestCGHV1TreeMatchesReferencePage finds every node of the reference
// page's two trees on the page, by name (case aside: GroupId, GroupID),
// offset and size: the request's as they are, the response's with the
// presence marker's byte at 0x19 put in (what follows moves up one, what
// encloses it grows one).
func TestCGHV1TreeMatchesReferencePage(t *testing.T) {
	golden, err := os.ReadFile(referenceTrees)
	require.NoError(t, err)
	_, trees, ok := strings.Cut(string(golden), "== request\n")
	require.True(t, ok)
	req, resp, ok := strings.Cut(trees, "== response\n")
	require.True(t, ok)
	api, _ := messages.Lookup(68)
	p := parseFile(t, filepath.Join(siteDir, PageFile(api, 1)))
	node := regexp.MustCompile(`^[|+\- ]*(\S+) .*\[0x([0-9a-f]{4}), (\d+)B\]`)
	type key struct {
		name      string
		off, size int
	}
	parse := func(line string) (key, bool) {
		m := node.FindStringSubmatch(line)
		if m == nil {
			return key{}, false
		}
		k := key{name: strings.ToLower(m[1])}
		fmt.Sscanf(m[2], "%x", &k.off)
		fmt.Sscanf(m[3], "%d", &k.size)
		return k, true
	}
	for i, tree := range []string{req, resp} {
		have := map[key]bool{}
		for _, l := range p.sides[i].lines {
			k, ok := parse(l.text)
			require.True(t, ok, l.text)
			have[k] = true
		}
		n := 0
		for _, line := range strings.Split(strings.TrimSpace(tree), "\n") {
			k, ok := parse(line)
			require.True(t, ok, line)
			if i == 1 {
				const marker, assignment = 0x19, 24
				switch {
				case k.off > marker || (k.off == marker && k.size < assignment):
					k.off++
				case k.off <= marker && marker < k.off+k.size:
					k.size++
				}
			}
			assert.True(t, have[k], "%s: no node %s [0x%04x, %dB] (the page: %s)", p.sides[i].id, k.name, k.off, k.size, line)
			n++
		}
		assert.Equal(t, n+i, len(p.sides[i].lines), "%s: the page's nodes, and the response's presence marker", p.sides[i].id)
	}
}

func anyLineHas(lines []parsedLine, s string) bool {
	for _, l := range lines {
		if strings.Contains(l.text, s) {
			return true
		}
	}
	return false
}

func TestIndexListsEveryAPI(t *testing.T) {
	f, err := os.Open(filepath.Join(siteDir, "index.html"))
	require.NoError(t, err)
	defer f.Close()
	root, err := html.Parse(f)
	require.NoError(t, err)
	rows := map[string]*html.Node{}
	links := map[string]bool{}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "tr" && strings.HasPrefix(attr(n, "id"), "api-") {
			rows[attr(n, "id")] = n
		}
		if n.Type == html.ElementNode && n.Data == "a" {
			links[attr(n, "href")] = true
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(root)
	apis := messages.APIs()
	assert.Len(t, rows, len(apis))
	for _, api := range apis {
		row := rows[fmt.Sprintf("api-%d", api.Key)]
		require.NotNil(t, row, api.Name)
		newest, err := Build(api, api.MaxVersion)
		require.NoError(t, err)
		cells := text(row)
		assert.Contains(t, cells, api.Name)
		assert.Contains(t, cells, fmt.Sprintf("%d-%d", api.MinVersion, api.MaxVersion))
		assert.Contains(t, cells, fmt.Sprintf("%d B", len(newest.Request.Frame)))
		assert.Contains(t, cells, fmt.Sprintf("%d B", len(newest.Response.Frame)))
		for v := api.MinVersion; v <= api.MaxVersion; v++ {
			assert.True(t, links[PageFile(api, v)], "index links %s", PageFile(api, v))
		}
		if api.LatestVersionUnstable {
			assert.Contains(t, cells, fmt.Sprintf("v%d*", api.MaxVersion), "%s marks its unstable version", api.Name)
		}
	}
}

// A page on its own (kwire layout -html) is the site's page without the
// site's links.
func TestStandalonePage(t *testing.T) {
	api, _ := messages.Lookup(68)
	p, err := Build(api, 1)
	require.NoError(t, err)
	var alone, inSite bytes.Buffer
	require.NoError(t, WritePage(&alone, p, RenderOptions{Standalone: true}))
	require.NoError(t, WritePage(&inSite, p, RenderOptions{}))
	assert.NotContains(t, alone.String(), "index.html")
	assert.Contains(t, inSite.String(), `href="index.html"`)
	nav := regexp.MustCompile(`(?s)<nav>.*?</nav>\n`)
	assert.Equal(t, nav.ReplaceAllString(inSite.String(), ""), alone.String())
}

// TestIndexSizesEveryVersion: the index's minimal-sizes table has a row
// for every API and version, each with the committed table's sizes and
// note (messages/testdata/minimal-sizes.tsv) and a link to its page.
func TestIndexSizesEveryVersion(t *testing.T) {
	f, err := os.Open(filepath.Join(siteDir, "index.html"))
	require.NoError(t, err)
	defer f.Close()
	root, err := html.Parse(f)
	require.NoError(t, err)
	type cells struct {
		texts []string
		link  string
	}
	rows := map[string]cells{}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "tr" && strings.HasPrefix(attr(n, "id"), "size-") {
			var c cells
			for td := n.FirstChild; td != nil; td = td.NextSibling {
				if td.Type == html.ElementNode && td.Data == "td" {
					c.texts = append(c.texts, text(td))
					if a := td.FirstChild; a != nil && a.Type == html.ElementNode && a.Data == "a" {
						c.link = attr(a, "href")
					}
				}
			}
			rows[attr(n, "id")] = c
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(root)

	tsv, err := os.Open("../../messages/testdata/minimal-sizes.tsv")
	require.NoError(t, err)
	defer tsv.Close()
	table, err := sizes.ReadTSV(tsv)
	require.NoError(t, err)
	require.Len(t, rows, len(table), "one row per API and version")
	for i, r := range table {
		c, ok := rows[fmt.Sprintf("size-%d-v%d", r.Key, r.Version)]
		require.True(t, ok, "%s v%d", r.Name, r.Version)
		require.Len(t, c.texts, 6)
		first := i == 0 || table[i-1].Key != r.Key
		if first {
			assert.Equal(t, []string{fmt.Sprint(r.Key), r.Name}, c.texts[:2])
		}
		assert.Equal(t, fmt.Sprintf("%d B", r.Request), c.texts[3], "%s v%d request", r.Name, r.Version)
		assert.Equal(t, fmt.Sprintf("%d B", r.Response), c.texts[4], "%s v%d response", r.Name, r.Version)
		assert.Equal(t, r.Note, c.texts[5], "%s v%d note", r.Name, r.Version)
		api, _ := messages.Lookup(r.Key)
		assert.Equal(t, PageFile(api, r.Version), c.link)
	}
	assert.Contains(t, rows["size-68-v1"].texts[5], "the page says 50, kwire writes 51")
}
