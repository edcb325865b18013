package interop

import (
	"bytes"
	"flag"
	"fmt"
	"hash/fnv"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/twmb/franz-go/pkg/kmsg"
)

var (
	longRun = flag.Bool("long", false, "many more random instances per API, version and direction")
	seedArg = flag.Int64("seed", 0, "gopter seed (0: a fixed default, so runs repeat)")
)

// instances is how many random messages each (API, version, request or
// response, direction) gets: KWIRE_INTEROP_N, else 500 under -long, else 20.
func instances() int {
	if s := os.Getenv("KWIRE_INTEROP_N"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			return n
		}
	}
	if *longRun {
		return 500
	}
	return 20
}

func seed() int64 {
	if *seedArg != 0 {
		return *seedArg
	}
	return 0x6b77697265 // "kwire"
}

// side is a request or a response of one API at one version.
type side struct {
	api  messages.API
	v    int16
	resp bool
}

func (s side) String() string {
	d := "Request"
	if s.resp {
		d = "Response"
	}
	return fmt.Sprintf("%s%s v%d", s.api.Name, d, s.v)
}

func (s side) kwireMsg() any {
	if s.resp {
		return s.api.NewResponse()
	}
	return s.api.NewRequest()
}

// kmsgMsg returns kmsg's struct for the side, Default applied, version set.
func (s side) kmsgMsg() kmsgMessage {
	var m kmsgMessage
	if s.resp {
		m = kmsg.ResponseForKey(s.api.Key)
	} else {
		m = kmsg.RequestForKey(s.api.Key)
	}
	m.SetVersion(s.v)
	return m
}

// kmsgMessage is what kmsg's requests and responses have in common.
type kmsgMessage interface {
	Key() int16
	MaxVersion() int16
	SetVersion(int16)
	GetVersion() int16
	IsFlexible() bool
	AppendTo([]byte) []byte
	ReadFrom([]byte) error
}

// exclusion names one (API key, version, request or response) where kmsg
// and Kafka's schemas (from which kwire's messages are generated) differ.
// The test still runs it and fails if the two now agree, so the table
// cannot go stale.
type exclusion struct {
	key  int16
	v    int16
	resp bool
}

// exclusions: see the table in README.md for the details of each.
var exclusions = map[exclusion]string{
	{5, 4, false}: "StopReplica v4 request: kmsg writes IsKRaftController after ControllerEpoch; Kafka's schema has it between ControllerId and ControllerEpoch",
}

// ---- the checks: each returns the first disagreement ----

// checkMinimal: kwire.FillMinimal's body equals kmsg's body for the same
// smallest content.
func checkMinimal(s side) error {
	meta, err := kmsgMeta()
	if err != nil {
		return err
	}
	msg := s.kwireMsg()
	if err := kwire.FillMinimal(msg, s.v); err != nil {
		return fmt.Errorf("FillMinimal: %v", err)
	}
	want, err := kwire.Marshal(msg, s.v)
	if err != nil {
		return fmt.Errorf("kwire Marshal of the minimal instance: %v", err)
	}
	got := kmsgMinimalMsg(s, meta).AppendTo(nil)
	if !bytes.Equal(got, want) {
		return fmt.Errorf("minimal instance: kmsg wrote %s", diff(got, want))
	}
	return nil
}

// kmsgMinimalMsg is kmsg's smallest instance of the side, version set.
func kmsgMinimalMsg(s side, meta map[string]kmsgFieldMeta) kmsgMessage {
	km := s.kmsgMsg()
	kmsgMinimal(reflect.ValueOf(km).Elem(), meta, 0)
	km.SetVersion(s.v)
	return km
}

// checkKwireToKmsg: a random kwire instance, marshalled, read by kmsg and
// written again by kmsg gives the same bytes.
func checkKwireToKmsg(s side, seed int64) error {
	msg := s.kwireMsg()
	info, err := kwire.MessageInfoOf(msg)
	if err != nil {
		return err
	}
	f := kwireFiller{rnd: newRnd(seed), version: s.v, flex: info.Flexible.Contains(s.v)}
	f.fillStruct(reflect.ValueOf(msg).Elem(), 0)
	b, err := kwire.Marshal(msg, s.v)
	if err != nil {
		return fmt.Errorf("seed %d: kwire Marshal: %v", seed, err)
	}
	if n, err := kwire.Size(msg, s.v); err != nil || n != len(b) {
		return fmt.Errorf("seed %d: kwire Size %d (%v), Marshal wrote %d", seed, n, err, len(b))
	}
	km := s.kmsgMsg()
	if err := km.ReadFrom(b); err != nil {
		return fmt.Errorf("seed %d: kmsg cannot read kwire's %d bytes: %v", seed, len(b), err)
	}
	if got := km.AppendTo(nil); !bytes.Equal(got, b) {
		return fmt.Errorf("seed %d: kwire → kmsg → bytes: kmsg wrote %s", seed, diff(got, b))
	}
	return nil
}

