package sniff

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/kwirelabs/kwire/kwire/kerr"
	"github.com/kwirelabs/kwire/kwire/pretty"
	"github.com/kwirelabs/kwire/messages"
)

// APIVersion names one version of one API.
type APIVersion struct{ Key, Version int16 }

// FrameCount is how many requests and responses of an API version the
// capture held.
type FrameCount struct{ Requests, Responses int64 }

// ErrorCount is how often a response of an API carried an error code.
type ErrorCount struct {
	Key   int16
	Code  kerr.Code
	Count int64
}

// Stats is the summary of a capture.
type Stats struct {
	Packets   int64 // packets read
	NotTCP    int64 // packets that were not TCP over IPv4 or IPv6
	Fragments int64 // IP fragments (not reassembled)

	Connections int64 // Kafka connections found
	NotKafka    int64 // TCP connections that were not (or not decodable) Kafka
	TLS         int64 // ... of them, TLS

	Frames      map[APIVersion]*FrameCount
	Paired      int64 // responses paired with their request
	Unpaired    int64 // responses to no request in the capture
	Unanswered  int64 // requests whose response the capture lacks
	Undecodable int64 // frames that did not decode
	Tokens      int64 // raw SASL tokens
	Errors      map[APIVersion]int64
	Latency     map[int16]*Histogram

	Gaps         int64 // holes in streams
	GapBytes     int64 // bytes in them
	SkippedBytes int64 // bytes passed over to find a frame boundary
	CutFrames    int64 // frames cut short by a connection's or the capture's end
	Truncated    bool  // the capture file ends inside a packet

	reg *messages.Registry // names the APIs
}

func newStats() *Stats {
	return &Stats{Frames: map[APIVersion]*FrameCount{}, Errors: map[APIVersion]int64{}, Latency: map[int16]*Histogram{}, reg: messages.Default}
}

// record counts r and hands it to the caller. Error codes are counted
// by API (in Errors, keyed by API key and the code in Version's place).
func (s *sniffer) record(r *Record) {
	st := s.stats
	if r.Key >= 0 && (r.Kind == Request || r.Kind == Response) {
		k := APIVersion{r.Key, r.Version}
		fc := st.Frames[k]
		if fc == nil {
			fc = &FrameCount{}
			st.Frames[k] = fc
		}
		if r.Kind == Request {
			fc.Requests++
		} else {
			fc.Responses++
			h := st.Latency[r.Key]
			if h == nil {
				h = &Histogram{}
				st.Latency[r.Key] = h
			}
			if r.Latency >= 0 {
				h.Add(r.Latency)
			}
		}
	}
	if r.Kind == Response && r.Msg != nil {
		// The summary comes from the same walk, for a log line to reuse.
		summary, found, err := pretty.SummaryAndErrors(r.Msg, r.Version)
		r.ErrorCodes = found
		if err == nil {
			r.Summary = summary
		}
		for _, f := range found {
			st.Errors[APIVersion{r.Key, int16(f.Code)}]++
		}
	}
	s.emit(r)
}

// Histogram holds durations in buckets 4% wide, from 1µs up: bounded
// memory, percentiles within 2%.
type Histogram struct {
	counts   []int64
	n        int64
	min, max time.Duration
}

const (
	histBase   = float64(time.Microsecond)
	histGrowth = 1.04
)

// Add counts one duration.
func (h *Histogram) Add(d time.Duration) {
	if d < 0 {
		d = 0
	}
	if h.n == 0 || d < h.min {
		h.min = d
	}
	if d > h.max {
		h.max = d
	}
	h.n++
	i := 0
	if float64(d) > histBase {
		i = int(math.Log(float64(d)/histBase)/math.Log(histGrowth)) + 1
	}
	for i >= len(h.counts) {
		h.counts = append(h.counts, 0)
	}
	h.counts[i]++
}

// Count is the number of durations added.
func (h *Histogram) Count() int64 { return h.n }

// Quantile is the duration q (0..1) of the way up, to the bucket's
// middle, and exact at the ends.
func (h *Histogram) Quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	if q <= 0 {
		return h.min
	}
	if q >= 1 {
		return h.max
	}
	rank := int64(math.Ceil(q * float64(h.n)))
	var seen int64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			if i == 0 {
				return min(time.Duration(histBase), h.max)
			}
			lo := histBase * math.Pow(histGrowth, float64(i-1))
			d := time.Duration(lo * math.Sqrt(histGrowth))
			return max(min(d, h.max), h.min)
		}
	}
	return h.max
}

func (s *Stats) apiName(key int16) string {
	reg := s.reg
	if reg == nil { // a Stats not made by Read
		reg = messages.Default
	}
	if a, ok := reg.Lookup(key); ok {
		return a.Name
	}
	return fmt.Sprintf("key%d", key)
}

