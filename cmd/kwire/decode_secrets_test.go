package main

import (
	"bytes"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/app/secrettest"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// secretFrame is a frame holding secrets, and how decode is told its kind.
type secretFrame struct {
	name    string
	frame   []byte
	args    []string // -response -k -v, for a response
	secrets [][]byte
}

var (
	plainToken = []byte("\x00alice\x00s3cret")
	// A 32-byte HMAC-SHA256, as brokers issue by default.
	tokenHmac, _ = hex.DecodeString("8f1d3c5e7a9b0d2f4e6a8c1b3d5f7e9a0c2e4f6a8b1d3c5e7f9a0b2c4d6e8f0a")
	jaasConfig   = `org.apache.kafka.common.security.plain.PlainLoginModule required username="bob" password="hunter2pw";`
)

// secretFrames are every version of SaslAuthenticate (PLAIN token),
// CreateDelegationToken and DescribeDelegationToken responses (HMAC) and
// IncrementalAlterConfigs (a JAAS config holding a password).
func secretFrames(t *testing.T) []secretFrame {
	var frames []secretFrame
	add := func(name string, args []string, frame []byte, err error, secrets ...[]byte) {
		require.NoError(t, err, name)
		frames = append(frames, secretFrame{name, frame, args, secrets})
	}
	respArgs := func(key int16, v int16) []string {
		return []string{"-response", "-k", strconv.Itoa(int(key)), "-v", strconv.Itoa(int(v))}
	}
	sasl, _ := messages.Lookup(36)
	for v := sasl.MinVersion; v <= sasl.MaxVersion; v++ {
		f, err := kwire.AppendRequest(nil, &messages.SaslAuthenticateRequest{AuthBytes: plainToken}, v, 7, nil)
		add("SaslAuthenticate v"+strconv.Itoa(int(v)), nil, f, err, plainToken, []byte("s3cret"))
	}
	create, _ := messages.Lookup(38)
	for v := create.MinVersion; v <= create.MaxVersion; v++ {
		f, err := kwire.AppendResponse(nil, &messages.CreateDelegationTokenResponse{TokenID: "tok", Hmac: tokenHmac}, v, 7)
		add("CreateDelegationTokenResponse v"+strconv.Itoa(int(v)), respArgs(38, v), f, err, tokenHmac)
	}
	describe, _ := messages.Lookup(41)
	for v := describe.MinVersion; v <= describe.MaxVersion; v++ {
		resp := &messages.DescribeDelegationTokenResponse{Tokens: []messages.DescribeDelegationTokenResponseDescribedDelegationToken{
			{TokenID: "one"}, {TokenID: "two", Hmac: tokenHmac}}}
		f, err := kwire.AppendResponse(nil, resp, v, 7)
		add("DescribeDelegationTokenResponse v"+strconv.Itoa(int(v)), respArgs(41, v), f, err, tokenHmac)
	}
	alter, _ := messages.Lookup(44)
	for v := alter.MinVersion; v <= alter.MaxVersion; v++ {
		req := &messages.IncrementalAlterConfigsRequest{Resources: []messages.IncrementalAlterConfigsRequestAlterConfigsResource{
			{ResourceType: 4, ResourceName: "1", Configs: []messages.IncrementalAlterConfigsRequestAlterableConfig{
				{Name: "log.retention.ms", Value: ptr("1000")},
				{Name: "listener.name.sasl_ssl.plain.sasl.jaas.config", Value: ptr(jaasConfig)}}}}}
		f, err := kwire.AppendRequest(nil, req, v, 7, nil)
		add("IncrementalAlterConfigs v"+strconv.Itoa(int(v)), nil, f, err, []byte(jaasConfig), []byte("hunter2pw"))
	}
	return frames
}

func ptr[T any](v T) *T { return &v }

var decodeModes = [][]string{{}, {"-json"}, {"-json", "-records"}, {"-json", "-raw-records"}}

// dumpBytes reads the bytes back out of decode's hex dump ("**" for a
// blanked byte becomes '*'), so a secret split across rows is found too.
func dumpBytes(out string) []byte {
	row := regexp.MustCompile(`^[0-9a-f]{4}  ((?:(?:[0-9a-f]{2}|\*\*) )+)$`)
	var b []byte
	for _, line := range strings.Split(out, "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		for _, h := range strings.Fields(m[1]) {
			if h == "**" {
				b = append(b, '*')
				continue
			}
			c, _ := strconv.ParseUint(h, 16, 8)
			b = append(b, byte(c))
		}
	}
	return b
}

