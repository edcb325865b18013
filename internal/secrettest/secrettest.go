// Package secrettest finds a secret in output in the forms a log could
// carry it: raw, hex (either case), and standard or URL-safe base64 at
// each of the three alignments it can take inside a longer encoded
// value.
package secrettest

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
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
	return "", false
}
