// Command proxybench measures what `kwire proxy` costs a producer: kgo
// producing records to an in-process kfake broker directly and through
// the proxy (built with go build and run as a subprocess), in one run,
// side by side: direct; through the proxy with a text log to a file
// ("proxy"), its log off ("proxy-off") and a -json log ("proxy-json");
// and direct over TLS ("direct-tls") against through the proxy with TLS
// on both sides, client to proxy and proxy to broker, text log
// ("proxy-tls"). Every side gets a fresh broker and proxy; the sides are
// interleaved pass by pass, the order rotating, so load on a shared
// machine falls on all of them alike.
//
// Per pass and side it reports throughput (N records of S bytes,
// produced asynchronously, uncompressed), the latency of sequential
// one-record ProduceSync calls, and the proxy process's CPU while it
// relayed the throughput run. Each pass ends with the proxy's resident
// memory before and with -idle idle client connections (each has done
// one ApiVersions exchange). The summary gives, for each proxy side,
// ratios to its direct side within a pass (min/median/max over passes)
// rather than absolute figures, and the load average. With -large N,
// the run ends with N connections fetching one large response each and
// then idling, the proxy's RSS and Go heap (from its -metrics) sampled
// for 200 s.
//
//	go run ./proxybench -passes 6 -records 100000 -size 1024 -idle 1000
//	go run ./proxybench -passes 0 -large 8 -large-mib 32
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
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
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/kwirelabs/kwire/app/testcerts"
	"github.com/kwirelabs/kwire/kwire/wire"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// side is one way of reaching the broker.
type side struct {
	name   string
	tls    bool     // kgo and kfake speak TLS (and the proxy both ways)
	proxy  []string // the proxy's logging flags; nil: direct
	direct string   // the side this one is compared with
}

var allSides = []side{
	{name: "direct"},
	{name: "proxy", proxy: []string{"-log", "LOG"}, direct: "direct"},
	{name: "proxy-off", proxy: []string{"-log", "off"}, direct: "direct"},
	{name: "proxy-json", proxy: []string{"-json", "-log", "LOG"}, direct: "direct"},
	{name: "direct-tls", tls: true},
	{name: "proxy-tls", tls: true, proxy: []string{"-log", "LOG"}, direct: "direct-tls"},
}

// result is one side's figures in one pass.
type result struct {
	rate        float64 // records per second
	proxyCPUGiB float64 // proxy process CPU seconds per GiB produced
	p50, p99    time.Duration
}

// env is what every side of a run shares.
type env struct {
	bin, dir                  string
	records, size, pings      int
	serverTLS, clientTLS      *tls.Config
	caFile, certFile, keyFile string
}

