package main

import (
	"bytes"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/messages"
)

const referencePage = "../../../shared/spec/ConsumerGroupHeartbeat-minimal-instance.txt"

// pageNode is one node of the reference page's object tree.
type pageNode struct {
	name         string
	offset, size int
}

// nodeRE finds "+-- NAME ... [0xOFFSET, SIZEB]" in the page's tree; the
// first node has no "+-- " in front.
var nodeRE = regexp.MustCompile(`(?:\+-- |^)(\S+) .*?\[0x([0-9a-f]+), (\d+)B\]`)

func parsePageTree(t *testing.T, tree string) []pageNode {
	var out []pageNode
	for _, part := range strings.Split(tree, "+-- ") {
		m := nodeRE.FindStringSubmatch(strings.TrimSpace(part))
		if m == nil {
			continue
		}
		off, _ := strconv.ParseInt(m[2], 16, 32)
		size, _ := strconv.Atoi(m[3])
		out = append(out, pageNode{name: m[1], offset: int(off), size: size})
	}
	return out
}

// TestLayoutMatchesReferencePage checks the request tree against the
// page's, node for node: same order, offsets and sizes, and the same names
// once the page's GroupId style is spelled GroupID.
func TestLayoutMatchesReferencePage(t *testing.T) {
	page, err := os.ReadFile(referencePage)
	if os.IsNotExist(err) {
		t.Skip("the reference page is not beside the project (../shared/spec)")
	}
	require.NoError(t, err)
	text := string(page)
	start := strings.Index(text, "ConsumerGroupHeartbeatRequest message v1")
	end := strings.Index(text, "kafka message schema")
	require.True(t, start >= 0 && end > start, "page layout changed")
	want := parsePageTree(t, text[start:end])
	require.Len(t, want, 30)

	var out bytes.Buffer
	require.NoError(t, run([]string{"layout", "ConsumerGroupHeartbeatRequest", "-v", "1"}, &out))
	var got []pageNode
	for _, line := range strings.Split(out.String(), "\n") {
		m := regexp.MustCompile(`^[| ]*(?:\+-- )?(\S+) .*\[0x([0-9a-f]+), (\d+)B\]$`).FindStringSubmatch(line)
		if m == nil {
			continue
		}
		off, _ := strconv.ParseInt(m[2], 16, 32)
		size, _ := strconv.Atoi(m[3])
		got = append(got, pageNode{name: m[1], offset: int(off), size: size})
	}
	require.Len(t, got, len(want))
	for i := range want {
		w := want[i]
		w.name = strings.ReplaceAll(w.name, "Id", "ID")
		assert.Equal(t, w, got[i], "node %d", i)
	}
	assert.Contains(t, out.String(), "0000  00 00 00 33 00 44 00 01")
}

func TestLayoutErrors(t *testing.T) {
	var out bytes.Buffer
	assert.ErrorContains(t, run([]string{"layout", "NoSuchRequest"}, &out), "no request or response named")
	assert.ErrorContains(t, run([]string{"layout", "ConsumerGroupHeartbeatRequest", "-v", "9"}, &out), "versions 0-1")
	assert.ErrorContains(t, run([]string{"layout", "-k", "4000"}, &out), "no API with key")
}

func TestLayoutByKeyAndDefaultVersion(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run([]string{"layout", "-k", "68", "-response"}, &out))
	assert.Contains(t, out.String(), "ConsumerGroupHeartbeatResponse v1: 51 bytes on the wire")
	out.Reset()
	require.NoError(t, run([]string{"layout", "produce-request", "-v", "3"}, &out))
	assert.Contains(t, out.String(), "ProduceRequest v3:")
	assert.Contains(t, out.String(), "records")
}

func TestAPIsListsEveryKey(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run([]string{"apis"}, &out))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	assert.Len(t, lines, 91) // header + keys 0-89
	assert.Regexp(t, `68\s+ConsumerGroupHeartbeat\s+0-1\s+0`, out.String())
}

// TestLayoutEveryMessage: the layout of every request and response at
// every version traces the whole frame, and its nodes cover the frame.
func TestLayoutEveryMessage(t *testing.T) {
	for _, api := range messages.APIs() {
		for v := api.MinVersion; v <= api.MaxVersion; v++ {
			for _, resp := range []bool{false, true} {
				args := []string{"layout", "-k", strconv.Itoa(int(api.Key)), "-v", strconv.Itoa(int(v))}
				if resp {
					args = append(args, "-response")
				}
				var out bytes.Buffer
				require.NoError(t, run(args, &out), "%s v%d response=%v", api.Name, v, resp)
				m := regexp.MustCompile(`: (\d+) bytes on the wire`).FindStringSubmatch(out.String())
				require.NotNil(t, m)
				assert.Contains(t, out.String(), "message v"+strconv.Itoa(int(v))+" [0x0000, "+m[1]+"B]", "%s v%d", api.Name, v)
			}
		}
	}
}
