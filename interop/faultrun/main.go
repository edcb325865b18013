// Command faultrun puts `kwire proxy` through the faults an operator
// meets, one scenario at a time, each against a stand-in upstream of its
// own on the loopback, and prints one figure per fault:
//
//	upstream-killed   the upstream's connections are cut and it comes back
//	upstream-hung     the upstream accepts and never answers (-request-timeout)
//	upstream-slow     every answer takes 200 ms
//	log-stalled       the log is a FIFO whose reader stops reading
//	fifo-log          the log is a FIFO with no reader at all
//	emfile            the proxy has 64 file descriptors and 100 clients come
//	large-frames      8 connections each send one 50 MiB frame (resident memory)
//	silent-clients    200 clients connect and send nothing
//	brokers-5000      a Metadata answer names 5,000 brokers
//
// Usage (from interop/): go run ./faultrun [-kwire BIN] [-only NAME,...]
// Without -kwire it builds the proxy from ../cmd/kwire. It exits 1 when a
// scenario's expectation fails.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/kwirelabs/kwire/app/testbroker"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/wire"
	"github.com/kwirelabs/kwire/messages"
)

// scenario is one fault: run returns its figure, or why it failed.
type scenario struct {
	name string
	run  func(*env) (string, error)
}

var scenarios = []scenario{
	{"upstream-killed", upstreamKilled},
	{"upstream-hung", upstreamHung},
	{"upstream-slow", upstreamSlow},
	{"log-stalled", logStalled},
	{"fifo-log", fifoLog},
	{"emfile", emfile},
	{"large-frames", largeFrames},
	{"silent-clients", silentClients},
	{"brokers-5000", brokers5000},
}

// env is what a scenario runs with.
type env struct {
	kwire string
	dir   string
}

func main() {
	bin := flag.String("kwire", "", "the kwire binary (default: built from ../cmd/kwire)")
	only := flag.String("only", "", "run only these scenarios (comma-separated)")
	flag.Parse()
	dir, err := os.MkdirTemp("", "faultrun")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if *bin == "" {
		*bin = filepath.Join(dir, "kwire")
		build := exec.Command("go", "build", "-o", *bin, "github.com/kwirelabs/kwire/cmd/kwire")
		build.Dir = ".."
		build.Stderr = os.Stderr
		if err := build.Run(); err != nil {
			log.Fatalf("building kwire: %v", err)
		}
	}
	want := map[string]bool{}
	for _, n := range strings.Split(*only, ",") {
		if n != "" {
			want[n] = true
		}
	}
	failed := false
	fmt.Printf("| fault | figure |\n|---|---|\n")
	for _, s := range scenarios {
		if len(want) > 0 && !want[s.name] {
			continue
		}
		sdir := filepath.Join(dir, s.name)
		if err := os.Mkdir(sdir, 0o700); err != nil {
			log.Fatal(err)
		}
		fig, err := s.run(&env{kwire: *bin, dir: sdir})
		if err != nil {
			failed = true
			fig = "FAILED: " + err.Error()
		}
		fmt.Printf("| %s | %s |\n", s.name, fig)
	}
	if failed {
		os.Exit(1)
	}
}

// proxyProc is a running `kwire proxy`.
type proxyProc struct {
	cmd     *exec.Cmd
	addr    string // the bootstrap listener
	metrics string // HOST:PORT of /metrics
	mu      sync.Mutex
	stderr  bytes.Buffer
	exited  chan struct{}
	err     error // Wait's, once exited is closed
}

var (
	listening = regexp.MustCompile(`^kwire proxy: (\S+) -> `)
	metricsAt = regexp.MustCompile(`^kwire proxy: metrics at http://(\S+)/metrics`)
)

