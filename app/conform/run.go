package conform

import (
	"fmt"
	"math/rand"
	"time"

	"github.com/leanovate/gopter"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/kwiretest"
	"github.com/kwirelabs/kwire/kwire/pretty"
	"github.com/kwirelabs/kwire/messages"
)

// reconnect replaces the main connection after an answer that leaves it
// in doubt (none came, or one that did not decode); when the broker
// takes no new connection it is down, and the rest of the run is skipped.
func (r *runner) reconnect() {
	r.main.close()
	c, err := r.dial()
	if err != nil {
		r.main = nil
		r.down = "the broker stopped taking connections: " + err.Error()
		return
	}
	r.main = c
}

// outcome is one request's verdict: the answer and the checks it failed.
type outcome struct {
	frame []byte
	fails []failure
}

func (o outcome) failed(check string) (failure, bool) {
	for _, f := range o.fails {
		if f.check == check {
			return f, true
		}
	}
	return failure{}, false
}

// send sends req at v and judges the answer, on the main connection or,
// for an API that changes a connection's state, on one of its own.
func (r *runner) send(api messages.API, v int16, req any) outcome {
	c := r.main
	if ownConnection[api.Key] {
		var err error
		if c, err = r.dial(); err != nil {
			return outcome{fails: []failure{{checkAnswer, "dial: " + err.Error(), -1}}}
		}
		defer c.close()
	}
	frame, corr, err := c.request(req, v)
	if err != nil {
		return outcome{fails: []failure{{checkAnswer, "kwire cannot encode the request: " + err.Error(), -1}}}
	}
	var answer []byte
	if err = c.write(frame); err == nil {
		answer, err = c.read()
	}
	_, fs := r.judge(api, v, req, corr, answer, err)
	if !ownConnection[api.Key] {
		for _, f := range fs {
			if f.check == checkAnswer || f.check == checkDecode || f.check == checkHeader || f.check == checkCorrelation {
				r.reconnect()
				break
			}
		}
	}
	return outcome{frame: answer, fails: fs}
}

// checkAPI checks every version of api both sides speak, unless it is
// destructive and the run is not.
func (r *runner) checkAPI(api messages.API) {
	for _, v := range r.versionsOf(api) {
		if err := r.ctx.Err(); err != nil && r.down == "" {
			r.down = "the run was cut short: " + err.Error()
		}
		if cl := classOf(api); cl == destructive && !r.opts.Destructive {
			r.add(Result{API: api.Name, Key: api.Key, Version: v, Check: "all", Verdict: Skip,
				Detail: "may change the cluster for others: run with -destructive"})
			continue
		}
		if r.down != "" {
			r.add(Result{API: api.Name, Key: api.Key, Version: v, Check: "all", Verdict: Skip, Detail: r.down})
			continue
		}
		r.checkVersion(api, v)
	}
}

// checkVersion sends the minimal request and opts.N random ones at v; a
// check passes when every answer met it, and fails with the first
// request that broke it (random ones shrunk).
func (r *runner) checkVersion(api messages.API, v int16) {
	names := append([]string(nil), genericChecks...)
	for _, c := range Checks {
		if c.applies(api.Key) {
			names = append(names, c.Name)
		}
	}
	failed := map[string]Result{}
	sent := 0
	try := func(req any, random bool) {
		o := r.send(api, v, req)
		sent++
		for _, f := range o.fails {
			if _, seen := failed[f.check]; seen {
				continue
			}
			req, o, steps := req, o, 0
			if random && r.down == "" {
				req, o, steps = r.shrink(api, v, req, o, f.check)
			}
			f2, _ := o.failed(f.check)
			failed[f.check] = r.failureResult(api, v, req, o, f2, random, steps)
		}
	}
	min := api.NewRequest()
	if err := kwire.FillMinimal(min, v); err != nil {
		r.add(Result{API: api.Name, Key: api.Key, Version: v, Check: "all", Verdict: Skip, Detail: err.Error()})
		return
	}
	r.env.prepare(api, min, v)
	try(min, false)
	gen := kwiretest.Gen(api.NewRequest(), v)
	params := gopter.DefaultGenParameters()
	// One stream per API and version, from the seed: a run with -api
	// sends what the same run without it sends for those APIs.
	params.Rng = rand.New(rand.NewSource(r.opts.Seed ^ int64(api.Key)<<20 ^ int64(v)<<8))
	params.MaxSize = 24
	for i := 0; i < r.opts.N && r.down == ""; i++ {
		res := gen(params)
		req, ok := res.Retrieve()
		if !ok {
			continue
		}
		r.env.prepare(api, req, v)
		try(req, true)
	}
	for _, name := range names {
		if res, ok := failed[name]; ok {
			r.add(res)
			delete(failed, name)
			continue
		}
		if r.down != "" && sent == 0 {
			continue
		}
		r.add(Result{API: api.Name, Key: api.Key, Version: v, Check: name, Verdict: Pass,
			Detail: fmt.Sprintf("%d requests", sent)})
	}
	for name, res := range failed { // a check not in the list: cannot happen, but never lose a failure
		res.Check = name
		r.add(res)
	}
}

// failureResult is the report's entry for a check req's answer failed.
func (r *runner) failureResult(api messages.API, v int16, req any, o outcome, f failure, random bool, steps int) Result {
	res := Result{API: api.Name, Key: api.Key, Version: v, Check: f.check, Verdict: Fail, Detail: f.detail, Shrunk: steps}
	if random {
		res.Detail += " (random request, seed " + fmt.Sprint(r.opts.Seed) + ")"
	} else {
		res.Detail += " (minimal request)"
	}
	if js, err := pretty.JSON(req, v); err == nil {
		res.Request = js
	}
	if o.frame != nil {
		res.Response = hexOf(o.frame)
		res.Layout = layout(api, v, o.frame, f.at)
	}
	return res
}

// maxShrinks bounds the requests one shrink sends.
const maxShrinks = 300

// shrink looks for a smaller request whose answer still fails check:
// gopter's shrink steps over req (shrinker), each candidate made safe
// again by prepare and sent; it returns the smallest found, its outcome
// and how many steps kept the failure.
func (r *runner) shrink(api messages.API, v int16, req any, o outcome, check string) (any, outcome, int) {
	steps, sent := 0, 0
	deadline := time.Now().Add(10 * r.opts.Timeout)
	for sent < maxShrinks && r.down == "" && time.Now().Before(deadline) {
		shrinks := shrinker(api, v, r.env.prepare)(req)
		better := false
		for sent < maxShrinks && r.down == "" {
			cand, ok := shrinks()
			if !ok {
				break
			}
			sent++
			co := r.send(api, v, cand)
			if _, still := co.failed(check); still {
				req, o, better = cand, co, true
				steps++
				break
			}
		}
		if !better {
			break
		}
	}
	return req, o, steps
}
