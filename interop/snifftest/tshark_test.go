package snifftest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/app/sniff"
	"github.com/kwirelabs/kwire/interop/internal/proctest"
)

// pdu is one Kafka frame as a capture reader names it.
type pdu struct {
	request      bool
	clientPort   int
	key, version int // requests
	corr         int
}

// tsharkPDUs is every Kafka frame Wireshark's dissector finds in a
// capture, told the broker's port.
func tsharkPDUs(t *testing.T, path string, brokerPorts []int) []pdu {
	bin, err := exec.LookPath("tshark")
	if err != nil {
		t.Skip("tshark is not installed (Debian: apt-get install tshark; .ci/run installs it)")
	}
	args := []string{"-r", path}
	broker := map[string]bool{}
	for _, p := range brokerPorts {
		args = append(args, "-d", "tcp.port=="+strconv.Itoa(p)+",kafka")
		broker[strconv.Itoa(p)] = true
	}
	args = append(args, "-Y", "kafka", "-T", "fields", "-E", "occurrence=a", "-E", "separator=|",
		"-e", "tcp.srcport", "-e", "tcp.dstport", "-e", "kafka.request_key", "-e", "kafka.api_version", "-e", "kafka.correlation_id")
	cmd := proctest.Command(t, 5*time.Minute, bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "tshark: %s", stderr.String())
	var pdus []pdu
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "|")
		require.Len(t, f, 5, line)
		src, _ := strconv.Atoi(f[0])
		dst, _ := strconv.Atoi(f[1])
		corrs := strings.Split(f[4], ",")
		if broker[f[1]] {
			keys, versions := strings.Split(f[2], ","), strings.Split(f[3], ",")
			require.Len(t, keys, len(corrs), line)
			for i, c := range corrs {
				k, _ := strconv.Atoi(keys[i])
				v, _ := strconv.Atoi(versions[i])
				n, _ := strconv.Atoi(c)
				pdus = append(pdus, pdu{request: true, clientPort: src, key: k, version: v, corr: n})
			}
			continue
		}
		for _, c := range corrs {
			n, _ := strconv.Atoi(c)
			pdus = append(pdus, pdu{clientPort: dst, corr: n})
		}
	}
	return pdus
}

// TestAgreesWithTshark: on kgo's traffic with kfake, every Kafka frame
// Wireshark's dissector finds (its API key, version and correlation id
// for requests; correlation id for responses) is a frame kwire sniff
// decodes, and kwire finds no frame Wireshark does not.
func TestAgreesWithTshark(t *testing.T) {
	rec, ports := kgoTraffic(t)
	path := filepath.Join(t.TempDir(), "kgo.pcap")
	rec.mu.Lock()
	require.NoError(t, os.WriteFile(path, rec.capture.Pcap(), 0o600))
	rec.mu.Unlock()
	want := tsharkPDUs(t, path, ports)

	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var got []pdu
	_, err = sniff.Read(f, sniff.Options{}, func(r *sniff.Record) {
		if r.Kind != sniff.Request && r.Kind != sniff.Response {
			return
		}
		require.NoError(t, r.Err)
		client, err := strconv.Atoi(r.Client[strings.LastIndexByte(r.Client, ':')+1:])
		require.NoError(t, err)
		p := pdu{request: r.Kind == sniff.Request, clientPort: client, corr: int(r.CorrelationID)}
		if p.request {
			p.key, p.version = int(r.Key), int(r.Version)
		}
		got = append(got, p)
	})
	require.NoError(t, err)
	count := func(ps []pdu) map[string]int {
		m := map[string]int{}
		for _, p := range ps {
			m[fmt.Sprintf("%+v", p)]++
		}
		return m
	}
	assert.Equal(t, count(want), count(got))
	t.Logf("tshark and kwire sniff agree on %d frames", len(want))
}
