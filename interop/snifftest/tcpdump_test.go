package snifftest

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kwirelabs/kwire/app/secrettest"
	"github.com/kwirelabs/kwire/app/sniff"
	"github.com/kwirelabs/kwire/app/trafficlog"
	"github.com/kwirelabs/kwire/interop/internal/proctest"
	"github.com/kwirelabs/kwire/interop/realclient"
)

// freePort is a loopback port nobody listens on now.
func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// tcpdump captures loopback traffic to and from ports into a file until
// the returned stop is called, which returns the file's path (pcapng
// when asked for) and whether the kernel dropped packets.
func tcpdump(t *testing.T, ports []int, pcapng bool) func() (path string, dropped bool) {
	bin, err := exec.LookPath("tcpdump")
	if err != nil {
		t.Skip("tcpdump is not installed (Debian: apt-get install tcpdump; .ci/run installs it)")
	}
	if os.Geteuid() != 0 {
		t.Skip("capturing needs root")
	}
	var editcap string
	if pcapng {
		// tcpdump writes libpcap only; Wireshark's editcap rewrites it as pcapng.
		if editcap, err = exec.LookPath("editcap"); err != nil {
			t.Skip("editcap is not installed (Debian: wireshark-common, which tshark brings)")
		}
	}
	// stop sends UDP datagrams here and waits until one is in the file:
	// tcpdump writes each packet as it takes it (-U), in the order the
	// kernel saw them, so then it has written all the clients' traffic.
	// sniff counts the datagrams as not TCP.
	end, err := net.ListenPacket("udp4", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { end.Close() })
	path := filepath.Join(t.TempDir(), "lo.pcap")
	// A 64 MiB kernel buffer (-B, in KiB; the default is 2 MiB): on a
	// loaded machine tcpdump falls behind the clients, and what overflows
	// the buffer is dropped.
	args := []string{"-i", "lo", "-U", "--immediate-mode", "-B", "65536", "-s", "0", "-Z", "root", "-w", path}
	filter := []string{"udp dst port " + strconv.Itoa(end.LocalAddr().(*net.UDPAddr).Port)}
	for _, p := range ports {
		filter = append(filter, "tcp port "+strconv.Itoa(p))
	}
	args = append(args, strings.Join(filter, " or "))
	cmd := proctest.Command(t, 10*time.Minute, bin, args...)
	stderr := proctest.NewOutput(nil)
	cmd.Stderr = stderr
	proc, err := proctest.Start(cmd)
	require.NoError(t, err)
	t.Cleanup(proc.Kill) // a test that failed before stop
	// tcpdump says "listening on lo" once the capture is running.
	require.NotNil(t, stderr.Await(regexp.MustCompile(`listening on`), proc.Exited(), 30*time.Second), "tcpdump did not start: %s", stderr.String())
	return func() (string, bool) {
		marker := []byte(fmt.Sprintf("kwire snifftest: end of capture %d", time.Now().UnixNano()))
		mark, err := net.Dial("udp4", end.LocalAddr().String())
		require.NoError(t, err)
		defer mark.Close()
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			_, err := mark.Write(marker)
			require.NoError(t, err)
			written, err := os.ReadFile(path)
			require.NoError(t, err)
			if bytes.Contains(written, marker) {
				break
			}
			require.True(t, time.Now().Before(deadline), "tcpdump has not written what was sent 30 s ago; stderr: %s", stderr.String())
		}
		require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
		require.NoError(t, proc.Wait(30*time.Second), "tcpdump: %s", stderr.String())
		t.Logf("tcpdump: %s", strings.TrimSpace(stderr.String()))
		dropped := !strings.Contains(stderr.String(), "\n0 packets dropped by kernel")
		if editcap != "" {
			out, err := proctest.Command(t, time.Minute, editcap, "-F", "pcapng", path, path+"ng").CombinedOutput()
			require.NoError(t, err, "editcap: %s", out)
			return path + "ng", dropped
		}
		return path, dropped
	}
}

// runClient runs a client with a deadline, stdin as its input, and
// returns its stdout.
func runClient(t *testing.T, stdin, name string, args ...string) string {
	t.Helper()
	cmd := proctest.Command(t, time.Minute, name, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "%s %v: %s", name, args, stderr.String())
	return stdout.String()
}

const pythonClient = `
import sys
from kafka import KafkaProducer, KafkaConsumer
addr, topic, n, user, password = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
opts = dict(bootstrap_servers=addr, request_timeout_ms=10000, client_id='sniff-python',
            security_protocol='SASL_PLAINTEXT', sasl_mechanism='PLAIN',
            sasl_plain_username=user, sasl_plain_password=password)
producer = KafkaProducer(compression_type='gzip', linger_ms=5, **opts)
for f in [producer.send(topic, key=b'key-%d' % i, value=b'value-%d' % i) for i in range(n)]:
    f.get(timeout=20)
producer.close(timeout=10)
consumer = KafkaConsumer(topic, group_id=None, auto_offset_reset='earliest', **opts)
got = 0
for m in consumer:
    got += 1
    if got == n:
        break
consumer.close()
print(got)
`

