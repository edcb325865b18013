package kwire

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/fatih/structtag"
)

// fieldTag is one field's parsed `kafka:"..."` tag.
type fieldTag struct {
	versions   VersionRange
	nullable   VersionRange
	compact    *VersionRange // nil: follow the message's flexible versions
	tag        int64         // -1 when not a tagged field
	tagged     VersionRange
	defaultRaw *string // the text after default=, nil when absent
	ignorable  bool
	varint     bool
	uvarint    bool
	records    bool
}

// messageTag is the struct-level tag on a `_ struct{}` field.
type messageTag struct {
	apiKey   int16 // -1 when not given
	versions VersionRange
	flexible VersionRange
	// The header tables as stated (reqheader=, respheader=; nil when
	// not), and as used: stated or derived (header_versions.go).
	reqHeaders, respHeaders HeaderVersions
	request, response       HeaderVersions
}

// kafkaTag returns the raw kafka tag of a struct field and whether it has one.
func kafkaTag(f reflect.StructField) (*structtag.Tag, bool, error) {
	if f.Tag == "" {
		return nil, false, nil
	}
	tags, err := structtag.Parse(string(f.Tag))
	if err != nil {
		return nil, false, err
	}
	t, err := tags.Get("kafka")
	if err != nil {
		return nil, false, nil // no kafka key
	}
	return t, true, nil
}

// tagItem is one key=value item of a tag; hasVal tells key= from key.
type tagItem struct {
	key, val string
	hasVal   bool
}

// tagItems is a tag's items, each key once.
type tagItems []tagItem

// has reports whether the tag gives key.
func (items tagItems) has(key string) bool {
	for _, it := range items {
		if it.key == key {
			return true
		}
	}
	return false
}

// splitTag splits a tag into key=value items at commas and refuses a key
// given twice. A value in single quotes may hold commas, and ” inside it
// stands for one quote: default='a,b', default='it”s'. (structtag splits
// at every comma, so the text is put back together and split here.)
func splitTag(t *structtag.Tag) (tagItems, *tagError) {
	s := t.Value()
	var items tagItems
	for s != "" {
		var item string
		if eq := strings.IndexAny(s, ",="); eq >= 0 && s[eq] == '=' && strings.HasPrefix(s[eq+1:], "'") {
			key := strings.TrimSpace(s[:eq])
			end, err := closingQuote(s, eq+1)
			if err != nil {
				return nil, keyError(key, "%v", err)
			}
			item, s = s[:end], s[end:]
			if s != "" && s[0] != ',' {
				return nil, keyError(key, "text after the closing quote")
			}
			s = strings.TrimPrefix(s, ",")
		} else {
			item, s, _ = strings.Cut(s, ",")
		}
		if item = strings.TrimSpace(item); item != "" {
			key, val, hasVal := strings.Cut(item, "=")
			if items.has(key) {
				return nil, keyError(key, "given twice")
			}
			items = append(items, tagItem{key, val, hasVal})
		}
	}
	return items, nil
}

// closingQuote returns the index just past the quote that closes the one
// at open, skipping doubled quotes.
func closingQuote(s string, open int) (int, error) {
	for i := open + 1; i < len(s); i++ {
		if s[i] != '\'' {
			continue
		}
		if i+1 < len(s) && s[i+1] == '\'' {
			i++
			continue
		}
		return i + 1, nil
	}
	return 0, fmt.Errorf("unterminated quote")
}

// unquoteDefault undoes the quoting of a default='...' value.
func unquoteDefault(v string) (string, error) {
	if !strings.HasPrefix(v, "'") {
		return v, nil
	}
	if len(v) < 2 || !strings.HasSuffix(v, "'") {
		return "", fmt.Errorf("unterminated quote")
	}
	return strings.ReplaceAll(v[1:len(v)-1], "''", "'"), nil
}

// tagError is a mistake in a struct's kafka tags. It names the type and
// field, the key at fault and the first version the mistake matters in, so
// that the message points at the exact text to fix.
type tagError struct {
	typ     reflect.Type
	field   string // "_" for the struct-level tag
	key     string // empty when no one key is at fault
	version int16  // -1 when the mistake does not depend on the version
	msg     string
}

func (e *tagError) Error() string { return ErrInvalidSpec.Error() + ": " + e.detail() }

func (e *tagError) Unwrap() error { return ErrInvalidSpec }

func (e *tagError) detail() string {
	var where []string
	if e.key != "" {
		where = append(where, strconv.Quote(e.key))
	}
	if e.version >= 0 {
		where = append(where, "at version "+strconv.Itoa(int(e.version)))
	}
	if len(where) == 0 {
		return e.msg
	}
	prefix := "key " + strings.Join(where, " ")
	if e.key == "" {
		prefix = strings.Join(where, " ")
	}
	return prefix + ": " + e.msg
}