func main() {
	passes := flag.Int("passes", 6, "passes; each runs every side once, in rotating order")
	records := flag.Int("records", 100000, "records per throughput run")
	size := flag.Int("size", 1024, "value size in bytes")
	pings := flag.Int("pings", 1000, "sequential one-record produces per latency run")
	idle := flag.Int("idle", 1000, "idle client connections held open for the proxy's memory figure (0: skip)")
	large := flag.Int("large", 0, "after the passes: this many connections each fetch one -large-mib response through the proxy and stay idle; the proxy's RSS and Go heap are sampled for 200 s")
	largeMiB := flag.Int("large-mib", 32, "the size of each large Fetch response, MiB")
	only := flag.String("sides", "direct,proxy,proxy-off,proxy-json,direct-tls,proxy-tls", "the sides to run (a proxy side needs its direct side)")
	flag.Parse()
	var sides []side
	for _, name := range strings.Split(*only, ",") {
		i := slices.IndexFunc(allSides, func(s side) bool { return s.name == name })
		if i < 0 {
			log.Fatalf("-sides: no side %q", name)
		}
		sides = append(sides, allSides[i])
	}
	for _, s := range sides {
		if s.direct != "" && !slices.ContainsFunc(sides, func(d side) bool { return d.name == s.direct }) {
			log.Fatalf("-sides: %s is compared with %s, which is not in the list", s.name, s.direct)
		}
	}

	raiseFDLimit(4*(*idle) + 1024) // per idle connection: client and broker ends here, two sockets in the proxy
	dir, err := os.MkdirTemp("", "proxybench")
	check(err)
	defer os.RemoveAll(dir)
	e := &env{bin: filepath.Join(dir, "kwire"), dir: dir, records: *records, size: *size, pings: *pings}
	build := exec.Command("go", "build", "-o", e.bin, "github.com/kwirelabs/kwire/cmd/kwire")
	build.Dir = ".." // run from interop/: the main module, whose go.sum covers the tool's dependencies
	build.Stderr = os.Stderr
	check(build.Run())
	e.setupTLS()

	loads := []string{loadavg()}
	fmt.Printf("load average at start: %s\n", loads[0])
	res := map[string][]result{}
	var rss0, rssIdle []float64 // MiB
	fmt.Printf("%-5s %-11s %12s %10s %9s %9s %14s\n", "pass", "side", "records/s", "MiB/s", "p50 ms", "p99 ms", "proxy s/GiB")
	for pass := range *passes {
		for i := range sides {
			s := sides[(i+pass)%len(sides)]
			r := e.runSide(s)
			res[s.name] = append(res[s.name], r)
			pcpu := "-"
			if s.proxy != nil {
				pcpu = fmt.Sprintf("%.2f", r.proxyCPUGiB)
			}
			fmt.Printf("%-5d %-11s %12.0f %10.1f %9.3f %9.3f %14s\n", pass+1, s.name, r.rate, r.rate*float64(*size)/(1<<20), ms(r.p50), ms(r.p99), pcpu)
		}
		if *idle > 0 {
			before, with := e.idleRSS(*idle)
			rss0 = append(rss0, before)
			rssIdle = append(rssIdle, with)
			fmt.Printf("%-5d proxy RSS %.1f MiB after one produce run, %.1f MiB with %d idle connections\n", pass+1, before, with, *idle)
		}
		loads = append(loads, loadavg())
		fmt.Printf("%-5d load average %s\n", pass+1, loads[len(loads)-1])
	}

	if *passes > 0 {
		summarize(sides, res, loads, rss0, rssIdle, *passes, *records, *size, *pings, *idle)
	}
	if *large > 0 {
		e.largeRSS(*large, *largeMiB)
	}
}

// summarize prints each side's spread over passes and each proxy side's
// per-pass ratios to its direct side.
func summarize(sides []side, res map[string][]result, loads []string, rss0, rssIdle []float64, passes, records, size, pings, idle int) {
	fmt.Printf("\nsummary: %d passes, %d × %d B records per throughput run, %d pings; min / median / max over passes\n", passes, records, size, pings)
	fmt.Printf("load average (1, 5, 15 min) at start %s, at end %s\n", loads[0], loads[len(loads)-1])
	for _, s := range sides {
		rs := res[s.name]
		fmt.Printf("%-11s records/s %s   p50 ms %s   p99 ms %s\n", s.name,
			spread(rs, func(r result) float64 { return r.rate }, "%.0f"),
			spread(rs, func(r result) float64 { return ms(r.p50) }, "%.3f"),
			spread(rs, func(r result) float64 { return ms(r.p99) }, "%.3f"))
	}
	fmt.Println("per pass, each proxy side against its direct side in the same pass:")
	for _, s := range sides {
		if s.proxy == nil {
			continue
		}
		rs, ds := res[s.name], res[s.direct]
		var ratio, add50, add99 []float64
		for i := range rs {
			ratio = append(ratio, rs[i].rate/ds[i].rate)
			add50 = append(add50, ms(rs[i].p50-ds[i].p50))
			add99 = append(add99, ms(rs[i].p99-ds[i].p99))
		}
		fmt.Printf("%-11s vs %-10s throughput %sx   added p50 ms %s   added p99 ms %s   proxy CPU s/GiB %s\n", s.name, s.direct,
			spreadOf(ratio, "%.2f"), spreadOf(add50, "%+.3f"), spreadOf(add99, "%+.3f"),
			spread(rs, func(r result) float64 { return r.proxyCPUGiB }, "%.2f"))
	}
	if len(rss0) > 0 {
		var per []float64
		for i := range rss0 {
			per = append(per, (rssIdle[i]-rss0[i])*1024/float64(idle))
		}
		fmt.Printf("proxy RSS (log off): %s MiB after a produce run; %s MiB with %d idle connections; %s KiB per connection\n",
			spreadOf(rss0, "%.1f"), spreadOf(rssIdle, "%.1f"), idle, spreadOf(per, "%.1f"))
	}
}

