// Command proxybench measures what `kwire proxy` costs a producer: kgo
// producing records to an in-process kfake broker directly and through
// the proxy (built with go build and run as a subprocess), side by side in
// one run, every side once per pass, in an order rotated pass by pass.
// Sides: direct; proxy (text log to a file); proxy-off (no log);
// proxy-json; direct-tls (TLS to a TLS kfake); proxy-tls (TLS from the
// client to the proxy and from the proxy to the TLS kfake, text log). Per
// pass and side it reports throughput (N records of S bytes, produced
// asynchronously) and the latency of sequential one-record ProduceSync
// calls, and the CPU time the proxy process used; at the end, the
// medians, each proxy side's throughput as a median of per-pass ratios
// to its direct side (drift in the machine's load cancels), and the
// added latency. On a shared machine the absolute figures swing with
// other load; the ratios are the steadier figures.
//
//	go run ./proxybench -passes 6 -records 100000 -size 1024
//	go run ./proxybench -passes 5 -sides direct,proxy-off,proxy,proxy-json,direct-tls,proxy-tls
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"flag"
	"fmt"
	"log"
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

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kwirelabs/kwire/internal/testcerts"
)

// side is one way of reaching the broker.
type side struct {
	name  string
	addr  string
	tls   *tls.Config // the client's, for TLS sides
	proxy *exec.Cmd   // nil: direct
}

