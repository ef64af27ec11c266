package auth

import (
	"errors"
	"strings"
	"testing"
)

// TestCheckPage: what passes as a page to open (SPEC §15) and the rule
// each refusal names; the refusal never quotes the page.
func TestCheckPage(t *testing.T) {
	long := "https://verify.example/"
	long += strings.Repeat("a", MaxPageBytes-len(long))
	for _, tt := range []struct{ page, rule string }{
		{"https://verify.example/device", ""},
		{"HTTPS://Verify.Example:8443/device?x=1#top", ""},
		{"http://127.0.0.1:8080/device", ""},
		{"http://127.9.8.7/device", ""},
		{"http://[::1]:8080/device", ""},
		{"http://localhost/device", ""},
		{long, ""},
		{long + "a", "it is longer than 2,048 bytes"},
		{"", "it is empty"},
		{"javascript:alert(1)", "it is not https (nor http to this machine)"},
		{"file:///etc/passwd", "it is not https (nor http to this machine)"},
		{"data:text/html,<script>alert(1)</script>", "it is not https (nor http to this machine)"},
		{"ms-msdt:/id%20PCWDiagnostic", "it is not https (nor http to this machine)"},
		{"http://phish.example/device", "it is not https (nor http to this machine)"},
		{"http://127.0.0.1.phish.example/device", "it is not https (nor http to this machine)"},
		{"http://10.0.0.1/device", "it is not https (nor http to this machine)"},
		{"https:verify.example/device", "it is not a web address with a host"},
		{"https:///device", "it is not a web address with a host"},
		{"https://%zz/", "it is not a web address"},
		{"https://user@verify.example/", "it carries a user name or password before its host"},
		{"https://user:pass@verify.example/", "it carries a user name or password before its host"},
		{"https://@verify.example/", "it carries a user name or password before its host"},
		{"http://localhost@phish.example/", "it carries a user name or password before its host"},
		{"https://verify.example/a b", "it holds a control or whitespace character"},
		{"https://verify.example/\ta", "it holds a control or whitespace character"},
		{"https://verify.example/\r\nSet-Cookie: x", "it holds a control or whitespace character"},
		{"https://verify.example/\x1b]52;c;cm0=\x07", "it holds a control or whitespace character"},
		{"https://verify.example/\x7f", "it holds a control or whitespace character"},
		{"https://verify.example/\u009b31m", "it holds a control or whitespace character"},
		{"https://verify.example/\u00a0", "it holds a control or whitespace character"},
		{"https://verify.example/\u202egnp.exe", "it holds a control or whitespace character"},
		{"https://verify.example/\u200b", "it holds a control or whitespace character"},
		{"https://verify.example/\xff", "it is not UTF-8 text"},
	} {
		err := CheckPage("the page", tt.page)
		if tt.rule == "" {
			if err != nil {
				t.Errorf("%q: %v", tt.page, err)
			}
			continue
		}
		var pe *PageError
		if !errors.As(err, &pe) || pe.Rule != tt.rule || pe.What != "the page" {
			t.Errorf("%q: got %v, want the rule %q", tt.page, err, tt.rule)
			continue
		}
		if msg := err.Error(); !strings.HasPrefix(msg, "the page was refused: "+tt.rule) || (len(tt.page) > 12 && strings.Contains(msg, tt.page)) {
			t.Errorf("%q: message %q", tt.page, msg)
		}
	}
}

// TestCheckUserCode: a code shown is 1 to 64 printable ASCII characters.
func TestCheckUserCode(t *testing.T) {
	for _, tt := range []struct{ code, rule string }{
		{"WDJB-MQHT", ""},
		{"123 456", ""},
		{strings.Repeat("~", MaxUserCode), ""},
		{strings.Repeat("A", MaxUserCode+1), "it is longer than 64 characters"},
		{"", "it is empty"},
		{"WDJB\x1b[2JMQHT", "it holds a character other than printable ASCII"},
		{"WDJB\nMQHT", "it holds a character other than printable ASCII"},
		{"WDJB\u202eMQHT", "it holds a character other than printable ASCII"},
		{"WDJBé", "it holds a character other than printable ASCII"},
		{"WDJB\x7f", "it holds a character other than printable ASCII"},
	} {
		err := CheckUserCode(tt.code)
		var pe *PageError
		switch {
		case tt.rule == "" && err != nil:
			t.Errorf("%q: %v", tt.code, err)
		case tt.rule != "" && (!errors.As(err, &pe) || pe.Rule != tt.rule):
			t.Errorf("%q: got %v, want the rule %q", tt.code, err, tt.rule)
		}
	}
}

// TestDevicePage: the complete page is kept only when it passes and has
// the page's origin (scheme, host and port, the default port and the
// host's case aside); a page or code that fails ends the flow.
func TestDevicePage(t *testing.T) {
	const page, code = "https://verify.example/device", "WDJB-MQHT"
	for _, tt := range []struct {
		complete string
		kept     bool
	}{
		{"https://verify.example/device?user_code=WDJB-MQHT", true},
		{"https://VERIFY.example:443/d?c=1", true},
		{"", false},
		{"https://phish.example/device?user_code=WDJB-MQHT", false},
		{"https://verify.example:8443/device", false},
		{"http://verify.example/device", false},
		{"https://verify.example.phish.example/device", false},
		{"https://verify.example/device?c=\x1b]52;c;cm0=\x07", false},
		{"https://verify.example@verify.example/device", false},
	} {
		got, err := devicePage(page, tt.complete, code)
		want := DevicePage{URI: page, Code: code}
		if tt.kept {
			want.Complete = tt.complete
		}
		if err != nil || got != want {
			t.Errorf("complete %q: got %+v %v, want %+v", tt.complete, got, err, want)
		}
	}
	if _, err := devicePage("javascript:alert(1)", "https://verify.example/device", code); err == nil {
		t.Error("a refused page with a good complete page passed")
	}
	if _, err := devicePage(page, page+"?user_code=x", "WDJB\nMQHT"); err == nil {
		t.Error("a refused code passed")
	}
}