// checkKmsgToKwire: a random kmsg instance, written by kmsg, read by kwire
// and marshalled again gives the same bytes.
func checkKmsgToKwire(s side, seed int64) error {
	meta, err := kmsgMeta()
	if err != nil {
		return err
	}
	km := s.kmsgMsg()
	f := kmsgFiller{rnd: newRnd(seed), version: s.v, flex: km.IsFlexible(), meta: meta,
		tagged: kwireTaggedFields(reflect.TypeOf(s.kwireMsg()))}
	f.fillStruct(reflect.ValueOf(km).Elem(), 0)
	if fields := kmsgNullBeyondSchema[exclusion{s.api.Key, s.v, s.resp}]; fields != nil {
		setNullsEmpty(reflect.ValueOf(km).Elem(), fields)
	}
	km.SetVersion(s.v)
	b := km.AppendTo(nil)
	msg := s.kwireMsg()
	if err := kwire.Unmarshal(b, msg, s.v); err != nil {
		return fmt.Errorf("seed %d: kwire cannot read kmsg's %d bytes: %v", seed, len(b), err)
	}
	got, err := kwire.Marshal(msg, s.v)
	if err != nil {
		return fmt.Errorf("seed %d: kwire Marshal after Unmarshal: %v", seed, err)
	}
	if !bytes.Equal(got, b) {
		return fmt.Errorf("seed %d: kmsg → kwire → bytes: kwire wrote %s", seed, diff(got, b))
	}
	return nil
}

// diff describes how got differs from want: lengths, the first differing
// offset and the bytes around it.
func diff(got, want []byte) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	lo := max(0, i-8)
	hex := func(b []byte) string {
		hi := min(len(b), i+16)
		if lo >= hi {
			return "(end)"
		}
		return fmt.Sprintf("% x", b[lo:hi])
	}
	return fmt.Sprintf("%d bytes, want %d; first difference at offset %d:\n\tgot  [%d:] %s\n\twant [%d:] %s",
		len(got), len(want), i, lo, hex(got), lo, hex(want))
}

// property runs check over n seeds drawn by gopter, seeded from the
// run's seed and name (each body gets its own sequence).
func property(name string, n int, check func(seed int64) error) error {
	h := fnv.New64a()
	h.Write([]byte(name))
	params := gopter.DefaultTestParametersWithSeed(seed() ^ int64(h.Sum64()))
	params.MinSuccessfulTests = n
	params.MaxShrinkCount = 0
	var first error
	var mu sync.Mutex
	res := prop.ForAll(func(sd int64) bool {
		err := check(sd)
		if err != nil {
			mu.Lock()
			if first == nil {
				first = err
			}
			mu.Unlock()
		}
		return err == nil
	}, gen.Int64().WithShrinker(gopter.NoShrinker)).Check(params)
	if res.Passed() {
		return nil
	}
	if first == nil {
		first = fmt.Errorf("gopter: %s: %v", res.Status, res.Error)
	}
	return first
}

// sides lists every (API, version, request/response) that both kwire and
// kmsg define, and the versions only one of them has.
func sides(t *testing.T) (both []side, onlyKwire, onlyKmsg []string) {
	known := map[int16]bool{}
	for _, api := range messages.APIs() {
		known[api.Key] = true
		kreq := kmsg.RequestForKey(api.Key)
		if kreq == nil {
			onlyKwire = append(onlyKwire, fmt.Sprintf("%s (key %d) v%d-%d: not in kmsg", api.Name, api.Key, api.MinVersion, api.MaxVersion))
			continue
		}
		kmax := kreq.MaxVersion()
		if api.MaxVersion > kmax {
			onlyKwire = append(onlyKwire, fmt.Sprintf("%s (key %d) v%d-%d", api.Name, api.Key, kmax+1, api.MaxVersion))
		}
		if kmax > api.MaxVersion {
			onlyKmsg = append(onlyKmsg, fmt.Sprintf("%s (key %d) v%d-%d", api.Name, api.Key, api.MaxVersion+1, kmax))
		}
		for v := api.MinVersion; v <= min(api.MaxVersion, kmax); v++ {
			both = append(both, side{api, v, false}, side{api, v, true})
		}
	}
	for k := int16(0); k < 1000; k++ {
		if r := kmsg.RequestForKey(k); r != nil && !known[k] {
			onlyKmsg = append(onlyKmsg, fmt.Sprintf("%T (key %d) v0-%d: not in kwire's messages", r, k, r.MaxVersion()))
		}
	}
	return both, onlyKwire, onlyKmsg
}