// largeRSS measures whether the proxy lets go of a large frame's memory:
// n raw connections each fetch one response of about mib MiB (mib × 1,000
// records of 1 KiB) through the
// proxy (log off) and then stay open and idle, while the proxy's RSS and
// Go heap are sampled, past the 2-minute GC the Go runtime forces on an
// idle process.
func (e *env) largeRSS(n, mib int) {
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "big"))
	check(err)
	defer cluster.Close()
	cl, err := kgo.NewClient(kgo.SeedBrokers(cluster.ListenAddrs()[0]), kgo.DefaultProduceTopic("big"),
		kgo.ProducerBatchCompression(kgo.NoCompression()), kgo.ProducerLinger(10*time.Millisecond))
	check(err)
	value := make([]byte, 1024)
	for range mib {
		var rs []*kgo.Record
		for range 1000 {
			rs = append(rs, &kgo.Record{Value: value})
		}
		check(cl.ProduceSync(context.Background(), rs...).FirstErr())
	}
	cl.Close()

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	check(err)
	metricsAddr := ln.Addr().String()
	ln.Close()
	proxy, addr := startProxy(e.bin, []string{"proxy", "-listen", "127.0.0.1:0", "-upstream", cluster.ListenAddrs()[0], "-log", "off", "-metrics", metricsAddr})
	defer func() {
		proxy.Process.Signal(os.Interrupt)
		check(proxy.Wait())
	}()
	pid := proxy.Process.Pid
	heap := func() string {
		m := scrape(metricsAddr, "go_memstats_heap_alloc_bytes", "go_memstats_heap_inuse_bytes", "go_memstats_heap_released_bytes")
		return fmt.Sprintf("Go heap allocated %.1f MiB, in use %.1f MiB, released to the OS %.1f MiB",
			m["go_memstats_heap_alloc_bytes"]/(1<<20), m["go_memstats_heap_inuse_bytes"]/(1<<20), m["go_memstats_heap_released_bytes"]/(1<<20))
	}
	fmt.Printf("\nlarge frames: proxy RSS %.1f MiB at start; %s\n", rssMiB(pid), heap())
	defer holdClients(addr, n, func(c net.Conn, i int) {
		size, err := fetchAll(c, int32(i), int32(mib+1)<<20)
		check(err)
		if size < mib*1000*len(value) {
			log.Fatalf("a Fetch response of %d bytes, want all %d MiB produced", size, mib)
		}
		fmt.Printf("connection %d fetched %.1f MiB; proxy RSS %.1f MiB\n", i+1, float64(size)/(1<<20), rssMiB(pid))
	})()
	start := time.Now()
	for _, at := range []time.Duration{time.Second, 10 * time.Second, 60 * time.Second, 130 * time.Second, 200 * time.Second} {
		time.Sleep(time.Until(start.Add(at)))
		fmt.Printf("%d connections idle for %v: proxy RSS %.1f MiB (peak %.1f MiB); %s\n", n, at, rssMiB(pid), hwmMiB(pid), heap())
	}
}

// holdClients opens n connections to addr one after another, calling
// each on every one as it opens, and returns what closes them all.
func holdClients(addr string, n int, each func(c net.Conn, i int)) (closeAll func()) {
	conns := make([]net.Conn, 0, n)
	closeAll = func() {
		for _, c := range conns {
			c.Close()
		}
	}
	for i := range n {
		c, err := net.DialTimeout("tcp", addr, 10*time.Second)
		check(err)
		conns = append(conns, c)
		each(c, i)
	}
	return closeAll
}