// startProxy runs the proxy in front of upstream with -metrics, logging
// to a file unless args say otherwise, and waits for its listener.
func (e *env) startProxy(upstream string, prefix []string, args ...string) (*proxyProc, error) {
	all := append([]string{"proxy", "-listen", "127.0.0.1:0", "-upstream", upstream, "-metrics", "127.0.0.1:0"}, args...)
	if !hasFlag(args, "-log") {
		all = append(all, "-log", filepath.Join(e.dir, "proxy.log"))
	}
	name := e.kwire
	if len(prefix) > 0 {
		name, all = prefix[0], append(append(prefix[1:], e.kwire), all...)
	}
	p := &proxyProc{cmd: exec.Command(name, all...), exited: make(chan struct{})}
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	errs, err := p.cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(errs)
		for sc.Scan() {
			line := sc.Text()
			p.mu.Lock()
			p.stderr.WriteString(line + "\n")
			if m := metricsAt.FindStringSubmatch(line); m != nil {
				p.metrics = m[1]
			}
			if m := listening.FindStringSubmatch(line); m != nil && p.addr == "" {
				p.addr = m[1]
				close(ready)
			}
			p.mu.Unlock()
		}
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	select {
	case <-ready:
		return p, nil
	case <-p.exited:
		return nil, fmt.Errorf("the proxy exited: %v: %s", p.err, p.stderrText())
	case <-time.After(30 * time.Second):
		p.kill()
		return nil, errors.New("the proxy did not listen within 30 s")
	}
}

func hasFlag(args []string, f string) bool {
	for _, a := range args {
		if a == f {
			return true
		}
	}
	return false
}

func (p *proxyProc) stderrText() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

func (p *proxyProc) kill() {
	p.cmd.Process.Kill()
	<-p.exited
}

// stop sends SIGTERM and waits for the exit, at most a minute.
func (p *proxyProc) stop() error {
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
		return p.err
	case <-time.After(time.Minute):
		p.kill()
		return errors.New("the proxy did not stop within a minute of SIGTERM")
	}
}

// metric is the value of a metric line of /metrics (name with labels,
// as the exposition writes it), -1 when absent.
func (p *proxyProc) metric(name string) (float64, error) {
	c := http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get("http://" + p.metrics + "/metrics")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			return strconv.ParseFloat(v, 64)
		}
	}
	return -1, nil
}

// rssMiB is the proxy's resident memory, from /proc.
func (p *proxyProc) rssMiB() int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return kb >> 10
		}
	}
	return -1
}

// upstream is a stand-in broker: answer gives each request's response
// (nil: no answer, the connection stays open and silent).
type upstream struct {
	ln       net.Listener
	accepted atomic.Int64
	probes   atomic.Int64 // connections of the proxy's readiness probe
	mu       sync.Mutex
	conns    []net.Conn
}

func startUpstream(addr string, answer func(kwire.RequestHeader, any) any) (*upstream, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	u := &upstream{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			u.accepted.Add(1)
			u.mu.Lock()
			u.conns = append(u.conns, c)
			u.mu.Unlock()
			go serveConn(c, answer, &u.probes)
		}
	}()
	return u, nil
}

// serveConn answers c's requests; a nil answer leaves the request
// unanswered but keeps reading. A connection whose first request is the
// proxy's readiness probe is counted in probes.
func serveConn(c net.Conn, answer func(kwire.RequestHeader, any) any, probes *atomic.Int64) {
	defer c.Close()
	frames := kwire.NewFrameReader(c, 0)
	for first := true; ; first = false {
		f, err := frames.Next()
		if err != nil {
			return
		}
		h, msg, err := messages.ReadRequest(f)
		if err != nil {
			continue
		}
		if first && h.ClientID != nil && *h.ClientID == "kwire-proxy-readiness" {
			probes.Add(1)
		}
		if resp := answer(h, msg); resp != nil {
			out, err := kwire.AppendResponse(nil, resp, h.APIVersion, h.CorrelationID)
			if err == nil {
				c.Write(out)
			}
		}
	}
}

// kill closes the listener and every connection, as a broker that dies.
func (u *upstream) kill() {
	u.ln.Close()
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, c := range u.conns {
		c.Close()
	}
	u.conns = nil
}

