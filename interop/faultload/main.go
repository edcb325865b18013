// Command faultload checks that `kwire proxy` loses nothing through a
// broker outage that a direct connection would not lose. One kfake
// broker runs as a child process on a fixed port, persisting to a
// directory; producers (kgo, acks=all, idempotent: kgo's defaults) write
// at a fixed rate for -duration, half directly to the broker (topic
// "direct"), half through `kwire proxy` (topic "proxy"), all at once. At
// -kill-at the broker is killed (SIGKILL), and it is restarted on the
// same port and directory -outage later: both sides see the same
// outage. After the producers flush, a direct consumer reads both topics
// back to their end offsets. Per side it counts records acked, failed,
// consumed, acked but not consumed (lost), and consumed twice.
//
// It exits 1 when either side lost an acked record or the proxy side
// failed more records than the direct side; it exits 2 when the proxy
// side wrote more records twice than the direct side.
//
//	go run ./faultload -duration 60s -kill-at 25s -outage 5s
//	go run ./faultload -kwire /tmp/kwire-2bccccc   # an older proxy
package main

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kwirelabs/kwire/interop/internal/proctest"
)

// brokerEnv, set in a child's environment to "PORT DIR", makes the
// program a kfake broker instead (see serveBroker).
const brokerEnv = "KWIRE_FAULTLOAD_BROKER"

// topics are the two sides, one topic each.
var topics = []string{"direct", "proxy"}

const partitions = 3

// config is one run's settings.
type config struct {
	Kwire      string        // the kwire binary
	Duration   time.Duration // how long producers produce
	KillAt     time.Duration // when the broker is killed, from the start
	Outage     time.Duration // how long the broker stays down
	Producers  int           // clients per side
	Rate       int           // records per second per producer
	Size       int           // value bytes
	Flush      time.Duration // how long producers may take to finish after Duration
	ProxyArgs  []string      // extra `kwire proxy` flags
	Dir        string        // for the broker's data and the proxy's log
	Signal     syscall.Signal
	Logf       func(format string, args ...any)
	BrokerPort int // 0: a free port, chosen once
}

// tally is one side's outcome.
type tally struct {
	Acked, Failed, Consumed, Lost, Duplicates int
	FailedAcked                               int      // failed but consumed: written, then the answer was lost
	DuplicateKeys                             []string // a few of them
	Errors                                    map[string]int
}

// result is a run's outcome by side.
type result map[string]*tally

// check says whether the proxy side did no worse than the direct side.
func (r result) check() error {
	var errs []error
	for _, side := range topics {
		if r[side].Lost > 0 {
			errs = append(errs, fmt.Errorf("%s: %d acked records were not consumed", side, r[side].Lost))
		}
	}
	if p, d := r["proxy"].Failed, r["direct"].Failed; p > d {
		errs = append(errs, fmt.Errorf("%d records failed through the proxy, %d directly", p, d))
	}
	return errors.Join(errs...)
}

// duplicated says whether the proxy side wrote more records twice than
// the direct side: not a loss, but what idempotent producers are for.
func (r result) duplicated() error {
	if p, d := r["proxy"].Duplicates, r["direct"].Duplicates; p > d {
		return fmt.Errorf("%d records written twice through the proxy, %d directly", p, d)
	}
	return nil
}

func (r result) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-7s %9s %7s %9s %5s %11s %13s\n", "side", "acked", "failed", "consumed", "lost", "duplicates", "failed+found")
	for _, side := range topics {
		t := r[side]
		fmt.Fprintf(&b, "%-7s %9d %7d %9d %5d %11d %13d\n", side, t.Acked, t.Failed, t.Consumed, t.Lost, t.Duplicates, t.FailedAcked)
	}
	for _, side := range topics {
		for msg, n := range r[side].Errors {
			fmt.Fprintf(&b, "%s: %d × %s\n", side, n, msg)
		}
		if keys := r[side].DuplicateKeys; len(keys) > 0 {
			fmt.Fprintf(&b, "%s: written twice, e.g. %s (key pP-N: producer P's record N)\n", side, strings.Join(keys, " "))
		}
	}
	return b.String()
}