// TestKmsgAgreement is the differential test: for every (API, version)
// both libraries define, request and response, the smallest instance and
// random instances in both directions must give the same bytes.
func TestKmsgAgreement(t *testing.T) {
	if _, err := kmsgMeta(); err != nil {
		t.Fatalf("reading kmsg's source: %v", err)
	}
	both, onlyKwire, onlyKmsg := sides(t)
	n := instances()
	type pair struct {
		key, v int16
	}
	var mu sync.Mutex
	failed := map[pair]bool{}
	excluded := map[pair]bool{}
	pairs := map[pair]bool{}
	ran, exclusionsSeen := 0, map[exclusion]bool{}
	for _, s := range both {
		s := s
		p := pair{s.api.Key, s.v}
		pairs[p] = true
		t.Run(strings.ReplaceAll(s.String(), " ", "/"), func(t *testing.T) {
			t.Parallel()
			var errs []string
			if f := s.kmsgMsg().IsFlexible(); f != s.api.IsFlexible(s.v) {
				errs = append(errs, fmt.Sprintf("flexible: kmsg %v, kwire %v", f, s.api.IsFlexible(s.v)))
			}
			if err := checkMinimal(s); err != nil {
				errs = append(errs, err.Error())
			}
			if err := property(s.String()+"/kwire", n, func(sd int64) error { return checkKwireToKmsg(s, sd) }); err != nil {
				errs = append(errs, err.Error())
			}
			if err := property(s.String()+"/kmsg", n, func(sd int64) error { return checkKmsgToKwire(s, sd) }); err != nil {
				errs = append(errs, err.Error())
			}
			reason, isExcluded := exclusions[exclusion{s.api.Key, s.v, s.resp}]
			mu.Lock()
			defer mu.Unlock()
			ran++
			exclusionsSeen[exclusion{s.api.Key, s.v, s.resp}] = isExcluded
			switch {
			case isExcluded && len(errs) == 0:
				t.Errorf("excluded (%s) but kwire and kmsg now agree: remove it from the table", reason)
			case isExcluded:
				excluded[p] = true
				t.Logf("excluded: %s\n%s", reason, strings.Join(errs, "\n"))
			case len(errs) > 0:
				failed[p] = true
				t.Errorf("%s", strings.Join(errs, "\n"))
			}
		})
	}
	t.Cleanup(func() {
		agree := 0
		for p := range pairs {
			if !failed[p] && !excluded[p] {
				agree++
			}
		}
		t.Logf("(API, version) pairs compared: %d (%d request/response bodies, %d random instances per body and direction); "+
			"agreeing on request and response: %d; with an excluded side: %d; failing: %d",
			len(pairs), len(both), n, agree, len(excluded), len(failed))
		// An exclusion that names no compared body hides nothing and
		// would go stale unseen (checked when every body ran, not under
		// -run filters).
		for e, reason := range exclusions {
			if ran == len(both) && !exclusionsSeen[e] {
				t.Errorf("exclusion %v (%s) names no body that was compared", e, reason)
			}
		}
		sort.Strings(onlyKwire)
		sort.Strings(onlyKmsg)
		t.Logf("versions only kwire has (not compared):\n\t%s", strings.Join(onlyKwire, "\n\t"))
		// kwire speaks every version kmsg does (Kafka 4.4 is newer than
		// kmsg v1.15.1): a kmsg-only version means the schemas are behind.
		if len(onlyKmsg) > 0 {
			t.Errorf("versions only kmsg has (not compared):\n\t%s", strings.Join(onlyKmsg, "\n\t"))
		}
	})
}