// fetchAll sends Fetch v4 for all of big/0 from offset 0, up to max
// bytes, and reads the response, returning its size.
func fetchAll(c net.Conn, corr, max int32) (int, error) {
	c.SetDeadline(time.Now().Add(60 * time.Second))
	defer c.SetDeadline(time.Time{})
	req := kmsg.NewPtrFetchRequest()
	req.Version = 4
	req.ReplicaID = -1
	req.MinBytes = 1
	req.MaxBytes = max
	t := kmsg.NewFetchRequestTopic()
	t.Topic = "big"
	p := kmsg.NewFetchRequestTopicPartition()
	p.PartitionMaxBytes = max
	t.Partitions = append(t.Partitions, p)
	req.Topics = append(req.Topics, t)
	frame, start := wire.AppendFrameStart(nil)
	frame = wire.AppendRequestHead(frame, wire.RequestHead{APIKey: 1, APIVersion: 4, CorrelationID: corr}) // Fetch
	frame = wire.Int16Length.Append(frame, -1)                                                             // null client id
	frame = req.AppendTo(frame)
	wire.FinishFrame(frame, start)
	if _, err := c.Write(frame); err != nil {
		return 0, err
	}
	size, err := readResponseHead(c, corr, "the Fetch response")
	if err != nil {
		return 0, err
	}
	_, err = io.CopyN(io.Discard, c, int64(size)-4)
	return int(size), err
}

// setupTLS makes a CA, a certificate for 127.0.0.1 that both kfake and
// the proxy serve, and the client's settings trusting the CA.
func (e *env) setupTLS() {
	ca, err := testcerts.NewCA("proxybench CA")
	check(err)
	leaf, err := ca.Server("127.0.0.1", "127.0.0.1", "localhost")
	check(err)
	cert, err := leaf.TLS()
	check(err)
	e.serverTLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	e.clientTLS = &tls.Config{RootCAs: ca.Pool(), MinVersion: tls.VersionTLS12}
	e.certFile, e.keyFile, err = leaf.Write(e.dir, "server")
	check(err)
	e.caFile = filepath.Join(e.dir, "ca.crt")
	check(os.WriteFile(e.caFile, ca.PEM, 0o600))
}

