package platformtest

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Proxy is an HTTP proxy on loopback that carries nothing anywhere: it
// records every request a client asks it to carry, so a test can see
// what a process would have sent to a host off this machine (no test
// reaches the network). A CONNECT is recorded with its host, then the
// proxy answers TLS itself for that host with a certificate of its own
// test CA (CAFile, which the process under test is made to trust), and
// records each request inside the tunnel with its headers: the credential
// it carried, had it been sent. Every request is answered 502.
//
// A process reaches it through HTTPS_PROXY and HTTP_PROXY (Env); Go's
// proxy rule never sends a request to a loopback host through it, so the
// loopback stand-ins and token servers are reached directly.
type Proxy struct {
	// URL is the proxy's address (http://127.0.0.1:port).
	URL string
	// CAFile is the PEM of the CA its certificates are issued by.
	CAFile string
	ca     *x509.Certificate
	caKey  *ecdsa.PrivateKey
	leafMu sync.Mutex
	leaves map[string]*tls.Certificate
	recorder
}

// StartProxy starts a proxy, closed when the test ends.
func StartProxy(t testing.TB) *Proxy {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "platformtest proxy CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{ca: ca, caKey: key, leaves: map[string]*tls.Certificate{}}
	p.CAFile = filepath.Join(t.TempDir(), "proxy-ca.pem")
	if err := os.WriteFile(p.CAFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	p.URL = srv.URL
	return p
}

// Env are the variables that send a process's requests to hosts off this
// machine through the proxy.
func (p *Proxy) Env() []string {
	return []string{"HTTPS_PROXY=" + p.URL, "HTTP_PROXY=" + p.URL, "https_proxy=" + p.URL, "http_proxy=" + p.URL,
		"NO_PROXY=", "no_proxy="}
}

// ServeHTTP records a plain-http request (absolute form) or a CONNECT and
// the requests in its tunnel.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodConnect {
		x := begin(w, r)
		x.seen.Path = r.URL.String() // the absolute URL it was asked for
		x.refuse("the proxy carries nothing", func(w http.ResponseWriter) { w.WriteHeader(http.StatusBadGateway) })
		x.end(&p.recorder)
		return
	}
	p.add(Seen{Method: http.MethodConnect, Path: r.Host, Header: r.Header.Clone(), Status: http.StatusOK})
	hj, ok := w.(http.Hijacker)
	if !ok {
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	conn, rw, err := hj.Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	if _, err := rw.WriteString("HTTP/1.1 200 Connection established\r\n\r\n"); err != nil || rw.Flush() != nil {
		return
	}
	host, _, err := net.SplitHostPort(r.Host)
	if err != nil {
		host = r.Host
	}
	tc := tls.Server(conn, &tls.Config{NextProtos: []string{"http/1.1"},
		GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return p.leaf(host) }})
	if err := tc.Handshake(); err != nil {
		return
	}
	// One request, answered 502 and the tunnel closed.
	req, err := http.ReadRequest(bufio.NewReader(tc))
	if err != nil {
		return
	}
	req.URL.Scheme, req.URL.Host = "https", r.Host
	x := begin(&responseBuffer{header: http.Header{}}, req)
	x.seen.Path = req.URL.String()
	x.refuse("the proxy carries nothing", func(w http.ResponseWriter) { w.WriteHeader(http.StatusBadGateway) })
	x.end(&p.recorder)
	resp := &http.Response{StatusCode: http.StatusBadGateway, ProtoMajor: 1, ProtoMinor: 1, Header: http.Header{}, Close: true}
	_ = resp.Write(tc)
}

// leaf is the proxy's certificate for host, issued by its CA.
func (p *Proxy) leaf(host string) (*tls.Certificate, error) {
	p.leafMu.Lock()
	defer p.leafMu.Unlock()
	if c, ok := p.leaves[host]; ok {
		return c, nil
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{SerialNumber: serial, Subject: pkix.Name{CommonName: host},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	if ip := net.ParseIP(host); ip != nil {
		tmpl.IPAddresses = []net.IP{ip}
	} else {
		tmpl.DNSNames = []string{host}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.ca, &key.PublicKey, p.caKey)
	if err != nil {
		return nil, err
	}
	c := &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
	p.leaves[host] = c
	return c, nil
}

// Hosts are the hosts the proxy was asked to reach, in order (a
// CONNECT's host:port, a plain request's host).
func (p *Proxy) Hosts() []string {
	var out []string
	for _, s := range p.Requests() {
		if s.Method == http.MethodConnect {
			out = append(out, s.Path)
		} else if i := strings.Index(s.Path, "://"); i >= 0 {
			h, _, _ := strings.Cut(s.Path[i+3:], "/")
			out = append(out, h)
		}
	}
	return out
}

// responseBuffer is the ResponseWriter a request inside a tunnel is
// recorded with (its answer is written to the tunnel by hand).
type responseBuffer struct {
	header http.Header
	status int
}

func (b *responseBuffer) Header() http.Header         { return b.header }
func (b *responseBuffer) Write(p []byte) (int, error) { return len(p), nil }
func (b *responseBuffer) WriteHeader(code int)        { b.status = code }