func main() {
	if v := os.Getenv(brokerEnv); v != "" {
		serveBroker(v)
		return
	}
	var cfg config
	flag.DurationVar(&cfg.Duration, "duration", 60*time.Second, "how long the producers produce")
	flag.DurationVar(&cfg.KillAt, "kill-at", 25*time.Second, "when the broker is killed")
	flag.DurationVar(&cfg.Outage, "outage", 5*time.Second, "how long the broker stays down")
	flag.IntVar(&cfg.Producers, "producers", 4, "producer clients per side")
	flag.IntVar(&cfg.Rate, "rate", 500, "records per second per producer")
	flag.IntVar(&cfg.Size, "size", 256, "value bytes")
	flag.DurationVar(&cfg.Flush, "flush", 60*time.Second, "how long producers may take to finish after -duration")
	flag.IntVar(&cfg.BrokerPort, "port", 0, "the broker's port (0: a free one)")
	term := flag.Bool("sigterm", false, "stop the broker with SIGTERM (a clean shutdown) rather than SIGKILL")
	kwireBin := flag.String("kwire", "", "the kwire binary whose proxy to run (default: build this tree's), to compare an older proxy")
	keep := flag.Bool("keep", false, "on failure (or duplicates) keep the run's directory: the proxy's -json log and each client's kgo log")
	proxyArgs := flag.String("proxy-args", "", "extra `kwire proxy` flags, space-separated (e.g. \"-dial-timeout 1s\")")
	flag.Parse()
	cfg.ProxyArgs = strings.Fields(*proxyArgs)
	cfg.Signal = syscall.SIGKILL
	if *term {
		cfg.Signal = syscall.SIGTERM
	}
	cfg.Logf = func(format string, args ...any) { log.Printf(format, args...) }

	dir, err := os.MkdirTemp("", "faultload")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	cfg.Dir = dir
	cfg.Kwire = *kwireBin
	if cfg.Kwire == "" {
		cfg.Kwire = filepath.Join(dir, "kwire")
		build := exec.Command("go", "build", "-o", cfg.Kwire, "github.com/kwirelabs/kwire/cmd/kwire")
		build.Dir = ".." // run from interop/: the main module, whose go.sum covers the tool's dependencies
		build.Stderr = os.Stderr
		if err := build.Run(); err != nil {
			log.Fatal(err)
		}
	}
	res, err := run(cfg)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(res)
	code := 0
	if err := res.check(); err != nil {
		fmt.Println("FAIL:", err)
		code = 1
	} else if err := res.duplicated(); err != nil {
		fmt.Println("DUPLICATES:", err)
		code = 2
	}
	if code == 0 {
		fmt.Println("ok: no acked record lost on either side; the proxy failed and duplicated no more records than the direct side")
		return
	}
	if *keep {
		fmt.Printf("kept %s (the proxy's log, the clients' logs)\n", dir)
	} else {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// serveBroker runs a one-broker kfake cluster on the port and directory
// in spec ("PORT DIR") until SIGTERM, saying "ready" on stdout once it
// listens.
func serveBroker(spec string) {
	portStr, dir, _ := strings.Cut(spec, " ")
	port, err := strconv.Atoi(portStr)
	if err != nil {
		log.Fatalf("%s=%q: %v", brokerEnv, spec, err)
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM)
	c, err := kfake.NewCluster(kfake.Ports(port), kfake.DataDir(dir), kfake.SeedTopics(partitions, topics...))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("ready")
	<-stop
	c.Close()
}

// broker is the child process holding kfake.
type broker struct {
	proc *proctest.Proc
	port int
	dir  string
}

func startBroker(port int, dir string) (*broker, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // gone with this process, even after log.Fatal
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d %s", brokerEnv, port, dir))
	cmd.Stderr = os.Stderr
	out := proctest.NewOutput(nil)
	cmd.Stdout = out
	proc, err := proctest.Start(cmd)
	if err != nil {
		return nil, err
	}
	if out.Await(ready, proc.Exited(), 30*time.Second) == nil {
		proc.Kill()
		return nil, fmt.Errorf("the broker did not start in 30 s; it said %q", out.String())
	}
	return &broker{proc: proc, port: port, dir: dir}, nil
}

var ready = regexp.MustCompile(`(?m)^ready$`)

// stop signals the broker and waits for it to exit, killing it after 30 s.
func (b *broker) stop(sig syscall.Signal) {
	b.proc.Cmd.Process.Signal(sig)
	b.proc.Wait(30 * time.Second)
}

func (b *broker) addr() string { return fmt.Sprintf("127.0.0.1:%d", b.port) }

var listening = regexp.MustCompile(`(?m)^kwire proxy: (\S+) -> `)

// startProxy runs `kwire proxy` in front of upstream and returns it with
// its bootstrap address. The proxy's other stderr lines go to cfg.Logf
// as they come, all of them before its Wait returns.
func startProxy(cfg config, upstream string) (*proctest.Proc, string, error) {
	args := append([]string{"proxy", "-listen", "127.0.0.1:0", "-upstream", upstream, "-json", "-log", filepath.Join(cfg.Dir, "proxy.log")}, cfg.ProxyArgs...)
	cmd := exec.Command(cfg.Kwire, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // gone with this process, even after log.Fatal
	errs := proctest.NewOutput(func(line string) {
		if !listening.MatchString(line) {
			cfg.Logf("proxy: %s", line)
		}
	})
	cmd.Stderr = errs
	proc, err := proctest.Start(cmd)
	if err != nil {
		return nil, "", err
	}
	m := errs.Await(listening, proc.Exited(), 30*time.Second)
	if m == nil {
		proc.Kill()
		return nil, "", fmt.Errorf("the proxy did not say where it listens in 30 s; it said %q", errs.String())
	}
	return proc, m[1], nil
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// run does one fault-load run.
func run(cfg config) (result, error) {
	port := cfg.BrokerPort
	if port == 0 {
		var err error
		if port, err = freePort(); err != nil {
			return nil, err
		}
	}
	data := filepath.Join(cfg.Dir, "broker")
	b, err := startBroker(port, data)
	if err != nil {
		return nil, err
	}
	defer func() { b.stop(syscall.SIGKILL) }()
	proxy, proxyAddr, err := startProxy(cfg, b.addr())
	if err != nil {
		return nil, err
	}
	defer func() {
		proxy.Cmd.Process.Signal(os.Interrupt)
		proxy.Wait(30 * time.Second)
	}()

	acked := map[string]map[string]bool{} // side -> keys
	res := result{}
	var mu sync.Mutex
	for _, side := range topics {
		acked[side] = map[string]bool{}
		res[side] = &tally{Errors: map[string]int{}}
	}
	var failedKeys = map[string]map[string]bool{"direct": {}, "proxy": {}}

	produceCtx, cancelProduce := context.WithCancel(context.Background())
	defer cancelProduce()
	value := make([]byte, cfg.Size)
	rand.Read(value)
	var clients []*kgo.Client
	for _, side := range topics {
		seed := b.addr()
		if side == "proxy" {
			seed = proxyAddr
		}
		for range cfg.Producers {
			logFile, err := os.OpenFile(filepath.Join(cfg.Dir, fmt.Sprintf("client-p%d.log", len(clients))), os.O_CREATE|os.O_WRONLY, 0o600)
			if err != nil {
				return nil, err
			}
			defer logFile.Close()
			cl, err := kgo.NewClient(kgo.SeedBrokers(seed), kgo.DefaultProduceTopic(side),
				kgo.WithLogger(kgo.BasicLogger(logFile, kgo.LogLevelDebug, nil)))
			if err != nil {
				return nil, err
			}
			defer cl.Close()
			clients = append(clients, cl)
		}
	}

	start := time.Now()
	var wg sync.WaitGroup // producer loops
	var pending sync.WaitGroup
	var produced atomic.Int64
	for i, cl := range clients {
		side := topics[i/cfg.Producers]
		wg.Add(1)
		go func() {
			defer wg.Done()
			tick := time.NewTicker(10 * time.Millisecond)
			defer tick.Stop()
			per := max(1, cfg.Rate/100)
			seq := 0
			for time.Since(start) < cfg.Duration {
				<-tick.C
				for range per {
					key := fmt.Sprintf("p%d-%d", i, seq)
					seq++
					pending.Add(1)
					produced.Add(1)
					cl.Produce(produceCtx, &kgo.Record{Key: []byte(key), Value: value}, func(_ *kgo.Record, err error) {
						mu.Lock()
						if err == nil {
							acked[side][key] = true
						} else {
							failedKeys[side][key] = true
							res[side].Errors[shortErr(err)]++
						}
						mu.Unlock()
						pending.Done()
					})
				}
			}
		}()
	}

	// the outage
	time.Sleep(cfg.KillAt)
	cfg.Logf("%v: stopping the broker (%v) with %d records produced", time.Since(start).Round(time.Millisecond), cfg.Signal, produced.Load())
	b.stop(cfg.Signal)
	time.Sleep(cfg.Outage)
	if b, err = startBroker(port, data); err != nil {
		cancelProduce()
		return nil, fmt.Errorf("restart: %v", err)
	}
	cfg.Logf("%v: broker restarted", time.Since(start).Round(time.Millisecond))

	wg.Wait()
	done := make(chan struct{})
	go func() { pending.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(cfg.Flush):
		cfg.Logf("records still unanswered %v after the producers stopped: cancelling them", cfg.Flush)
		cancelProduce()
		<-done
	}
	cfg.Logf("%v: producers done, %d records; consuming back", time.Since(start).Round(time.Millisecond), produced.Load())

	consumed, err := consumeAll(b.addr())
	if err != nil {
		return nil, err
	}
	for _, side := range topics {
		t := res[side]
		t.Acked, t.Failed = len(acked[side]), len(failedKeys[side])
		for key, n := range consumed[side] {
			t.Consumed++
			if n > 1 {
				t.Duplicates++
				if len(t.DuplicateKeys) < 5 {
					t.DuplicateKeys = append(t.DuplicateKeys, key)
				}
			}
			if failedKeys[side][key] {
				t.FailedAcked++
			}
		}
		for key := range acked[side] {
			if consumed[side][key] == 0 {
				t.Lost++
			}
		}
	}
	return res, nil
}

// shortErr is an error's message without the addresses and numbers that
// make every occurrence different.
func shortErr(err error) string {
	return digits.ReplaceAllString(err.Error(), "N")
}

var digits = regexp.MustCompile(`[0-9]+`)

// consumeAll reads both topics from the start to their end offsets and
// counts each key's occurrences by topic.
func consumeAll(addr string) (map[string]map[string]int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ConsumeTopics(topics...),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(kgo.ReadUncommitted()))
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	ends, err := endOffsets(ctx, cl)
	if err != nil {
		return nil, err
	}
	got := map[string]map[string]int{}
	next := map[string]map[int32]int64{}
	for _, t := range topics {
		got[t] = map[string]int{}
		next[t] = map[int32]int64{}
	}
	reached := func() bool {
		for t, ps := range ends {
			for p, end := range ps {
				if next[t][p] < end {
					return false
				}
			}
		}
		return true
	}
	for !reached() {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("consuming back: %v (at %v, ends %v)", err, next, ends)
		}
		for _, e := range fs.Errors() {
			return nil, fmt.Errorf("consuming back %s/%d: %v", e.Topic, e.Partition, e.Err)
		}
		fs.EachRecord(func(r *kgo.Record) {
			got[r.Topic][string(r.Key)]++
			next[r.Topic][r.Partition] = r.Offset + 1
		})
	}
	return got, nil
}

// endOffsets asks the broker for each partition's high watermark.
func endOffsets(ctx context.Context, cl *kgo.Client) (map[string]map[int32]int64, error) {
	req := kmsg.NewPtrListOffsetsRequest()
	req.ReplicaID = -1
	for _, t := range topics {
		rt := kmsg.NewListOffsetsRequestTopic()
		rt.Topic = t
		for p := range int32(partitions) {
			rp := kmsg.NewListOffsetsRequestTopicPartition()
			rp.Partition = p
			rp.Timestamp = -1 // latest
			rt.Partitions = append(rt.Partitions, rp)
		}
		req.Topics = append(req.Topics, rt)
	}
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return nil, err
	}
	ends := map[string]map[int32]int64{}
	for _, t := range resp.Topics {
		ends[t.Topic] = map[int32]int64{}
		for _, p := range t.Partitions {
			if p.ErrorCode != 0 {
				return nil, fmt.Errorf("ListOffsets %s/%d: error code %d", t.Topic, p.Partition, p.ErrorCode)
			}
			ends[t.Topic][p.Partition] = p.Offset
		}
	}
	return ends, nil
}
