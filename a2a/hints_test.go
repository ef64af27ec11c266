package a2a

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestErrorsSayWhatToDo: the errors a user meets name the fix.
func TestErrorsSayWhatToDo(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	c, err := New(Config{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Discover(context.Background())
	var herr *HTTPError
	if err == nil || !errors.As(err, &herr) || herr.StatusCode != 404 || !strings.Contains(err.Error(), "--endpoint") {
		t.Errorf("a missing card: %v", err)
	}
	srv.Close()
	c2, _ := New(Config{URL: srv.URL, RetryWait: 1})
	_, err = c2.Discover(context.Background())
	var ue *UnreachableError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--url") {
		t.Errorf("an unreachable agent: %v", err)
	}
	if _, err := New(Config{}); err == nil || !strings.Contains(err.Error(), "shim login") {
		t.Errorf("no URL: %v", err)
	}
}
