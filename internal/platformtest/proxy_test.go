package platformtest

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"net/url"
	"os"
	"slices"
	"testing"
)

// TestProxyRecords: a client that trusts the proxy's CA and is sent
// through it reaches no host: an https request is recorded as the CONNECT
// to its host and the request inside with its headers (the credential it
// carried), a plain http one with its absolute URL; both are answered 502.
func TestProxyRecords(t *testing.T) {
	p := StartProxy(t)
	pem, err := os.ReadFile(p.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pem) {
		t.Fatal("the CA file holds no certificate")
	}
	proxyURL, _ := url.Parse(p.URL)
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxyURL), TLSClientConfig: &tls.Config{RootCAs: roots}}}
	for _, target := range []string{"https://evil.test/card?x=1", "http://plain.test/card"} {
		req, _ := http.NewRequest(http.MethodGet, target, nil)
		req.Header.Set("Authorization", "Bearer secret-"+target)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", target, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadGateway {
			t.Errorf("%s: HTTP %d", target, resp.StatusCode)
		}
	}
	seen := p.Requests()
	if len(seen) != 3 || seen[0].Method != http.MethodConnect || seen[0].Path != "evil.test:443" ||
		seen[1].Path != "https://evil.test:443/card?x=1" || seen[1].Header.Get("Authorization") != "Bearer secret-https://evil.test/card?x=1" ||
		seen[2].Path != "http://plain.test/card" || seen[2].Header.Get("Authorization") != "Bearer secret-http://plain.test/card" {
		t.Errorf("recorded %+v", seen)
	}
	if hosts := p.Hosts(); !slices.Equal(hosts, []string{"evil.test:443", "evil.test:443", "plain.test"}) {
		t.Errorf("hosts %v", hosts)
	}
}
