package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The reference page (../shared/spec/ConsumerGroupHeartbeat-minimal-instance.txt)
// is not part of the repository; its two object trees are, as a golden
// file without the page's descriptions. -page checks the golden file
// against the page (.ci/run does when the page is there); -write-golden
// rewrites it from the page.
const pageGolden = "testdata/reference-page-trees.txt"

var (
	pagePath    = flag.String("page", "", "the reference page to check "+pageGolden+" against")
	writeGolden = flag.Bool("write-golden", false, "rewrite "+pageGolden+" from -page")
)

// pageNode is one node of an object tree: NAME TYPE [= VALUE] [0xOFF, SIZEB].
type pageNode struct {
	name, value  string // value: the text after " = ", if any
	offset, size int
}

var pageNodeRE = regexp.MustCompile(`^(\S+)((?: \S+)*?)(?: = (.*?))? \[0x([0-9a-f]+), (\d+)B\]`)

func parseNode(s string) (pageNode, string, bool) {
	m := pageNodeRE.FindStringSubmatch(s)
	if m == nil {
		return pageNode{}, "", false
	}
	off, _ := strconv.ParseInt(m[4], 16, 32)
	size, _ := strconv.Atoi(m[5])
	return pageNode{name: m[1], value: m[3], offset: int(off), size: size}, m[0], true
}

// pageTrees reads the request and response trees from the page, whose
// tree is flattened into one line per message ("A [..] desc +-- B [..]
// desc | +-- C ..."), and returns them as golden-file text: one node a
// line, descriptions dropped.
func pageTrees(page string) (string, error) {
	var b strings.Builder
	b.WriteString("# The object trees of the reference page ConsumerGroupHeartbeat-minimal-instance.txt\n" +
		"# (request, then response, as the page prints them; descriptions left out).\n" +
		"# One node a line: NAME TYPE [= VALUE] [0xOFFSET, SIZEB]. Checked against the page by\n" +
		"# go test ./cmd/kwire -run TestLayoutMatchesReferencePage -page PATH (-write-golden rewrites it).\n")
	for _, side := range []string{"Request", "Response"} {
		start := strings.Index(page, "ConsumerGroupHeartbeat"+side+" message v1")
		if start < 0 {
			return "", fmt.Errorf("no %s tree on the page", side)
		}
		end := strings.Index(page[start:], "kafka message schema")
		if end < 0 {
			return "", fmt.Errorf("the %s tree does not end", side)
		}
		fmt.Fprintf(&b, "== %s\n", strings.ToLower(side))
		for _, part := range strings.Split(page[start:start+end], "+-- ") {
			_, text, ok := parseNode(strings.TrimSpace(part))
			if !ok {
				return "", fmt.Errorf("cannot read node %q", part)
			}
			b.WriteString(text + "\n")
		}
	}
	return b.String(), nil
}

// goldenTrees reads the golden file: "request" and "response" to nodes.
func goldenTrees(t *testing.T) map[string][]pageNode {
	data, err := os.ReadFile(pageGolden)
	require.NoError(t, err)
	trees := map[string][]pageNode{}
	side := ""
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		switch {
		case strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "== "):
			side = strings.TrimPrefix(line, "== ")
		default:
			n, _, ok := parseNode(line)
			require.True(t, ok, "golden line %q", line)
			trees[side] = append(trees[side], n)
		}
	}
	return trees
}

// layoutTree runs `kwire layout` and reads its tree.
func layoutTree(t *testing.T, args ...string) []pageNode {
	var out bytes.Buffer
	require.NoError(t, run(append([]string{"layout"}, args...), &out))
	var nodes []pageNode
	for _, line := range strings.Split(out.String(), "\n") {
		if n, _, ok := parseNode(strings.TrimLeft(line, "|+- ")); ok {
			nodes = append(nodes, n)
		}
	}
	return nodes
}

// fromPage turns a page node into what kwire prints: Go spells Id as ID,
// and the page annotates the API key with the API's name.
func fromPage(n pageNode) pageNode {
	n.name = strings.ReplaceAll(n.name, "Id", "ID")
	n.value = strings.TrimSuffix(n.value, " (ConsumerGroupHeartbeat)")
	return n
}

func TestLayoutMatchesReferencePage(t *testing.T) {
	if *pagePath != "" {
		page, err := os.ReadFile(*pagePath)
		require.NoError(t, err)
		want, err := pageTrees(strings.Join(strings.Fields(string(page)), " "))
		require.NoError(t, err)
		if *writeGolden {
			require.NoError(t, os.WriteFile(pageGolden, []byte(want), 0o644))
		}
		got, err := os.ReadFile(pageGolden)
		require.NoError(t, err)
		require.Equal(t, want, string(got), "%s is not the page's trees (-write-golden rewrites it)", pageGolden)
	}
	trees := goldenTrees(t)

	// The request: node for node the same names, values, offsets, sizes.
	want := trees["request"]
	require.Len(t, want, 30)
	got := layoutTree(t, "ConsumerGroupHeartbeatRequest", "-v", "1")
	require.Len(t, got, len(want))
	for i := range want {
		assert.Equal(t, fromPage(want[i]), got[i], "request node %d", i)
	}

	// The response: the page's tree with the one documented difference
	// (GUIDE.md): Kafka's int8 presence marker before the nullable struct
	// Assignment at 0x19, which the page leaves out. So Assignment and
	// what contains it grow by a byte, what follows it moves by one, and
	// the size prefix says 47.
	want = trees["response"]
	require.Len(t, want, 24)
	var adjusted []pageNode
	after := false
	for _, n := range want {
		n = fromPage(n)
		switch {
		case n.name == "Assignment":
			n.size++
			adjusted = append(adjusted, n, pageNode{name: "present", value: "1", offset: n.offset, size: 1})
			after = true
			continue
		case n.name == "ConsumerGroupHeartbeatResponse":
			n.size++ // the message and its body
		case n.name == "size":
			assert.Equal(t, "46", n.value)
			n.value = "47"
		case after:
			n.offset++
		}
		adjusted = append(adjusted, n)
	}
	got = layoutTree(t, "ConsumerGroupHeartbeatResponse", "-v", "1")
	require.Len(t, got, len(adjusted))
	for i := range adjusted {
		assert.Equal(t, adjusted[i], got[i], "response node %d", i)
	}
}