func (u *upstream) addr() string { return u.ln.Addr().String() }

// heartbeat sends a Heartbeat with corr and reads its answer, within d.
func heartbeat(c net.Conn, corr int32, d time.Duration) error {
	c.SetDeadline(time.Now().Add(d))
	req, err := kwire.AppendRequest(nil, messages.NewHeartbeatRequest(), 4, corr, nil)
	if err != nil {
		return err
	}
	if _, err := c.Write(req); err != nil {
		return err
	}
	f, err := kwire.NewFrameReader(c, 0).Next()
	if err != nil {
		return err
	}
	if got, _ := kwire.PeekResponse(f); got != corr {
		return fmt.Errorf("correlation id %d, want %d", got, corr)
	}
	return nil
}

func dial(addr string) (net.Conn, error) { return net.DialTimeout("tcp", addr, 10*time.Second) }

func ms(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) + " ms" }

// upstreamKilled: a client's connection is cut when the upstream's is,
// and a new client is served once the upstream is back on its port.
func upstreamKilled(e *env) (string, error) {
	up, err := startUpstream("", testbroker.Empty)
	if err != nil {
		return "", err
	}
	addr := up.addr()
	p, err := e.startProxy(addr, nil)
	if err != nil {
		return "", err
	}
	defer p.stop()
	c, err := dial(p.addr)
	if err != nil {
		return "", err
	}
	defer c.Close()
	if err := heartbeat(c, 1, 10*time.Second); err != nil {
		return "", err
	}
	up.kill()
	killed := time.Now()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := kwire.NewFrameReader(c, 0).Next(); !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("the client's connection after the kill: %v, want EOF", err)
	}
	cut := time.Since(killed)
	// a client arriving while the upstream is down waits for it (dial retries)
	c2, err := dial(p.addr)
	if err != nil {
		return "", err
	}
	defer c2.Close()
	waiting := make(chan error, 1)
	go func() { waiting <- heartbeat(c2, 2, 30*time.Second) }()
	time.Sleep(time.Second)
	up2, err := startUpstream(addr, testbroker.Empty)
	if err != nil {
		return "", err
	}
	defer up2.kill()
	back := time.Now()
	if err := <-waiting; err != nil {
		return "", fmt.Errorf("the client that came during the outage: %v", err)
	}
	return fmt.Sprintf("client cut %s after the upstream; a client that came during a 1 s outage answered %s after it was back", ms(cut), ms(time.Since(back))), nil
}

// upstreamHung: -request-timeout 2s closes a client whose request the
// upstream never answers, and counts it.
func upstreamHung(e *env) (string, error) {
	up, err := startUpstream("", func(kwire.RequestHeader, any) any { return nil })
	if err != nil {
		return "", err
	}
	defer up.kill()
	p, err := e.startProxy(up.addr(), nil, "-request-timeout", "2s")
	if err != nil {
		return "", err
	}
	defer p.stop()
	c, err := dial(p.addr)
	if err != nil {
		return "", err
	}
	defer c.Close()
	start := time.Now()
	err = heartbeat(c, 1, 30*time.Second)
	took := time.Since(start)
	if !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("the client got %v, want EOF", err)
	}
	n, err := p.metric(`kwire_proxy_request_timeouts_total{api="Heartbeat"}`)
	if err != nil || n != 1 {
		return "", fmt.Errorf("kwire_proxy_request_timeouts_total %v (%v), want 1", n, err)
	}
	return fmt.Sprintf("client closed %.1f s after its request (-request-timeout 2s); request_timeouts_total{api=\"Heartbeat\"} 1", took.Seconds()), nil
}

