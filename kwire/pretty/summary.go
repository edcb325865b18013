package pretty

import (
	"reflect"
	"strconv"
	"strings"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/kerr"
)

// maxSummaryErrors is how many error codes a summary names before it
// counts the rest.
const maxSummaryErrors = 4

// maxSummaryString is the longest string a summary shows in full.
const maxSummaryString = 64

// Summary is msg (a struct or a pointer to one) at version in one line for
// logs:
//
//	ProduceRequest v9 Acks=-1 TimeoutMs=30000 TopicData=1 TopicData.PartitionData=3 records=1000 batches=3 codec=zstd bytes=41873
//	FetchResponse v12 Responses=1 Responses.Partitions=2 errors=Responses[0].Partitions[1].ErrorCode=NOT_LEADER_OR_FOLLOWER
//
// It gives the type name (when the type has one) and version; the message's own non-zero numbers
// and bools and non-empty strings (nested ones are left out); the total
// element count of each array of structs, by path without indexes, and of
// top-level arrays of other values; the records of all records fields
// together; and the non-zero error codes by name with their paths.
func Summary(msg any, version int16) string {
	summary, _, _ := summarize(msg, version, false)
	return summary
}

// SummaryAndErrors is Summary and kerr.Find of msg at version in one walk
// of it (a log line that carries both walks a message once, not twice);
// the error is kerr.Find's.
func SummaryAndErrors(msg any, version int16) (string, []kerr.FieldCode, error) {
	return summarize(msg, version, true)
}

// summarize is Summary, and with all every non-zero error code too.
func summarize(msg any, version int16, all bool) (string, []kerr.FieldCode, error) {
	var found []kerr.FieldCode
	s, err := kwire.SchemaOf(msg, version)
	if err != nil {
		return "(" + err.Error() + ")", nil, err
	}
	var (
		b      strings.Builder
		counts []arrayCount
		recs   recordStats
		hasRec bool
		errs   []string
		nErrs  int
	)
	if name := s.Type.Name(); name != "" {
		b.WriteString(name)
		b.WriteString(" ")
	}
	b.WriteString("v")
	b.WriteString(strconv.Itoa(int(version)))
	err = kwire.Walk(msg, version, func(path *kwire.Path, f *kwire.Field, v reflect.Value) error {
		switch {
		case kerr.IsErrorCodeField(f):
			if c := kerr.Code(v.Int()); c != kerr.None {
				nErrs++
				if len(errs) < maxSummaryErrors || all {
					p := path.String()
					if len(errs) < maxSummaryErrors {
						errs = append(errs, p+"="+c.Name())
					}
					if all {
						found = append(found, kerr.FieldCode{Path: p, Code: c})
					}
				}
			}
		case f.Records:
			if !v.IsNil() {
				hasRec = true
				recs.add(v.Bytes())
			}
		case f.Elem != nil:
			if f.Elem.Struct != nil || path.Depth() == 0 {
				counts = addCount(counts, path.Names(), v.Len())
			}
		case path.Depth() == 0:
			writeTopScalar(&b, f, v)
		}
		return nil
	})
	if err != nil {
		return b.String() + " (" + err.Error() + ")", found, err
	}
	for _, c := range counts {
		if c.n > 0 {
			b.WriteString(" " + c.path + "=" + strconv.Itoa(c.n))
		}
	}
	if hasRec {
		b.WriteString(" records=" + strconv.Itoa(recs.records) + " batches=" + strconv.Itoa(recs.batches))
		if c := recs.codec(); c != "" {
			b.WriteString(" codec=" + c)
		}
		b.WriteString(" bytes=" + strconv.Itoa(recs.bytes))
		if recs.partial {
			b.WriteString(" partial")
		}
		if recs.err != nil {
			b.WriteString(" records-error=" + strconv.Quote(recs.err.Error()))
		}
	}
	if nErrs > 0 {
		b.WriteString(" errors=" + strings.Join(errs, ","))
		if nErrs > len(errs) {
			b.WriteString(",+" + strconv.Itoa(nErrs-len(errs)) + " more")
		}
	}
	return b.String(), found, nil
}

type arrayCount struct {
	path string
	n    int
}

func addCount(counts []arrayCount, path string, n int) []arrayCount {
	for i := range counts {
		if counts[i].path == path {
			counts[i].n += n
			return counts
		}
	}
	return append(counts, arrayCount{path, n})
}

// writeTopScalar writes a top-level field that says something: a non-zero
// number, a true bool, a non-empty or non-null string.
func writeTopScalar(b *strings.Builder, f *kwire.Field, v reflect.Value) {
	var text string
	switch v.Kind() {
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if v.Int() == 0 {
			return
		}
		text = strconv.FormatInt(v.Int(), 10)
	case reflect.Uint16, reflect.Uint32:
		if v.Uint() == 0 {
			return
		}
		text = strconv.FormatUint(v.Uint(), 10)
	case reflect.Bool:
		if !v.Bool() {
			return
		}
		text = "true"
	case reflect.String:
		if v.Len() == 0 {
			return
		}
		text = quoteShort(v.String())
	case reflect.Pointer:
		if v.IsNil() || v.Elem().Kind() != reflect.String {
			return
		}
		text = quoteShort(v.Elem().String())
	case reflect.Array:
		if v.IsZero() {
			return
		}
		var u kwire.UUID
		reflect.Copy(reflect.ValueOf(u[:]), v)
		text = u.String()
	default:
		return
	}
	b.WriteString(" " + f.Name + "=" + text)
}

// quoteShort quotes s, cut to maxSummaryString runes.
func quoteShort(s string) string {
	if r := []rune(s); len(r) > maxSummaryString {
		return strconv.Quote(string(r[:maxSummaryString])) + "..."
	}
	return strconv.Quote(s)
}