// runSide starts a fresh broker (and proxy), produces n records
// asynchronously, then pings sequential one-record produces.
func (e *env) runSide(s side) result {
	opts := []kfake.Opt{kfake.NumBrokers(1), kfake.SeedTopics(3, "bench")}
	if s.tls {
		opts = append(opts, kfake.TLS(e.serverTLS))
	}
	cluster, err := kfake.NewCluster(opts...)
	check(err)
	defer cluster.Close()
	addr := cluster.ListenAddrs()[0]
	var proxy *exec.Cmd
	if s.proxy != nil {
		args := []string{"proxy", "-listen", "127.0.0.1:0", "-upstream", addr}
		for _, a := range s.proxy {
			if a == "LOG" {
				a = filepath.Join(e.dir, "proxy.log")
			}
			args = append(args, a)
		}
		if s.tls {
			args = append(args, "-tls-cert", e.certFile, "-tls-key", e.keyFile, "-upstream-ca", e.caFile)
		}
		proxy, addr = startProxy(e.bin, args)
		defer func() {
			proxy.Process.Signal(os.Interrupt)
			check(proxy.Wait())
			os.Remove(filepath.Join(e.dir, "proxy.log"))
		}()
	}

	ctx := context.Background()
	copts := []kgo.Opt{kgo.SeedBrokers(addr), kgo.DefaultProduceTopic("bench"),
		kgo.ProducerBatchCompression(kgo.NoCompression()), // every byte crosses the proxy
		// Full batches on both sides: without a linger a low-latency
		// connection sends many small batches, and kfake's cost per
		// request then dominates, making direct look slower.
		kgo.ProducerLinger(20 * time.Millisecond),
		kgo.ProducerBatchMaxBytes(1 << 20), kgo.MaxBufferedRecords(1 << 16)}
	if s.tls {
		copts = append(copts, kgo.DialTLSConfig(e.clientTLS.Clone()))
	}
	cl, err := kgo.NewClient(copts...)
	check(err)
	defer cl.Close()
	check(cl.ProduceSync(ctx, &kgo.Record{Value: []byte("warm up")}).FirstErr())

	value := make([]byte, e.size)
	rand.Read(value)
	var wg sync.WaitGroup
	var failed atomic.Int64
	var firstErr atomic.Value
	var pcpu0 time.Duration
	if proxy != nil {
		pcpu0 = procCPU(proxy.Process.Pid)
	}
	start := time.Now()
	for range e.records {
		wg.Add(1)
		cl.Produce(ctx, &kgo.Record{Value: value}, func(_ *kgo.Record, err error) {
			if err != nil && failed.Add(1) == 1 {
				firstErr.Store(err)
			}
			wg.Done()
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	gib := float64(e.records) * float64(e.size) / (1 << 30)
	r := result{rate: float64(e.records) / elapsed.Seconds()}
	if proxy != nil {
		r.proxyCPUGiB = (procCPU(proxy.Process.Pid) - pcpu0).Seconds() / gib
	}
	if n := failed.Load(); n > 0 {
		log.Fatalf("%s: %d records failed: %v", s.name, n, firstErr.Load())
	}

	lat := make([]time.Duration, 0, e.pings)
	for range e.pings {
		t := time.Now()
		check(cl.ProduceSync(ctx, &kgo.Record{Value: value}).FirstErr())
		lat = append(lat, time.Since(t))
	}
	slices.Sort(lat)
	r.p50, r.p99 = pct(lat, 50), pct(lat, 99)
	return r
}

// idleRSS starts a broker and a proxy (log off), produces through it,
// reads the proxy's resident memory, then opens n client connections
// that each complete one ApiVersions exchange and stay open, and reads
// it again.
func (e *env) idleRSS(n int) (before, with float64) {
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, "bench"))
	check(err)
	defer cluster.Close()
	proxy, addr := startProxy(e.bin, []string{"proxy", "-listen", "127.0.0.1:0", "-upstream", cluster.ListenAddrs()[0], "-log", "off"})
	defer func() {
		proxy.Process.Signal(os.Interrupt)
		check(proxy.Wait())
	}()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DefaultProduceTopic("bench"))
	check(err)
	value := make([]byte, e.size)
	for range 10 {
		var rs []*kgo.Record
		for range 1000 {
			rs = append(rs, &kgo.Record{Value: value})
		}
		check(cl.ProduceSync(context.Background(), rs...).FirstErr())
	}
	cl.Close()
	time.Sleep(time.Second) // the client's connections close
	before = rssMiB(proxy.Process.Pid)

	defer holdClients(addr, n, func(c net.Conn, i int) { check(apiVersions(c, int32(i))) })()
	time.Sleep(time.Second)
	if fds := countFDs(proxy.Process.Pid); fds < 2*n {
		log.Fatalf("the proxy holds %d descriptors with %d clients connected", fds, n)
	}
	return before, rssMiB(proxy.Process.Pid)
}

// apiVersions sends ApiVersions v0 (no client id) and reads the response.
func apiVersions(c net.Conn, corr int32) error {
	c.SetDeadline(time.Now().Add(30 * time.Second))
	defer c.SetDeadline(time.Time{})
	req, start := wire.AppendFrameStart(nil)
	req = wire.AppendRequestHead(req, wire.RequestHead{APIKey: 18, APIVersion: 0, CorrelationID: corr}) // ApiVersions
	req = wire.Int16Length.Append(req, -1)                                                              // null client id
	wire.FinishFrame(req, start)
	if _, err := c.Write(req); err != nil {
		return err
	}
	size, err := readResponseHead(c, corr, "ApiVersions response")
	if err != nil {
		return err
	}
	_, err = io.CopyN(io.Discard, c, int64(size)-4)
	return err
}