func main() {
	passes := flag.Int("passes", 6, "passes over every side, each pass in a rotated order")
	records := flag.Int("records", 100000, "records per throughput run")
	size := flag.Int("size", 1024, "value size in bytes")
	pings := flag.Int("pings", 1000, "sequential one-record produces per latency run")
	modes := flag.String("sides", "direct,proxy", "sides to measure: direct, proxy (text log to a file), proxy-off (no log), proxy-json, direct-tls (TLS to a TLS broker), proxy-tls (TLS both ways, text log)")
	flag.Parse()

	dir, err := os.MkdirTemp("", "proxybench")
	check(err)
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "kwire")
	build := exec.Command("go", "build", "-o", bin, "github.com/kwirelabs/kwire/cmd/kwire")
	build.Dir = ".." // run from interop/: the main module, whose go.sum covers the tool's dependencies
	build.Stderr = os.Stderr
	check(build.Run())

	names := strings.Split(*modes, ",")
	needTLS := slices.ContainsFunc(names, func(n string) bool { return strings.HasSuffix(n, "-tls") })
	var tlsFiles certFiles
	if needTLS {
		tlsFiles = makeCerts(dir)
	}

	var lat = map[string][]time.Duration{}
	var tput = map[string][]float64{}     // sorted at the end
	var passRate = map[string][]float64{} // in pass order
	var proxyCPU = map[string][]float64{} // seconds per GiB, by pass
	var cpuPerGiB = map[string][]float64{}
	fmt.Printf("%-5s %-11s %12s %10s %10s %10s\n", "pass", "side", "records/s", "MiB/s", "p50 ms", "p99 ms")
	for pass := range *passes {
		cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, "bench"))
		check(err)
		var tlsCluster *kfake.Cluster
		if needTLS {
			tlsCluster, err = kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, "bench"), kfake.TLS(tlsFiles.server))
			check(err)
		}
		var sides []side
		for _, n := range names {
			s := side{name: n}
			switch n {
			case "direct":
				s.addr = cluster.ListenAddrs()[0]
			case "direct-tls":
				s.addr, s.tls = tlsCluster.ListenAddrs()[0], tlsFiles.client
			case "proxy":
				s.proxy, s.addr = startProxy(bin, cluster.ListenAddrs()[0], "-log", filepath.Join(dir, n+".log"))
			case "proxy-off":
				s.proxy, s.addr = startProxy(bin, cluster.ListenAddrs()[0], "-log", "off")
			case "proxy-json":
				s.proxy, s.addr = startProxy(bin, cluster.ListenAddrs()[0], "-log", filepath.Join(dir, n+".log"), "-json")
			case "proxy-tls":
				s.proxy, s.addr = startProxy(bin, tlsCluster.ListenAddrs()[0], "-log", filepath.Join(dir, n+".log"),
					"-tls-cert", tlsFiles.certFile, "-tls-key", tlsFiles.keyFile, "-upstream-ca", tlsFiles.caFile)
				s.tls = tlsFiles.client
			default:
				log.Fatalf("unknown side %q", n)
			}
			sides = append(sides, s)
		}
		order := append(sides[pass%len(sides):len(sides):len(sides)], sides[:pass%len(sides)]...) // rotate which goes first
		for _, s := range order {
			var extra func() time.Duration // the proxy process's CPU, for the proxy side
			if s.proxy != nil {
				pid := s.proxy.Process.Pid
				extra = func() time.Duration { return procCPU(pid) }
			}
			rate, cpu, l := runSide(s, *records, *size, *pings, extra)
			cpuPerGiB[s.name] = append(cpuPerGiB[s.name], cpu.Seconds()/(float64(*records)*float64(*size)/(1<<30)))
			tput[s.name] = append(tput[s.name], rate)
			passRate[s.name] = append(passRate[s.name], rate)
			lat[s.name] = append(lat[s.name], l...)
			slices.Sort(l)
			fmt.Printf("%-5d %-11s %12.0f %10.1f %10.3f %10.3f\n", pass+1, s.name, rate, rate*float64(*size)/(1<<20), ms(pct(l, 50)), ms(pct(l, 99)))
		}
		for _, s := range sides {
			if s.proxy == nil {
				continue
			}
			s.proxy.Process.Signal(os.Interrupt)
			check(s.proxy.Wait())
			cpu := s.proxy.ProcessState.UserTime() + s.proxy.ProcessState.SystemTime()
			relayed := float64((*records+*pings+1)*(*size)) / (1 << 30)
			proxyCPU[s.name] = append(proxyCPU[s.name], cpu.Seconds()/relayed)
			fmt.Printf("%-5d %s process CPU %.2f s (user+sys), %.2f s per GiB produced\n", pass+1, s.name, cpu.Seconds(), cpu.Seconds()/relayed)
		}
		cluster.Close()
		if tlsCluster != nil {
			tlsCluster.Close()
		}
	}
	fmt.Println()
	for _, n := range names {
		slices.Sort(lat[n])
		slices.Sort(tput[n])
		slices.Sort(cpuPerGiB[n])
		fmt.Printf("%-11s median throughput %8.0f records/s (%.1f MiB/s); latency p50 %.3f ms, p99 %.3f ms (%d samples); CPU per GiB %.2f s\n",
			n, pct64(tput[n], 50), pct64(tput[n], 50)*float64(*size)/(1<<20), ms(pct(lat[n], 50)), ms(pct(lat[n], 99)), len(lat[n]), pct64(cpuPerGiB[n], 50))
	}
	for _, n := range names {
		base := "direct"
		if strings.HasSuffix(n, "-tls") {
			base = "direct-tls"
		}
		if n == base || passRate[base] == nil {
			continue
		}
		var ratios []float64 // against the direct side of the same pass: drift in the machine's load cancels
		for i := range passRate[n] {
			ratios = append(ratios, passRate[n][i]/passRate[base][i])
		}
		slices.Sort(ratios)
		slices.Sort(proxyCPU[n])
		fmt.Printf("%-11s vs %-10s throughput %.2fx (median of per-pass ratios; %.2f-%.2f); added latency p50 %+.3f ms, p99 %+.3f ms; CPU per GiB %.2fx; proxy process %.2f s per GiB\n",
			n, base, pct64(ratios, 50), ratios[0], ratios[len(ratios)-1],
			ms(pct(lat[n], 50)-pct(lat[base], 50)), ms(pct(lat[n], 99)-pct(lat[base], 99)),
			pct64(cpuPerGiB[n], 50)/pct64(cpuPerGiB[base], 50), pct64(proxyCPU[n], 50))
	}
}

// certFiles are a CA, a server certificate for 127.0.0.1 (kfake's and
// the proxy's) and the client's TLS config trusting the CA.
type certFiles struct {
	caFile, certFile, keyFile string
	server, client            *tls.Config
}

