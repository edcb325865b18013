package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/app/secrettest"
	"github.com/kwirelabs/kwire/app/sniff/capturetest"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

const plainSecret = "s3cret-pw"

// saslCapture holds a SASL PLAIN login both ways Kafka allows (raw
// tokens after SaslHandshake v0; SaslAuthenticate after v1), a TLS
// ClientHello on a Kafka port, and a Metadata exchange with an error.
func saslCapture(t *testing.T) *capturetest.Capture {
	c := capturetest.New()
	client := "kcat"
	frame := func(b []byte, err error) []byte {
		require.NoError(t, err)
		return b
	}
	plain := []byte("\x00alice\x00" + plainSecret)

	v0 := c.Dial("10.0.0.5:40001", "10.0.0.9:9092", true)
	v0.Send(true, frame(kwire.AppendRequest(nil, &messages.SaslHandshakeRequest{Mechanism: "PLAIN"}, 0, 1, &client)), 1460)
	v0.Send(false, frame(kwire.AppendResponse(nil, &messages.SaslHandshakeResponse{Mechanisms: []string{"PLAIN"}}, 0, 1)), 1460)
	v0.Send(true, binary.BigEndian.AppendUint32(nil, uint32(len(plain))), 1460)
	v0.Send(true, plain, 1460)
	v0.Send(false, []byte{0, 0, 0, 0}, 1460) // the broker's empty answer
	md := &messages.MetadataRequest{}
	require.NoError(t, kwire.FillMinimal(md, 12))
	v0.Send(true, frame(kwire.AppendRequest(nil, md, 12, 2, &client)), 1460)
	mdr := &messages.MetadataResponse{}
	require.NoError(t, kwire.FillMinimal(mdr, 12))
	mdr.Topics[0].ErrorCode = 3 // UNKNOWN_TOPIC_OR_PARTITION
	v0.Send(false, frame(kwire.AppendResponse(nil, mdr, 12, 2)), 1460)
	v0.Close()

	v1 := c.Dial("10.0.0.6:40002", "10.0.0.9:9092", true)
	v1.Send(true, frame(kwire.AppendRequest(nil, &messages.SaslHandshakeRequest{Mechanism: "PLAIN"}, 1, 1, &client)), 1460)
	v1.Send(false, frame(kwire.AppendResponse(nil, &messages.SaslHandshakeResponse{Mechanisms: []string{"PLAIN"}}, 1, 1)), 1460)
	v1.Send(true, frame(kwire.AppendRequest(nil, &messages.SaslAuthenticateRequest{AuthBytes: plain}, 2, 2, &client)), 1460)
	v1.Send(false, frame(kwire.AppendResponse(nil, &messages.SaslAuthenticateResponse{AuthBytes: []byte{}}, 2, 2)), 1460)
	v1.Close()

	tls := c.Dial("10.0.0.7:51234", "10.0.0.9:9093", true)
	hello := append([]byte{0x16, 0x03, 0x01, 0x00, 0x40, 0x01, 0x00, 0x00, 0x3c, 0x03, 0x03}, make([]byte, 61)...)
	tls.Send(true, hello, 1460)
	tls.Close()
	return c
}

func writeCapture(t *testing.T, data []byte, name string) string {
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, data, 0o600))
	return path
}

// noSecret fails if the PLAIN password shows in out in any encoding.
func noSecret(t *testing.T, out string) {
	if form, found := secrettest.Find([]byte(out), []byte(plainSecret)); found {
		t.Errorf("the password is in the output as %s", form)
	}
}

func TestSniffTextAndJSON(t *testing.T) {
	c := saslCapture(t)
	for _, format := range []string{"pcap", "pcapng"} {
		data := c.Pcap()
		if format == "pcapng" {
			data = c.Pcapng()
		}
		path := writeCapture(t, data, "sasl."+format)

		var out bytes.Buffer
		require.NoError(t, runSniff([]string{"-r", path}, nil, &out, &out))
		text := out.String()
		noSecret(t, text)
		assert.Contains(t, text, "TLS ClientHello on 10.0.0.7:51234 → :9093: encrypted, not decodable")
		assert.Equal(t, 2, strings.Count(text, "raw SASL token"), text)
		assert.Contains(t, text, "SaslAuthenticate v2 corr=2")
		assert.Contains(t, text, "Metadata v12 corr=2")
		assert.Contains(t, text, "UNKNOWN_TOPIC_OR_PARTITION")
		assert.Contains(t, text, "-- summary")

		out.Reset()
		require.NoError(t, runSniff([]string{"-r", "-", "-json"}, bytes.NewReader(data), &out, &out))
		noSecret(t, out.String())
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		var responses int
		for _, l := range lines {
			var m map[string]any
			require.NoError(t, json.Unmarshal([]byte(l), &m), l)
			if m["dir"] == "response" && m["api"] != nil {
				responses++
				assert.NotNil(t, m["latency_ms"], l)
				assert.Equal(t, "kcat", m["client_id"], l)
			}
		}
		assert.Equal(t, 4, responses)
		assert.Contains(t, out.String(), `"principal":"alice"`)
		assert.Contains(t, lines[len(lines)-1], `"summary"`)

		out.Reset()
		require.NoError(t, runSniff([]string{"-r", path, "-errors"}, nil, &out, &out))
		lines = strings.Split(strings.TrimSpace(strings.Split(out.String(), "\n-- summary")[0]), "\n")
		assert.Len(t, lines, 2, out.String()) // the Metadata response, the TLS connection
		assert.Contains(t, lines[0], "Metadata v12")

		out.Reset()
		require.NoError(t, runSniff([]string{"-r", path, "-api", "SaslAuthenticate", "-client", "kcat"}, nil, &out, &out))
		shown := strings.Split(out.String(), "\n-- summary")[0]
		assert.Equal(t, 2, strings.Count(shown, "SaslAuthenticate v2"), out.String())
		assert.NotContains(t, shown, "Metadata v12")
	}
}
