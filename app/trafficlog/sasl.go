package trafficlog

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
)

// SASLPrincipal returns the user a SASL client message names, or "" when
// it names none: the authentication identity of PLAIN
// (authzid NUL authcid NUL password), the n= user of a SCRAM-SHA-256 or
// SCRAM-SHA-512 client-first message, and for OAUTHBEARER the a=
// authorization identity or else the token's unverified "sub" claim.
// It reads the name only; the secret next to it is never returned.
// GSSAPI tokens name no one this way.
func SASLPrincipal(mechanism string, auth []byte) string {
	switch strings.ToUpper(mechanism) {
	case "PLAIN":
		parts := bytes.SplitN(auth, []byte{0}, 3)
		if len(parts) != 3 {
			return ""
		}
		return printable(string(parts[1]))
	case "SCRAM-SHA-256", "SCRAM-SHA-512":
		_, rest, ok := gs2Header(string(auth))
		if !ok {
			return ""
		}
		for _, attr := range strings.Split(rest, ",") {
			if name, ok := strings.CutPrefix(attr, "n="); ok {
				return printable(strings.NewReplacer("=2C", ",", "=3D", "=").Replace(name))
			}
		}
	case "OAUTHBEARER":
		authzid, rest, ok := gs2Header(string(auth))
		if !ok {
			return ""
		}
		if authzid != "" {
			return printable(authzid)
		}
		for _, kv := range strings.Split(rest, "\x01") {
			if tok, ok := strings.CutPrefix(kv, "auth=Bearer "); ok {
				return printable(jwtSubject(tok))
			}
		}
	}
	return ""
}

// gs2Header splits a SCRAM or OAUTHBEARER client-first message after its
// GS2 header ("n,," or "n,a=authzid,"), returning the authzid.
func gs2Header(s string) (authzid, rest string, ok bool) {
	flag, s, ok := strings.Cut(s, ",")
	if !ok || flag == "" || (flag[0] != 'n' && flag[0] != 'y' && flag[0] != 'p') {
		return "", "", false
	}
	a, rest, ok := strings.Cut(s, ",")
	if !ok {
		return "", "", false
	}
	if id, found := strings.CutPrefix(a, "a="); found {
		authzid = strings.NewReplacer("=2C", ",", "=3D", "=").Replace(id)
	}
	return authzid, rest, true
}

// jwtSubject is the "sub" claim of a JWT, read without checking the
// signature (the broker checks it; the log only names who claimed).
func jwtSubject(tok string) string {
	parts := strings.Split(tok, ".")
	if len(parts) < 2 {
		return ""
	}
	payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return ""
	}
	var claims struct {
		Sub string `json:"sub"`
	}
	if json.Unmarshal(payload, &claims) != nil {
		return ""
	}
	return claims.Sub
}

// printable keeps a name fit for a log line: at most 256 bytes, control
// characters dropped.
func printable(s string) string {
	if len(s) > 256 {
		s = s[:256]
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
}
