// Package secrettest finds a secret in output in the forms a log could
// carry it: raw, hex (either case, bytes run together or apart, as a hex
// dump's row has them), and standard or URL-safe base64 at each of the
// three alignments it can take inside a longer encoded value.
package secrettest

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Forms are the encodings of secret that Find looks for, by name. Base64
// forms keep only the characters that depend on the secret's bytes
// alone, and are left out for secrets too short to have four of them.
func Forms(secret []byte) map[string][]byte {
	forms := map[string][]byte{
		"raw": secret, "hex": []byte(hex.EncodeToString(secret)),
		"HEX": []byte(strings.ToUpper(hex.EncodeToString(secret))),
	}
	for shift := range 3 {
		padded := append(make([]byte, shift), secret...)
		enc := base64.StdEncoding.EncodeToString(padded)
		start, end := (shift*8+5)/6, len(padded)*8/6
		if end > start+4 {
			s := strconv.Itoa(shift)
			forms["base64+"+s] = []byte(enc[start:end])
			forms["base64url+"+s] = []byte(strings.NewReplacer("+", "-", "/", "_").Replace(enc[start:end]))
		}
	}
	return forms
}

// Find reports the first form of secret found in out.
func Find(out, secret []byte) (form string, found bool) {
	for name, f := range Forms(secret) {
		if bytes.Contains(out, f) {
			return name + " " + string(f), true
		}
	}
	if m := spacedHex(secret).Find(out); m != nil {
		return "spaced hex " + string(m), true
	}
	return "", false
}

// spacedHex matches secret's bytes in hex, either case, with any run of
// spaces, tabs, colons or "0x" prefixes between them ("73 33", "73:33",
// "0x73, 0x33").
func spacedHex(secret []byte) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("(?i)")
	for i, c := range secret {
		if i > 0 {
			b.WriteString(`(?:[\s:,]|0x)*`)
		}
		fmt.Fprintf(&b, "%02x", c)
	}
	return regexp.MustCompile(b.String())
}