func TestDecodeHidesSecretsInEveryMode(t *testing.T) {
	for _, f := range secretFrames(t) {
		for _, mode := range decodeModes {
			args := append(append([]string{"decode"}, mode...), f.args...)
			var out bytes.Buffer
			require.NoError(t, run(append(args, hex.EncodeToString(f.frame)), &out), "%s %v", f.name, mode)
			for _, s := range f.secrets {
				if form, found := secrettest.Find(out.Bytes(), s); found {
					t.Errorf("%s, decode %v: the secret %q is in the output as %s:\n%s", f.name, mode, s, form, out.String())
				}
				if bytes.Contains(dumpBytes(out.String()), s) {
					t.Errorf("%s, decode %v: the secret %q is in the hex dump", f.name, mode, s)
				}
			}
			if len(mode) == 0 {
				assert.Contains(t, out.String(), "<redacted ", f.name)
				assert.Contains(t, out.String(), "** ", f.name)
			}
		}
	}
}

func TestDecodeShowSecrets(t *testing.T) {
	for _, f := range secretFrames(t) {
		for _, mode := range decodeModes {
			args := append(append([]string{"decode", "-show-secrets"}, mode...), f.args...)
			var out bytes.Buffer
			require.NoError(t, run(append(args, hex.EncodeToString(f.frame)), &out), "%s %v", f.name, mode)
			s := f.secrets[len(f.secrets)-1] // the password alone: JSON escapes the quotes around it
			if len(mode) == 0 {
				// The dump shows every byte of the frame as it is.
				assert.Equal(t, f.frame, dumpBytes(out.String()), f.name)
				assert.NotContains(t, out.String(), "redacted", f.name)
				continue
			}
			_, found := secrettest.Find(out.Bytes(), s)
			assert.True(t, found, "%s, decode %v: the secret %q is not shown:\n%s", f.name, mode, s, out.String())
		}
	}
}

// The tree keeps what is not secret: the config's name and the other
// config's value, the user's other fields, and the secret's length.
func TestDecodeBlanksOnlySecrets(t *testing.T) {
	frames := secretFrames(t)
	last := frames[len(frames)-1]
	var out bytes.Buffer
	require.NoError(t, run([]string{"decode", hex.EncodeToString(last.frame)}, &out))
	assert.Contains(t, out.String(), `Name string = "listener.name.sasl_ssl.plain.sasl.jaas.config"`)
	assert.Contains(t, out.String(), `Value nullable_string = "1000"`)
	assert.Contains(t, out.String(), "Value nullable_string = <redacted "+strconv.Itoa(len(jaasConfig))+" bytes>")
	blanked := bytes.Count(dumpBytes(out.String()), []byte("*"))
	assert.Equal(t, len(jaasConfig), blanked, "the bytes blanked in the dump")
}

func TestPasswordFileOpenToOthersWarns(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permission bits")
	}
	file := filepath.Join(t.TempDir(), "pw")
	require.NoError(t, os.WriteFile(file, []byte("s3cret\n"), 0o600))
	f := saslFlags{mechanism: "PLAIN", user: "alice", passwordFile: file}
	var warn bytes.Buffer
	creds, err := f.credentials(&warn)
	require.NoError(t, err)
	assert.Equal(t, "s3cret", creds.Password)
	assert.Empty(t, warn.String(), "a 0600 file")

	for _, mode := range []os.FileMode{0o640, 0o604, 0o660} {
		require.NoError(t, os.Chmod(file, mode))
		warn.Reset()
		_, err = f.credentials(&warn)
		require.NoError(t, err)
		assert.Contains(t, warn.String(), file, "mode %o", mode)
		assert.Contains(t, warn.String(), "chmod 600", "mode %o", mode)
		assert.NotContains(t, warn.String(), "s3cret")
	}
}