// TestLoopbackCapture: kcat (librdkafka) and kafka-python (with SASL
// PLAIN) produce to and consume from kfake while tcpdump captures the
// loopback; every request in the capture decodes, every response pairs
// with its request and decodes, nothing is a gap, and the password is in
// no line.
func TestLoopbackCapture(t *testing.T) {
	for _, pcapng := range []bool{false, true} {
		t.Run(fmt.Sprintf("pcapng=%v", pcapng), func(t *testing.T) {
			const secret = "py-s3cret"
			// kcat speaks to kfake; kafka-python logs in with SASL PLAIN
			// (SaslHandshake v0, then raw tokens) to the realclient broker.
			port := freePort(t)
			cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.Ports(port), kfake.SeedTopics(2, "lo"))
			require.NoError(t, err)
			defer cluster.Close()
			broker, err := realclient.Start(2, t.Logf)
			require.NoError(t, err)
			defer broker.Close()
			broker.SetSASLPlain(map[string]string{"bob": secret})
			stop := tcpdump(t, []int{port, int(broker.Port())}, pcapng)
			addr, plainAddr := broker.Addr(), cluster.ListenAddrs()[0]
			clients := 0
			if kcat, err := exec.LookPath("kcat"); err == nil {
				clients++
				var in strings.Builder
				for i := range 200 {
					fmt.Fprintf(&in, "k%d:v%d\n", i, i)
				}
				runClient(t, in.String(), kcat, "-P", "-b", plainAddr, "-t", "lo", "-K:", "-z", "lz4", "-X", "client.id=sniff-kcat")
				got := runClient(t, "", kcat, "-C", "-b", plainAddr, "-t", "lo", "-o", "beginning", "-e", "-q", "-X", "client.id=sniff-kcat")
				require.Len(t, strings.Fields(got), 200)
			}
			if py := kafkaPython(t); py != "" {
				clients++
				script := filepath.Join(t.TempDir(), "client.py")
				require.NoError(t, os.WriteFile(script, []byte(pythonClient), 0o600))
				require.Equal(t, "300", strings.TrimSpace(runClient(t, "", py, script, addr, "lo", "300", "bob", secret)))
			}
			if clients == 0 {
				t.Skip("neither kcat nor kafka-python is installed")
			}
			path, dropped := stop()
			f, err := os.Open(path)
			require.NoError(t, err)
			defer f.Close()
			var requests, undecoded, unpaired int
			var log strings.Builder
			var formatted []byte // every line as kwire sniff writes it, text and JSON
			byAPI := map[string]int{}
			stats, err := sniff.Read(f, sniff.Options{}, func(r *sniff.Record) {
				fmt.Fprintf(&log, "%s %d %d v%d corr=%d %v %s\n", r.Kind, r.Conn, r.Key, r.Version, r.CorrelationID, r.Err, r.Note)
				e := trafficlog.Event{Time: r.Time, Conn: r.Conn, Dir: trafficlog.Dir(r.Kind), Key: r.Key, Version: r.Version,
					CorrelationID: r.CorrelationID, ClientID: r.ClientID, Latency: r.Latency, ClientAddr: r.Client,
					Principal: r.Principal, Msg: r.Msg, Err: r.Err, Note: r.Note}
				formatted = trafficlog.AppendJSON(trafficlog.AppendText(formatted, e), e)
				if r.Err != nil || (r.Msg == nil && r.Key >= 0) {
					t.Logf("%s %d %s v%d corr=%d: %v", r.Kind, r.Conn, apiName(r.Key), r.Version, r.CorrelationID, r.Err)
				}
				switch {
				case r.Kind == sniff.Request && r.Key >= 0:
					requests++
					byAPI[apiName(r.Key)]++
					if r.Msg == nil || r.Err != nil {
						undecoded++
					}
				case r.Kind == sniff.Response && r.Key >= 0:
					if r.Msg == nil || r.Err != nil {
						undecoded++
					}
				case r.Kind == sniff.Response && !strings.HasPrefix(r.Note, "raw SASL token"):
					unpaired++
				}
			})
			require.NoError(t, err)
			t.Logf("%d connections, %d requests, %d paired, %d unanswered; by API %v", stats.Connections, requests, stats.Paired, stats.Unanswered, byAPI)
			if dropped {
				// The kernel dropped packets (a loaded machine): the
				// capture has holes of its own, and only reading it
				// without failing is checked.
				t.Skip("tcpdump's kernel buffer dropped packets; the capture is not whole")
			}
			assert.Zero(t, undecoded, log.String())
			assert.Zero(t, unpaired+int(stats.Unpaired)+int(stats.Gaps)+int(stats.Undecodable), log.String())
			// Every request is answered but for a client's last ones in
			// flight when it closed (a long-polling Fetch, say).
			assert.LessOrEqual(t, int(stats.Unanswered), 2*int(stats.Connections))
			assert.Greater(t, int(stats.Paired), 20)
			assert.Greater(t, int(stats.Tokens), 0, "raw SASL tokens")
			for _, api := range []string{"ApiVersions", "Metadata", "Produce", "Fetch", "ListOffsets", "SaslHandshake"} {
				assert.NotZero(t, byAPI[api], "no %s", api)
			}
			assert.Contains(t, string(formatted), `"principal":"bob"`)
			if form, found := secrettest.Find(formatted, []byte(secret)); found {
				t.Errorf("the password is in the log as %s", form)
			}
		})
	}
}

// kafkaPython is a python3 that imports kafka-python, or "".
func kafkaPython(t *testing.T) string {
	for _, c := range []string{"python3", "/usr/bin/python3"} {
		if p, err := exec.LookPath(c); err == nil && proctest.Command(t, time.Minute, p, "-c", "import kafka").Run() == nil {
			return p
		}
	}
	return ""
}