// TestKmsgRecordsFields checks the list of kmsg's records fields against
// kwire's `records` tags: the same number in every message.
func TestKmsgRecordsFields(t *testing.T) {
	count := func(t reflect.Type, isRecords func(parent reflect.Type, sf reflect.StructField) bool) int {
		n := 0
		seen := map[reflect.Type]bool{}
		var walk func(t reflect.Type)
		walk = func(t reflect.Type) {
			for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
				t = t.Elem()
			}
			if t.Kind() != reflect.Struct || seen[t] {
				return
			}
			seen[t] = true
			for i := 0; i < t.NumField(); i++ {
				if isRecords(t, t.Field(i)) {
					n++
				}
				walk(t.Field(i).Type)
			}
		}
		walk(t)
		return n
	}
	kwireRecords := func(_ reflect.Type, sf reflect.StructField) bool {
		kf, ok := parseKwireField(sf)
		return ok && kf.records
	}
	total := 0
	for _, api := range messages.APIs() {
		kreq, kresp := kmsg.RequestForKey(api.Key), kmsg.ResponseForKey(api.Key)
		if kreq == nil {
			continue
		}
		for _, pair := range [][2]any{{api.NewRequest(), kreq}, {api.NewResponse(), kresp}} {
			a, b := count(reflect.TypeOf(pair[0]), kwireRecords), count(reflect.TypeOf(pair[1]), isKmsgRecords)
			if a != b {
				t.Errorf("%T: kwire has %d records fields, kmsg's list %d", pair[0], a, b)
			}
			total += b
		}
	}
	if total != len(kmsgRecordsFields) {
		t.Errorf("found %d of the %d listed kmsg records fields", total, len(kmsgRecordsFields))
	}
}

// frameExclusions are request frames kmsg's RequestFormatter gets wrong.
var frameExclusions = map[exclusion]string{
	{7, 0, false}: "ControlledShutdown v0: kmsg's RequestFormatter returns after the v0 header, before the body and before it fills in the size prefix (it writes size 0 and drops BrokerId)",
}

// TestKmsgRequestFrames compares whole request frames (size prefix,
// header v0/v1/v2, body) with kmsg's RequestFormatter, with and without a
// client ID, and reads kmsg's frame back with kwire.ReadRequest.
func TestKmsgRequestFrames(t *testing.T) {
	both, _, _ := sides(t)
	clientID := "kwire-interop"
	frames := 0
	for _, s := range both {
		if s.resp {
			continue
		}
		if _, ok := exclusions[exclusion{s.api.Key, s.v, false}]; ok {
			continue
		}
		for i, cid := range []*string{nil, &clientID} {
			msg := s.kwireMsg()
			info, _ := kwire.MessageInfoOf(msg)
			f := kwireFiller{rnd: newRnd(int64(i)), version: s.v, flex: info.Flexible.Contains(s.v)}
			f.fillStruct(reflect.ValueOf(msg).Elem(), 0)
			corr := int32(0x01020304 * (i + 1))
			frame, err := kwire.AppendRequest(nil, msg, s.v, corr, cid)
			if err != nil {
				t.Errorf("%s: AppendRequest: %v", s, err)
				continue
			}
			body, _ := kwire.Marshal(msg, s.v)
			km := s.kmsgMsg()
			if err := km.ReadFrom(body); err != nil {
				t.Errorf("%s: kmsg ReadFrom: %v", s, err)
				continue
			}
			var opts []kmsg.RequestFormatterOpt
			if cid != nil {
				opts = append(opts, kmsg.FormatterClientID(*cid))
			}
			want := kmsg.NewRequestFormatter(opts...).AppendRequest(nil, km.(kmsg.Request), corr)
			if reason, ok := frameExclusions[exclusion{s.api.Key, s.v, false}]; ok {
				if bytes.Equal(frame, want) {
					t.Errorf("%s: excluded (%s) but the frames now agree", s, reason)
				}
				continue
			}
			if !bytes.Equal(frame, want) {
				t.Errorf("%s (client ID %v): kwire frame %s", s, cid != nil, diff(frame, want))
				continue
			}
			h, got, err := kwire.ReadRequest(want, func(key, v int16) (any, error) {
				api, _ := messages.Lookup(key)
				return api.NewRequest(), nil
			})
			if err != nil {
				t.Errorf("%s: ReadRequest of kmsg's frame: %v", s, err)
				continue
			}
			again, _ := kwire.Marshal(got, s.v)
			wantCID := cid
			if s.api.Key == 7 && s.v == 0 {
				wantCID = nil // header v0 has no client ID
			}
			if h.APIKey != s.api.Key || h.APIVersion != s.v || h.CorrelationID != corr ||
				(h.ClientID == nil) != (wantCID == nil) || (wantCID != nil && *h.ClientID != *wantCID) || !bytes.Equal(again, body) {
				t.Errorf("%s: ReadRequest gave header %+v and a body that re-encodes differently", s, h)
			}
			frames++
		}
	}
	t.Logf("%d request frames agree with kmsg's RequestFormatter", frames)
}