// plural is n and the noun, in the plural unless n is 1.
func plural[N int | int64](n N, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// WriteText writes the summary for people.
func (s *Stats) WriteText(w io.Writer) {
	var b strings.Builder
	fmt.Fprintf(&b, "\n-- summary: %s, %s", plural(s.Packets, "packet"), plural(s.Connections, "Kafka connection"))
	if s.NotKafka > 0 {
		fmt.Fprintf(&b, ", %s", plural(s.NotKafka, "other TCP connection"))
		if s.TLS > 0 {
			fmt.Fprintf(&b, " (%d TLS)", s.TLS)
		}
	}
	b.WriteString("\n")
	if len(s.Frames) > 0 {
		b.WriteString("frames (requests/responses) by API and version:\n")
		keys := make([]APIVersion, 0, len(s.Frames))
		for k := range s.Frames {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			return keys[i].Key < keys[j].Key || keys[i].Key == keys[j].Key && keys[i].Version < keys[j].Version
		})
		for _, k := range keys {
			fc := s.Frames[k]
			fmt.Fprintf(&b, "  %-28s v%-3d %8d / %d\n", s.apiName(k.Key), k.Version, fc.Requests, fc.Responses)
		}
	}
	if len(s.Latency) > 0 {
		b.WriteString("latency by API (capture timestamps): count p50 p90 p99 max\n")
		keys := make([]int16, 0, len(s.Latency))
		for k := range s.Latency {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
		for _, k := range keys {
			h := s.Latency[k]
			fmt.Fprintf(&b, "  %-28s %8d %9s %9s %9s %9s\n", s.apiName(k), h.Count(), ms(h.Quantile(0.5)), ms(h.Quantile(0.9)), ms(h.Quantile(0.99)), ms(h.Quantile(1)))
		}
	}
	if len(s.Errors) > 0 {
		b.WriteString("error codes in responses:\n")
		for _, e := range s.ErrorList() {
			fmt.Fprintf(&b, "  %-28s %-40s %d\n", s.apiName(e.Key), e.Code.Name(), e.Count)
		}
	}
	fmt.Fprintf(&b, "paired %d responses; %d responses to requests not in the capture; %d requests unanswered\n", s.Paired, s.Unpaired, s.Unanswered)
	fmt.Fprintf(&b, "undecodable frames %d; SASL tokens %d; gaps %d (%d bytes); %d bytes skipped to resynchronise; %d frames cut\n",
		s.Undecodable, s.Tokens, s.Gaps, s.GapBytes, s.SkippedBytes, s.CutFrames)
	if s.Fragments > 0 {
		fmt.Fprintf(&b, "IP fragments not reassembled: %d\n", s.Fragments)
	}
	if s.Truncated {
		b.WriteString("the capture file ends inside a packet\n")
	}
	io.WriteString(w, b.String())
}

// ErrorList is Errors sorted by API, then by count, most first.
func (s *Stats) ErrorList() []ErrorCount {
	out := make([]ErrorCount, 0, len(s.Errors))
	for k, n := range s.Errors {
		out = append(out, ErrorCount{Key: k.Key, Code: kerr.Code(k.Version), Count: n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Key != out[j].Key {
			return out[i].Key < out[j].Key
		}
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Code < out[j].Code
	})
	return out
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.3fms", float64(d)/float64(time.Millisecond))
}

// Summary is the summary as plain data, for JSON.
func (s *Stats) Summary() map[string]any {
	type frames struct {
		API       string `json:"api"`
		Key       int16  `json:"key"`
		Version   int16  `json:"version"`
		Requests  int64  `json:"requests"`
		Responses int64  `json:"responses"`
	}
	type latency struct {
		API   string  `json:"api"`
		Count int64   `json:"count"`
		P50   float64 `json:"p50_ms"`
		P90   float64 `json:"p90_ms"`
		P99   float64 `json:"p99_ms"`
		Max   float64 `json:"max_ms"`
	}
	type errCount struct {
		API   string `json:"api"`
		Error string `json:"error"`
		Count int64  `json:"count"`
	}
	var fr []frames
	for k, fc := range s.Frames {
		fr = append(fr, frames{s.apiName(k.Key), k.Key, k.Version, fc.Requests, fc.Responses})
	}
	sort.Slice(fr, func(i, j int) bool {
		return fr[i].Key < fr[j].Key || fr[i].Key == fr[j].Key && fr[i].Version < fr[j].Version
	})
	var lat []latency
	for k, h := range s.Latency {
		f := func(q float64) float64 { return float64(h.Quantile(q)) / float64(time.Millisecond) }
		lat = append(lat, latency{s.apiName(k), h.Count(), f(0.5), f(0.9), f(0.99), f(1)})
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i].API < lat[j].API })
	errs := []errCount{} // [] rather than null when there are none
	for _, e := range s.ErrorList() {
		errs = append(errs, errCount{s.apiName(e.Key), e.Code.Name(), e.Count})
	}
	return map[string]any{
		"packets": s.Packets, "connections": s.Connections, "other_connections": s.NotKafka, "tls_connections": s.TLS,
		"frames": fr, "latency": lat, "errors": errs,
		"paired": s.Paired, "unpaired_responses": s.Unpaired, "unanswered_requests": s.Unanswered,
		"undecodable": s.Undecodable, "sasl_tokens": s.Tokens, "gaps": s.Gaps, "gap_bytes": s.GapBytes,
		"skipped_bytes": s.SkippedBytes, "cut_frames": s.CutFrames, "truncated": s.Truncated,
	}
}
