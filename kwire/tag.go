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

// tagItems splits a tag into key=value items. structtag puts the first
// item in Name and the rest in Options.
func tagItems(t *structtag.Tag) []string {
	items := make([]string, 0, 1+len(t.Options))
	if t.Name != "" {
		items = append(items, t.Name)
	}
	for _, o := range t.Options {
		if o = strings.TrimSpace(o); o != "" {
			items = append(items, o)
		}
	}
	return items
}

func parseFieldTag(t *structtag.Tag) (fieldTag, error) {
	ft := fieldTag{versions: NoVersions, nullable: NoVersions, tag: -1, tagged: NoVersions}
	sawV := false
	for _, item := range tagItems(t) {
		key, val, hasVal := strings.Cut(item, "=")
		var err error
		switch key {
		case "v":
			ft.versions, err = ParseVersionRange(val)
			sawV = true
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
			v := val
			ft.defaultRaw = &v
		case "ignorable", "varint", "uvarint", "records":
			if hasVal {
				err = fmt.Errorf("%s takes no value", key)
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
			err = fmt.Errorf("unknown key %q", key)
		}
		if err != nil {
			return ft, fmt.Errorf("key %q: %v", key, err)
		}
	}
	if !sawV {
		return ft, fmt.Errorf("key \"v\" is missing")
	}
	if (ft.tag >= 0) != !ft.tagged.Empty() {
		return ft, fmt.Errorf("key \"tag\" and key \"tagged\" go together")
	}
	if ft.varint && ft.uvarint {
		return ft, fmt.Errorf("key \"varint\" and key \"uvarint\" exclude each other")
	}
	return ft, nil
}

func parseMessageTag(t *structtag.Tag) (messageTag, error) {
	mt := messageTag{apiKey: -1, versions: AllVersions, flexible: NoVersions}
	for _, item := range tagItems(t) {
		key, val, _ := strings.Cut(item, "=")
		var err error
		switch key {
		case "api":
			var k int64
			k, err = strconv.ParseInt(val, 10, 16)
			mt.apiKey = int16(k)
		case "versions":
			mt.versions, err = ParseVersionRange(val)
		case "flexible":
			mt.flexible, err = ParseVersionRange(val)
		default:
			err = fmt.Errorf("unknown key %q", key)
		}
		if err != nil {
			return mt, fmt.Errorf("key %q: %v", key, err)
		}
	}
	return mt, nil
}
