package kwire

import (
	"encoding/json"
	"testing"
)

func TestUUIDText(t *testing.T) {
	u := UUID{0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef}
	const canonical = "12345678-9abc-def0-0123-456789abcdef"
	text, err := u.MarshalText()
	if err != nil || string(text) != canonical {
		t.Fatalf("MarshalText = %q, %v; want %q", text, err, canonical)
	}
	j, _ := json.Marshal(struct{ ID UUID }{u})
	if string(j) != `{"ID":"`+canonical+`"}` {
		t.Fatalf("json = %s", j)
	}
	var back struct{ ID UUID }
	if err := json.Unmarshal(j, &back); err != nil || back.ID != u {
		t.Fatalf("json round trip: %v, %v", back.ID, err)
	}
	// Kafka's tools print URL-safe base64; both forms parse to the same id.
	if u.Base64() != "EjRWeJq83vABI0VniavN7w" {
		t.Fatalf("Base64 = %q", u.Base64())
	}
	for _, s := range []string{canonical, "12345678-9ABC-DEF0-0123-456789ABCDEF", u.Base64()} {
		var p UUID
		if err := p.UnmarshalText([]byte(s)); err != nil || p != u {
			t.Errorf("UnmarshalText(%q) = %v, %v", s, p, err)
		}
	}
	for _, bad := range []string{"", "12345678-9abc-def0-0123-456789abcdeX", "12345678x9abc-def0-0123-456789abcdef",
		"123456789abcdef0123456789abcdef0", "EjRWeJq83vABI0VniavN7x", "EjRWeJq83vABI0VniavN7w=="} {
		if _, err := ParseUUID(bad); err == nil {
			t.Errorf("ParseUUID(%q) accepted", bad)
		}
	}
}