func makeCerts(dir string) certFiles {
	ca, err := testcerts.NewCA("proxybench CA")
	check(err)
	leaf, err := ca.Server("127.0.0.1", "127.0.0.1")
	check(err)
	f := certFiles{caFile: filepath.Join(dir, "ca.pem")}
	check(os.WriteFile(f.caFile, ca.PEM, 0o600))
	f.certFile, f.keyFile, err = leaf.Write(dir, "server")
	check(err)
	cert, err := leaf.TLS()
	check(err)
	f.server = &tls.Config{Certificates: []tls.Certificate{cert}}
	f.client = &tls.Config{RootCAs: ca.Pool()}
	return f
}

// runSide produces n records asynchronously and reports records per
// second and the CPU time spent on them (this process, which holds the
// client and the broker, plus extra), then pings sequential one-record
// produces and returns their latencies.
func runSide(s side, n, size, pings int, extra func() time.Duration) (float64, time.Duration, []time.Duration) {
	ctx := context.Background()
	var batches batchCount
	opts := []kgo.Opt{kgo.SeedBrokers(s.addr), kgo.DefaultProduceTopic("bench"), kgo.WithHooks(&batches),
		kgo.ProducerBatchCompression(kgo.NoCompression()), // every byte crosses the proxy
		// Full batches on both sides: without a linger a low-latency
		// connection sends many small batches, and kfake's cost per
		// request then dominates, making direct look slower.
		kgo.ProducerLinger(20 * time.Millisecond),
		kgo.ProducerBatchMaxBytes(1 << 20), kgo.MaxBufferedRecords(1 << 16)}
	if s.tls != nil {
		opts = append(opts, kgo.DialTLSConfig(s.tls))
	}
	cl, err := kgo.NewClient(opts...)
	check(err)
	defer cl.Close()
	check(cl.ProduceSync(ctx, &kgo.Record{Value: []byte("warm up")}).FirstErr())

	value := make([]byte, size)
	rand.Read(value)
	var wg sync.WaitGroup
	var firstErr error
	var mu sync.Mutex
	cpu0 := selfCPU()
	if extra != nil {
		cpu0 += extra()
	}
	start := time.Now()
	for range n {
		wg.Add(1)
		cl.Produce(ctx, &kgo.Record{Value: value}, func(_ *kgo.Record, err error) {
			if err != nil {
				mu.Lock()
				firstErr = err
				mu.Unlock()
			}
			wg.Done()
		})
	}
	wg.Wait()
	rate := float64(n) / time.Since(start).Seconds()
	cpu := selfCPU()
	if extra != nil {
		cpu += extra()
	}
	cpu -= cpu0
	check(firstErr)
	fmt.Printf("      %d records in %d batches\n", n, batches.n.Load()-1) // less the warm-up record's

	lat := make([]time.Duration, 0, pings)
	for range pings {
		t := time.Now()
		check(cl.ProduceSync(ctx, &kgo.Record{Value: value}).FirstErr())
		lat = append(lat, time.Since(t))
	}
	return rate, cpu, lat
}

// batchCount counts the record batches the client wrote.
type batchCount struct{ n atomic.Int64 }

func (b *batchCount) OnProduceBatchWritten(kgo.BrokerMetadata, string, int32, kgo.ProduceBatchMetrics) {
	b.n.Add(1)
}

func selfCPU() time.Duration {
	var ru syscall.Rusage
	check(syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
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

func startProxy(bin, upstream string, args ...string) (*exec.Cmd, string) {
	cmd := exec.Command(bin, append([]string{"proxy", "-listen", "127.0.0.1:0", "-upstream", upstream}, args...)...)
	errs, err := cmd.StderrPipe()
	check(err)
	check(cmd.Start())
	sc := bufio.NewScanner(errs)
	if !sc.Scan() {
		log.Fatal("the proxy did not start")
	}
	m := listening.FindStringSubmatch(sc.Text())
	if m == nil {
		log.Fatalf("the proxy said %q", sc.Text())
	}
	go func() {
		for sc.Scan() {
		}
	}()
	return cmd, m[1]
}

func pct(s []time.Duration, p int) time.Duration {
	if len(s) == 0 {
		return 0
	}
	return s[min(len(s)-1, len(s)*p/100)]
}

func pct64(s []float64, p int) float64 {
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
