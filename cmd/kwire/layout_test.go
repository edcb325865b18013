package main

import (
	"bytes"
	"encoding/hex"
	"math/rand"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

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
	assert.Len(t, lines, 97) // header + keys 0-94 + the tests' custom Ledger (key 1000, custom_api_test.go)
	assert.Regexp(t, `68\s+ConsumerGroupHeartbeat\s+0-1\s+0`, out.String())
	assert.Regexp(t, `22\s+InitProducerId\s+0-6 \(v6 unstable\)\s+2`, out.String())
	assert.Regexp(t, `94\s+UnregisterController\s+0-0\s+0`, out.String())
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
				// Frame, header and body sit end to end and fill the frame.
				next := 0
				for _, top := range regexp.MustCompile(`(?m)^\+-- .*\[0x([0-9a-f]+), (\d+)B\]$`).FindAllStringSubmatch(out.String(), -1) {
					off, _ := strconv.ParseInt(top[1], 16, 32)
					size, _ := strconv.Atoi(top[2])
					assert.Equal(t, next, int(off), "%s v%d response=%v", api.Name, v, resp)
					next += size
				}
				assert.Equal(t, m[1], strconv.Itoa(next), "%s v%d response=%v", api.Name, v, resp)
			}
		}
	}
}

// TestDecodeMatchesLayout: decoding the page's request bytes gives the
// tree layout printed for the message it was made from.
func TestDecodeMatchesLayout(t *testing.T) {
	var layout, decoded bytes.Buffer
	require.NoError(t, run([]string{"layout", "ConsumerGroupHeartbeatRequest", "-v", "1"}, &layout))
	frameHex := "00000033 00440001 00000000 0000 00 0101 00000000 0101 00000000 0201 0101 02" +
		strings.Repeat("00", 16) + "02 00000000 00 00"
	require.NoError(t, run([]string{"decode", frameHex}, &decoded))
	_, wantTree, _ := strings.Cut(layout.String(), "\n\n")
	assert.Equal(t, wantTree, decoded.String())

	var resp bytes.Buffer
	require.NoError(t, runDecode([]string{"-response", "-k", "68", "-v", "1"},
		strings.NewReader("0000002f 00000000 00 00000000 0000 01 01 00000000 00000000 01 02"+strings.Repeat("00", 16)+"02 00000000 00 00 00"), &resp))
	assert.Contains(t, resp.String(), "+-- present int8 = 1 [0x0019, 1B]")
}

// TestDecodeHostileFrames: random and damaged frames give an error or a
// tree, never a panic.
func TestDecodeHostileFrames(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	var out bytes.Buffer
	for _, api := range messages.APIs() {
		for v := api.MinVersion; v <= api.MaxVersion; v++ {
			req := api.NewRequest()
			require.NoError(t, kwire.FillMinimal(req, v))
			frame, err := kwire.AppendRequest(nil, req, v, 1, nil)
			require.NoError(t, err)
			for i := 0; i < 5; i++ {
				bad := append([]byte(nil), frame...)
				for j := 0; j < 1+r.Intn(3); j++ {
					pos := 6 + r.Intn(len(bad)-6) // keep the API key, damage the rest
					bad[pos] = byte(r.Intn(256))
				}
				out.Reset()
				_ = run([]string{"decode", hex.EncodeToString(bad)}, &out) // must not panic
			}
		}
	}
	assert.Error(t, run([]string{"decode", "zz"}, &out))
	assert.Error(t, run([]string{"decode", "-response", "-k", "68", "00000000"}, &out))
}