// public is the *Error callers see.
func (e *tagError) public() error {
	return &Error{Op: "plan", Type: e.typ.String(), Path: e.field, Offset: -1, Err: ErrInvalidSpec, Detail: e.detail()}
}

func keyError(key, format string, args ...any) *tagError {
	return &tagError{key: key, version: -1, msg: fmt.Sprintf(format, args...)}
}

func parseFieldTag(t *structtag.Tag) (fieldTag, *tagError) {
	ft := fieldTag{versions: NoVersions, nullable: NoVersions, tag: -1, tagged: NoVersions}
	items, terr := splitTag(t)
	if terr != nil {
		return ft, terr
	}
	for _, item := range items {
		key, val, hasVal := item.key, item.val, item.hasVal
		var err error
		switch key {
		case "v":
			ft.versions, err = ParseVersionRange(val)
		case "nullable":
			ft.nullable, err = ParseVersionRange(val)
		case "compact":
			r := AllVersions
			if hasVal {
				r, err = ParseVersionRange(val)
			}
			ft.compact = &r
		case "tag":
			ft.tag, err = strconv.ParseInt(val, 10, 32)
			if err == nil && ft.tag < 0 {
				err = fmt.Errorf("negative tag %d", ft.tag)
			}
		case "tagged":
			ft.tagged, err = ParseVersionRange(val)
		case "default":
			var v string
			if v, err = unquoteDefault(val); err == nil {
				ft.defaultRaw = &v
			}
		case "ignorable", "varint", "uvarint", "records":
			if hasVal {
				err = fmt.Errorf("takes no value")
			}
			switch key {
			case "ignorable":
				ft.ignorable = true
			case "varint":
				ft.varint = true
			case "uvarint":
				ft.uvarint = true
			case "records":
				ft.records = true
			}
		default:
			return ft, keyError(key, "unknown key (field keys: v, nullable, compact, tag, tagged, default, ignorable, varint, uvarint, records)")
		}
		if err != nil {
			return ft, keyError(key, "%v", err)
		}
	}
	switch {
	case !items.has("v"):
		return ft, keyError("v", "missing: a field needs the versions it is on the wire in (v=0+, v=3-5, v=none)")
	case items.has("tag") && !items.has("tagged"):
		return ft, keyError("tag", "without tagged=R: say in which versions the field is tagged")
	case items.has("tagged") && !items.has("tag"):
		return ft, keyError("tagged", "without tag=N: say the tag number")
	case ft.varint && ft.uvarint:
		return ft, keyError("uvarint", "together with varint: choose one")
	}
	return ft, nil
}

func parseMessageTag(t *structtag.Tag) (messageTag, *tagError) {
	mt := messageTag{apiKey: -1, versions: AllVersions, flexible: NoVersions}
	items, terr := splitTag(t)
	if terr != nil {
		return mt, terr
	}
	var headers []tagItem // read once the versions are known
	for _, item := range items {
		key, val := item.key, item.val
		var err error
		switch key {
		case "reqheader", "respheader":
			headers = append(headers, item)
		case "api":
			var k int64
			k, err = strconv.ParseInt(val, 10, 16)
			if err == nil && k < 0 {
				err = fmt.Errorf("negative API key %d", k)
			}
			mt.apiKey = int16(k)
		case "versions":
			mt.versions, err = ParseVersionRange(val)
			if err == nil && mt.versions.Empty() {
				err = fmt.Errorf("a message needs at least one version")
			}
		case "flexible":
			mt.flexible, err = ParseVersionRange(val)
		default:
			return mt, keyError(key, "unknown key (struct keys on the _ field: api, versions, flexible, reqheader, respheader)")
		}
		if err != nil {
			return mt, keyError(key, "%v", err)
		}
	}
	if f, v := mt.flexible, mt.versions; !f.Empty() && (f.Min > v.Max || f.Max < v.Min) {
		return mt, keyError("flexible", "flexible=%s is outside versions=%s (write flexible=none)", f, v)
	}
	if f, v := mt.flexible, mt.versions; !f.Empty() && f.Max < v.Max {
		return mt, keyError("flexible", "flexible=%s ends before versions=%s does (a message stays flexible from its first flexible version on: write flexible=%d+)", f, v, f.Min)
	}
	for _, item := range headers {
		side, stated := requestSide, &mt.reqHeaders
		if item.key == "respheader" {
			side, stated = responseSide, &mt.respHeaders
		}
		var err error
		if *stated, err = parseHeaderVersions(side, item.val, &mt); err != nil {
			return mt, keyError(item.key, "%v", err)
		}
	}
	mt.request, mt.response = mt.headersOf()
	return mt, nil
}