// upstreamSlow: answers that take 200 ms each are all relayed, none cut.
func upstreamSlow(e *env) (string, error) {
	up, err := startUpstream("", func(h kwire.RequestHeader, m any) any {
		time.Sleep(200 * time.Millisecond)
		return testbroker.Empty(h, m)
	})
	if err != nil {
		return "", err
	}
	defer up.kill()
	p, err := e.startProxy(up.addr(), nil)
	if err != nil {
		return "", err
	}
	defer p.stop()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var lat []time.Duration
	var failures int
	for i := range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := dial(p.addr)
			if err != nil {
				mu.Lock()
				failures += 10
				mu.Unlock()
				return
			}
			defer c.Close()
			for j := range 10 {
				start := time.Now()
				err := heartbeat(c, int32(i*100+j), 30*time.Second)
				mu.Lock()
				if err != nil {
					failures++
				} else {
					lat = append(lat, time.Since(start))
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if failures > 0 {
		return "", fmt.Errorf("%d of 50 requests failed", failures)
	}
	sortDurations(lat)
	return fmt.Sprintf("50 of 50 answered on 5 connections; latency p50 %s, max %s (upstream 200 ms)", ms(lat[len(lat)/2]), ms(lat[len(lat)-1])), nil
}

func sortDurations(d []time.Duration) {
	for i := range d {
		for j := i + 1; j < len(d); j++ {
			if d[j] < d[i] {
				d[i], d[j] = d[j], d[i]
			}
		}
	}
}

// logStalled: with the log a FIFO whose reader never reads, traffic
// goes on and the lines that do not fit are dropped and counted.
func logStalled(e *env) (string, error) {
	fifo := filepath.Join(e.dir, "log.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		return "", err
	}
	r, err := syscall.Open(fifo, syscall.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", err
	}
	defer syscall.Close(r) // opened, never read: the pipe fills at 64 KiB
	up, err := startUpstream("", testbroker.Empty)
	if err != nil {
		return "", err
	}
	defer up.kill()
	p, err := e.startProxy(up.addr(), nil, "-log", fifo, "-log-queue", "256")
	if err != nil {
		return "", err
	}
	defer p.stop()
	c, err := dial(p.addr)
	if err != nil {
		return "", err
	}
	defer c.Close()
	const n = 5000
	start := time.Now()
	for i := range n {
		if err := heartbeat(c, int32(i), 30*time.Second); err != nil {
			return "", fmt.Errorf("request %d: %v", i, err)
		}
	}
	took := time.Since(start)
	dropped, err := p.metric("kwire_proxy_log_lines_dropped_total")
	if err != nil || dropped <= 0 {
		return "", fmt.Errorf("kwire_proxy_log_lines_dropped_total %v (%v), want > 0", dropped, err)
	}
	return fmt.Sprintf("%d of %d round trips answered in %.1f s (%.0f/s); %.0f log lines dropped and counted", n, n, took.Seconds(), n/took.Seconds(), dropped), nil
}

// fifoLog: a -log FIFO with no reader is an error at start.
func fifoLog(e *env) (string, error) {
	fifo := filepath.Join(e.dir, "log.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		return "", err
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, e.kwire, "proxy", "-listen", "127.0.0.1:0", "-upstream", "127.0.0.1:1", "-log", fifo).CombinedOutput()
	took := time.Since(start)
	var exit *exec.ExitError
	if !errors.As(err, &exit) || ctx.Err() != nil {
		return "", fmt.Errorf("the proxy did not exit with an error within 30 s: %v", err)
	}
	msg := strings.TrimSpace(string(out))
	if !strings.Contains(msg, "a FIFO with no reader") {
		return "", fmt.Errorf("it said %q", msg)
	}
	return fmt.Sprintf("exit status %d after %s: %q", exit.ExitCode(), ms(took), strings.Replace(msg, fifo, "log.fifo", 1)), nil
}

// emfile: with 64 descriptors and 100 clients each sending a request,
// the dials that fail for want of descriptors close their clients at
// once, /metrics still answers, and a client after the rush is served.
func emfile(e *env) (string, error) {
	up, err := startUpstream("", testbroker.Empty)
	if err != nil {
		return "", err
	}
	defer up.kill()
	p, err := e.startProxy(up.addr(), []string{"prlimit", "--nofile=64"}, "-log", "off")
	if err != nil {
		return "", err
	}
	defer p.stop()
	var clients []net.Conn
	defer func() {
		for _, c := range clients {
			c.Close()
		}
	}()
	hb, _ := kwire.AppendRequest(nil, messages.NewHeartbeatRequest(), 4, 1, nil)
	for range 100 {
		c, err := dial(p.addr) // the kernel's backlog takes them all
		if err != nil {
			break
		}
		c.Write(hb)
		clients = append(clients, c)
	}
	time.Sleep(2 * time.Second)
	start := time.Now()
	failed, merr := p.metric("kwire_proxy_upstream_dial_failures_total")
	metricsTook := time.Since(start)
	open, _ := p.metric("kwire_proxy_open_connections")
	for _, c := range clients {
		c.Close()
	}
	clients = nil
	time.Sleep(time.Second)
	c, err := dial(p.addr)
	if err != nil {
		return "", err
	}
	clients = append(clients, c)
	start = time.Now()
	if err := heartbeat(c, 7, 30*time.Second); err != nil {
		return "", fmt.Errorf("a client after the rush: %v", err)
	}
	after := time.Since(start)
	if merr != nil {
		return "", fmt.Errorf("/metrics during the rush: %v", merr)
	}
	lowered := ""
	if m := regexp.MustCompile(`-max-conns lowered from \d+ to \d+`).FindString(p.stderrText()); m != "" {
		lowered = " (" + m + ")"
	}
	return fmt.Sprintf("100 clients on 64 descriptors: %.0f served at once%s, the rest in the backlog; /metrics answered in %s during the rush (upstream_dial_failures_total %.0f); a client after it answered in %s", open, lowered, ms(metricsTook), failed, ms(after)), nil
}

// largeFrames: 8 connections each relay one 50 MiB frame; the figure is
// the proxy's resident memory over the next 10 s.
func largeFrames(e *env) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				var head [12]byte
				for {
					if _, err := io.ReadFull(c, head[:]); err != nil {
						return
					}
					h, _ := wire.ConsumeRequestHead(head[wire.FrameSizeLen:])
					if _, err := io.CopyN(io.Discard, c, int64(wire.Int32(head[:]))-wire.RequestHeadLen); err != nil {
						return
					}
					resp, _ := kwire.AppendResponse(nil, messages.NewHeartbeatResponse(), 4, h.CorrelationID)
					c.Write(resp)
				}
			}()
		}
	}()
	p, err := e.startProxy(ln.Addr().String(), nil)
	if err != nil {
		return "", err
	}
	defer p.stop()
	idle := p.rssMiB()
	const size = 50 << 20
	zeros := make([]byte, 1<<20)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := dial(p.addr)
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(5 * time.Minute))
			head := wire.AppendInt32(nil, size-wire.FrameSizeLen)
			head = wire.AppendRequestHead(head, wire.RequestHead{APIKey: 999, APIVersion: 1, CorrelationID: int32(i + 1)})
			c.Write(head)
			for sent := len(head); sent < size; sent += len(zeros) {
				if _, err := c.Write(zeros[:min(len(zeros), size-sent)]); err != nil {
					errs <- err
					return
				}
			}
			if _, err := kwire.NewFrameReader(c, 0).Next(); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return "", err
	}
	relayed := time.Now()
	var samples []string
	for _, at := range []time.Duration{0, time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second} {
		time.Sleep(time.Until(relayed.Add(at)))
		samples = append(samples, fmt.Sprintf("+%ds %d", int(at.Seconds()), p.rssMiB()))
	}
	last := p.rssMiB()
	if last > 2*idle+8 {
		return "", fmt.Errorf("RSS %d MiB 10 s after, idle %d MiB (%s)", last, idle, strings.Join(samples, ", "))
	}
	return fmt.Sprintf("RSS idle %d MiB; after the frames (MiB): %s", idle, strings.Join(samples, ", ")), nil
}

