package gen

import (
	"strings"
	"unicode"
)

// initialisms maps schema words to their Go spelling.
var initialisms = map[string]string{
	"Id": "ID", "Ids": "IDs",
	"Uuid": "UUID", "Uuids": "UUIDs",
	"Url": "URL", "Urls": "URLs",
}

// splitWords splits a camel-case name into words: "TopicIds" gives
// Topic, Ids; "KRaftVersion" gives K, Raft, Version; digits stay with the
// word before them.
func splitWords(s string) []string {
	var words []string
	rs := []rune(s)
	start := 0
	for i := 1; i < len(rs); i++ {
		prev, cur := rs[i-1], rs[i]
		next := rune(0)
		if i+1 < len(rs) {
			next = rs[i+1]
		}
		switch {
		case cur == '_' || cur == '-':
			if i > start {
				words = append(words, string(rs[start:i]))
			}
			start = i + 1
		case prev == '_' || prev == '-':
		case unicode.IsUpper(cur) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
			words = append(words, string(rs[start:i]))
			start = i
		case unicode.IsUpper(cur) && unicode.IsUpper(prev) && unicode.IsLower(next):
			words = append(words, string(rs[start:i]))
			start = i
		}
	}
	if start < len(rs) {
		words = append(words, string(rs[start:]))
	}
	return words
}

// GoName turns a schema name into a Go name: ClientId gives ClientID,
// TopicIds TopicIDs, ThrottleTimeMs stays.
func GoName(s string) string {
	var b strings.Builder
	for _, w := range splitWords(s) {
		if r, ok := initialisms[w]; ok {
			w = r
		}
		rs := []rune(w)
		rs[0] = unicode.ToUpper(rs[0])
		b.WriteString(string(rs))
	}
	return b.String()
}

// fileBase turns a name into a Go file name stem: ConsumerGroupHeartbeat
// gives consumer_group_heartbeat, KRaftVersionRecord kraft_version_record.
func fileBase(s string) string {
	words := splitWords(s)
	var out []string
	for i := 0; i < len(words); i++ {
		w := strings.ToLower(words[i])
		// A lone capital joins the next word (KRaft, not k_raft).
		if len([]rune(words[i])) == 1 && i+1 < len(words) {
			w += strings.ToLower(words[i+1])
			i++
		}
		out = append(out, w)
	}
	name := strings.Join(out, "_")
	// Keep the go tool from reading the name as a build constraint.
	last := out[len(out)-1]
	if last == "test" || knownOS[last] || knownArch[last] {
		name += "_msg"
	}
	return name
}

var knownOS = map[string]bool{
	"aix": true, "android": true, "darwin": true, "dragonfly": true, "freebsd": true,
	"hurd": true, "illumos": true, "ios": true, "js": true, "linux": true, "nacl": true,
	"netbsd": true, "openbsd": true, "plan9": true, "solaris": true, "wasip1": true,
	"windows": true, "zos": true,
}

var knownArch = map[string]bool{
	"386": true, "amd64": true, "arm": true, "arm64": true, "loong64": true, "mips": true,
	"mipsle": true, "mips64": true, "mips64le": true, "ppc64": true, "ppc64le": true,
	"riscv64": true, "s390x": true, "sparc64": true, "wasm": true,
}
