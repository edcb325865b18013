// Package conform checks a Kafka broker's protocol conformance: it asks
// the broker what it speaks, sends minimal and random legal requests of
// every API and version it offers, and checks each answer against what
// Kafka's schemas and rules give (an exact decode under the header
// version Kafka's rules name, the correlation id, known error codes,
// per-API invariants), then tries the broker with malformed input. A
// random request that gets a nonconforming answer is shrunk to the
// smallest one that still does.
//
// Run is safe by default: it sends only requests that read, or that act
// on topics and groups named with Options.Prefix, unless
// Options.Destructive is set.
package conform

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"math/rand"
	"net"
	"slices"
	"sort"
	"time"

	"github.com/kwirelabs/kwire/app/saslclient"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// Options tune a run. The zero value checks every API the broker offers
// with 8 random requests per version, seed 0, a 5 s timeout.
type Options struct {
	APIs, Skip []int16 // only these API keys; none of these (Skip wins)
	// SkipChecks names robustness checks not to run (RobustnessChecks):
	// unknown-key, for one, ends a broker that crashes on it.
	SkipChecks  []string
	Seed        int64 // the random requests' seed; printed in every report
	N           int   // random requests per API and version; 0 means 8, negative none
	Timeout     time.Duration
	Destructive bool   // also send requests that may change what others see
	Prefix      string // the checker's own topics and groups; "" means "kwire-conform-"
	ClientID    string // "" means "kwire-conform"
	TLS         *tls.Config
	SASL        *saslclient.Credentials
	// Dial, when set, replaces net.Dialer (tests, proxies).
	Dial func(ctx context.Context, addr string) (net.Conn, error)
}

// Verdict is a check's outcome.
type Verdict string

const (
	Pass Verdict = "pass"
	Fail Verdict = "fail"
	Skip Verdict = "skip"
	// Info is a fact a report shows that no rule judges (the nearest
	// Kafka release, the checker's own topics).
	Info Verdict = "info"
)

// Result is one check of one API version (Version -1: of the broker as a
// whole). A failure caused by a request carries it as JSON (the body
// `kwire send -k KEY -v VERSION` takes), the answer's bytes and its
// layout tree marked where it departs.
type Result struct {
	API      string          `json:"api"`
	Key      int16           `json:"key"`
	Version  int16           `json:"version"`
	Check    string          `json:"check"`
	Verdict  Verdict         `json:"verdict"`
	Detail   string          `json:"detail,omitempty"`
	Request  json.RawMessage `json:"request,omitempty"`
	Response string          `json:"response,omitempty"` // hex of the frame
	Layout   string          `json:"layout,omitempty"`
	Shrunk   int             `json:"shrunk,omitempty"` // shrinking steps that kept the failure
}

// Report is a run's findings.
type Report struct {
	Addr    string
	Seed    int64
	N       int
	Started time.Time
	Elapsed time.Duration
	// Offered is the broker's ApiVersions answer; Release the nearest
	// Kafka release table and how the broker departs from it.
	Offered []kwire.APIVersionRange
	Release string
	Results []Result
}

// Failed says whether any check failed.
func (r *Report) Failed() bool {
	for _, x := range r.Results {
		if x.Verdict == Fail {
			return true
		}
	}
	return false
}

// Count is the number of results with verdict v.
func (r *Report) Count(v Verdict) int {
	n := 0
	for _, x := range r.Results {
		if x.Verdict == v {
			n++
		}
	}
	return n
}

// ErrUnreachable is the error of a run that could not speak to the
// broker at all.
var ErrUnreachable = errors.New("broker unreachable")

// Run checks the broker at addr. Its error is only for a run that could
// not start (ErrUnreachable, bad options); every finding is in the report.
func Run(ctx context.Context, addr string, opts Options) (Report, error) {
	opts = opts.withDefaults()
	r := &runner{ctx: ctx, addr: addr, opts: opts, rng: rand.New(rand.NewSource(opts.Seed))}
	r.report = Report{Addr: addr, Seed: opts.Seed, N: opts.N, Started: time.Now()}
	defer func() { r.report.Elapsed = time.Since(r.report.Started) }()
	if err := r.negotiate(); err != nil {
		return r.report, err
	}
	r.setup()
	for _, api := range r.selected() {
		r.checkAPI(api)
	}
	r.robustness()
	r.teardown()
	r.report.Elapsed = time.Since(r.report.Started)
	sort.SliceStable(r.report.Results, func(i, j int) bool {
		a, b := r.report.Results[i], r.report.Results[j]
		if a.Key != b.Key {
			return a.Key < b.Key
		}
		return a.Version < b.Version
	})
	return r.report, nil
}

func (o Options) withDefaults() Options {
	if o.N == 0 {
		o.N = 8
	}
	if o.N < 0 {
		o.N = 0
	}
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Second
	}
	if o.Prefix == "" {
		o.Prefix = "kwire-conform-"
	}
	if o.ClientID == "" {
		o.ClientID = "kwire-conform"
	}
	return o
}

// runner is one run's state.
type runner struct {
	ctx    context.Context
	addr   string
	opts   Options
	rng    *rand.Rand
	report Report
	main   *client // the connection most requests share
	env    env
	// common are the versions of each API both sides speak.
	common map[int16]kwire.APIVersionRange
	down   string // why the broker stopped serving, once it did
}

func (r *runner) add(res Result) { r.report.Results = append(r.report.Results, res) }

// selected are the APIs both sides speak that the options ask for, by key.
func (r *runner) selected() []messages.API {
	var out []messages.API
	for _, api := range messages.APIs() {
		if _, ok := r.common[api.Key]; !ok {
			continue
		}
		if len(r.opts.APIs) > 0 && !slices.Contains(r.opts.APIs, api.Key) {
			continue
		}
		if slices.Contains(r.opts.Skip, api.Key) {
			continue
		}
		out = append(out, api)
	}
	return out
}

// versionsOf are the versions of api both sides speak.
func (r *runner) versionsOf(api messages.API) []int16 {
	c, ok := r.common[api.Key]
	if !ok {
		return nil
	}
	var vs []int16
	for v := c.MinVersion; v <= c.MaxVersion; v++ {
		vs = append(vs, v)
	}
	return vs
}