// silentClients: 200 clients that connect and send nothing hold no
// upstream connection.
func silentClients(e *env) (string, error) {
	up, err := startUpstream("", testbroker.Empty)
	if err != nil {
		return "", err
	}
	defer up.kill()
	p, err := e.startProxy(up.addr(), nil)
	if err != nil {
		return "", err
	}
	defer p.stop()
	idle := p.rssMiB()
	var clients []net.Conn
	defer func() {
		for _, c := range clients {
			c.Close()
		}
	}()
	for range 200 {
		c, err := dial(p.addr)
		if err != nil {
			return "", err
		}
		clients = append(clients, c)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		open, err := p.metric("kwire_proxy_open_connections")
		if err != nil {
			return "", err
		}
		if open == 200 {
			break
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("%v of 200 connections open after 30 s", open)
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(time.Second)
	if n := up.accepted.Load() - up.probes.Load(); n != 0 {
		return "", fmt.Errorf("the upstream has %d connections for 200 silent clients", n)
	}
	return fmt.Sprintf("200 open, 0 upstream connections for them (the readiness probe's aside); RSS %d MiB (idle %d MiB)", p.rssMiB(), idle), nil
}

// brokers5000: an answer naming 5,000 brokers, past -max-brokers 256, is
// refused (the client closed, counted); with -max-brokers 5000 every
// broker is rewritten.
func brokers5000(e *env) (string, error) {
	md := messages.NewMetadataResponse()
	for i := range 5000 {
		md.Brokers = append(md.Brokers, messages.MetadataResponseBroker{NodeID: int32(i), Host: "192.0.2.1", Port: int32(10000 + i)})
	}
	up, err := startUpstream("", func(h kwire.RequestHeader, m any) any {
		if h.APIKey == 3 {
			return md
		}
		return testbroker.Empty(h, m)
	})
	if err != nil {
		return "", err
	}
	defer up.kill()
	ask := func(p *proxyProc) (*messages.MetadataResponse, time.Duration, error) {
		c, err := dial(p.addr)
		if err != nil {
			return nil, 0, err
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(time.Minute))
		req, _ := kwire.AppendRequest(nil, messages.NewMetadataRequest(), 12, 1, nil)
		start := time.Now()
		c.Write(req)
		f, err := kwire.NewFrameReader(c, 0).Next()
		if err != nil {
			return nil, time.Since(start), err
		}
		_, body, err := messages.ReadResponse(f, 3, 12)
		if err != nil {
			return nil, 0, err
		}
		return body.(*messages.MetadataResponse), time.Since(start), nil
	}
	p, err := e.startProxy(up.addr(), nil)
	if err != nil {
		return "", err
	}
	_, _, err = ask(p)
	refused, merr := p.metric("kwire_proxy_broker_cap_refusals_total")
	p.stop()
	if !errors.Is(err, io.EOF) || merr != nil || refused != 1 {
		return "", fmt.Errorf("with the default cap: %v, broker_cap_refusals_total %v (%v); want EOF and 1", err, refused, merr)
	}
	q, err := e.startProxy(up.addr(), nil, "-max-brokers", "5000")
	if err != nil {
		return "", err
	}
	defer q.stop()
	resp, took, err := ask(q)
	if err != nil {
		return "", fmt.Errorf("with -max-brokers 5000: %v", err)
	}
	direct := 0
	for _, b := range resp.Brokers {
		if b.Host != "127.0.0.1" {
			direct++
		}
	}
	if direct > 0 || len(resp.Brokers) != 5000 {
		return "", fmt.Errorf("with -max-brokers 5000: %d brokers, %d not rewritten", len(resp.Brokers), direct)
	}
	return fmt.Sprintf("default cap (256): answer refused, client closed, broker_cap_refusals_total 1, no broker address reached it; -max-brokers 5000: 5000 of 5000 rewritten, answer in %s", ms(took)), nil
}