// readResponseHead reads a response's size prefix and correlation id,
// which must be corr, and gives the size.
func readResponseHead(c net.Conn, corr int32, what string) (int32, error) {
	var hdr [wire.FrameSizeLen + 4]byte
	if _, err := io.ReadFull(c, hdr[:]); err != nil {
		return 0, err
	}
	size, n := wire.ConsumeFrameSize(hdr[:])
	if err := wire.ParseError(n); err != nil || size < 4 {
		return 0, fmt.Errorf("%s has a size prefix of %d", what, size)
	}
	if got, _ := wire.ConsumeResponseCorrelationID(hdr[n:]); got != corr {
		return 0, fmt.Errorf("%s has correlation id %d, want %d", what, got, corr)
	}
	return size, nil
}

func raiseFDLimit(want int) {
	var l syscall.Rlimit
	check(syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l))
	if l.Cur < uint64(want) {
		l.Cur = min(uint64(want), l.Max)
		check(syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l)) // the proxy inherits it
	}
	if l.Cur < uint64(want) {
		log.Fatalf("descriptor limit %d (hard %d), want %d", l.Cur, l.Max, want)
	}
}

func rssMiB(pid int) float64 { return procStatusMiB(pid, "VmRSS:") }

func hwmMiB(pid int) float64 { return procStatusMiB(pid, "VmHWM:") }

// procStatusMiB reads a kB figure from /proc/PID/status.
func procStatusMiB(pid int, field string) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	check(err)
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, field); ok {
			kb, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			check(err)
			return float64(kb) / 1024
		}
	}
	log.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// scrape reads gauges from a Prometheus text endpoint.
func scrape(addr string, names ...string) map[string]float64 {
	resp, err := http.Get("http://" + addr + "/metrics")
	check(err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	check(err)
	got := map[string]float64{}
	for line := range strings.Lines(string(b)) {
		f := strings.Fields(line)
		if len(f) == 2 && slices.Contains(names, f[0]) {
			v, err := strconv.ParseFloat(f[1], 64)
			check(err)
			got[f[0]] = v
		}
	}
	return got
}

func countFDs(pid int) int {
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	check(err)
	return len(ents)
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	check(err)
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

// procCPU is another process's user+sys time from /proc (Linux; clock
// ticks of 10 ms).
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	check(err)
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:])) // fields after the command name
	ut, err := strconv.ParseInt(f[11], 10, 64)                     // utime is field 14 of the line
	check(err)
	st, err := strconv.ParseInt(f[12], 10, 64)
	check(err)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

var listening = regexp.MustCompile(`^kwire proxy: (\S+) -> `)

// startProxy runs `kwire proxy ARGS` and returns it with the address of
// its bootstrap listener, read from its first line on stderr.
func startProxy(bin string, args []string) (*exec.Cmd, string) {
	cmd := exec.Command(bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // gone with this process, even after log.Fatal
	errs, err := cmd.StderrPipe()
	check(err)
	check(cmd.Start())
	sc := bufio.NewScanner(errs)
	var m []string
	for m == nil {
		if !sc.Scan() {
			log.Fatal("the proxy did not start")
		}
		if m = listening.FindStringSubmatch(sc.Text()); m == nil && !strings.Contains(sc.Text(), "metrics at") {
			log.Fatalf("the proxy said %q", sc.Text())
		}
	}
	go func() {
		for sc.Scan() {
			if !listening.MatchString(sc.Text()) {
				fmt.Fprintf(os.Stderr, "proxy: %s\n", sc.Text())
			}
		}
	}()
	return cmd, m[1]
}

// spread is "min / median / max" of one figure over passes.
func spread(rs []result, f func(result) float64, format string) string {
	var v []float64
	for _, r := range rs {
		v = append(v, f(r))
	}
	return spreadOf(v, format)
}

func spreadOf(v []float64, format string) string {
	v = slices.Clone(v)
	slices.Sort(v)
	med := (v[(len(v)-1)/2] + v[len(v)/2]) / 2
	return fmt.Sprintf(format+" / "+format+" / "+format, v[0], med, v[len(v)-1])
}

func pct(s []time.Duration, p int) time.Duration {
	if len(s) == 0 {
		return 0
	}
	return s[min(len(s)-1, len(s)*p/100)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
