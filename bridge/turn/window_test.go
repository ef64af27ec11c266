package turn

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/steer"
)

// (The grace window's tests, from package steer's Window, which the
// machine took in.)

// replies keeps what the turn answered.
type replies struct {
	Replies
	got chan any
}

func (h replies) Reply(_ *acp.Request, result any, err error) {
	if err != nil {
		h.got <- err
		return
	}
	h.got <- result
}

// logLines is a log handler that hands each message to a channel.
type logLines chan string

func (l logLines) Enabled(context.Context, slog.Level) bool { return true }
func (l logLines) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l logLines) WithGroup(string) slog.Handler            { return l }
func (l logLines) Handle(_ context.Context, r slog.Record) error {
	select {
	case l <- r.Message:
	default:
	}
	return nil
}

// testTurn is a turn with no stream: its machine, timer and waits.
func testTurn(grace time.Duration) (*Turn, replies, logLines) {
	h := replies{got: make(chan any, 8)}
	lines := make(logLines, 8)
	t := &Turn{env: &Env{Grace: grace, Replies: h, Log: slog.New(lines)}, sess: NewSession("s1", "/w", true, false), done: make(chan struct{})}
	t.ctx, t.cancel = context.WithCancel(context.Background())
	t.ctl = newControl(t.ctx, t.env, t.sess, &acp.Request{}, t.givenUp)
	t.ctl.m = newMachine(&acp.Request{}, grace > 0, 0)
	return t, h, lines
}

func text(s string) event {
	return event{kind: evOutput, item: bufferItem(acp.AgentMessageChunk{Content: acp.Text(s)})}
}

func texts(items []steer.Item[acp.Update]) string {
	var out []string
	for _, it := range items {
		out = append(out, it.Update.(acp.AgentMessageChunk).Content.(acp.TextContent).Text)
	}
	return fmt.Sprint(out)
}

// TestWindowAdopt: an attached turn delivers and takes no steer; a cancel
// buffers its output, a steer holds the window, and the adopting prompt
// gets the buffer in order, then delivery again; the window never expired.
func TestWindowAdopt(t *testing.T) {
	m := newMachine(&acp.Request{}, true, 0)
	if !m.apply(text("live")).deliver {
		t.Fatal("an attached turn delivers")
	}
	if m.apply(event{kind: evSteer, steer: &pendingSteer{}}).taken {
		t.Fatal("an attached turn takes no steer")
	}
	if fx := m.apply(event{kind: evCancel}); m.phase != detached || !fx.startTimer {
		t.Fatalf("cancel: %s %+v", m.phase, fx)
	}
	for _, s := range []string{"a", "b", "c"} {
		if m.apply(text(s)).deliver {
			t.Fatal("a detached turn must buffer")
		}
	}
	if fx := m.apply(event{kind: evSteer, steer: &pendingSteer{}}); !fx.taken || !fx.stopTimer {
		t.Fatal("steer")
	}
	m.apply(text("d"))
	if got := texts(m.apply(event{kind: evAdopt, req: &acp.Request{}}).flush); got != "[a b c d]" {
		t.Errorf("flushed %v", got)
	}
	if m.phase != attached || !m.apply(text("e")).deliver || m.givenUp {
		t.Error("an adopted turn delivers")
	}
}

// TestWindowExpires: the grace timer closes the window: the turn is
// given up (its context ends), its output dropped, no steer taken and
// nothing handed over.
func TestWindowExpires(t *testing.T) {
	tr, h, _ := testTurn(50 * time.Millisecond)
	tr.Cancel()
	if r := <-h.got; r.(acp.PromptResult).StopReason != acp.StopCancelled {
		t.Fatalf("the prompt answered %v", r)
	}
	tr.ctl.Emit(acp.AgentMessageChunk{Content: acp.Text("lost")})
	select {
	case <-tr.ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the window did not close")
	}
	tr.ctl.mu.Lock()
	defer tr.ctl.mu.Unlock()
	if tr.ctl.m.phase != orphaned || tr.ctl.m.apply(text("x")).deliver || tr.ctl.m.apply(event{kind: evSteer, steer: &pendingSteer{}}).taken {
		t.Error("an expired window drops output and takes no steer")
	}
	if fx := tr.ctl.m.apply(event{kind: evAdopt, req: &acp.Request{}}); len(fx.flush) != 0 {
		t.Error("nothing to adopt")
	}
}

// TestWindowRelease: a steer holds the window open: it stops the grace
// timer, and a timer that fired anyway (racing the steer) closes nothing;
// a refused steer gives the turn up.
func TestWindowRelease(t *testing.T) {
	tr, _, _ := testTurn(time.Hour)
	tr.Cancel()
	if fx := tr.ctl.apply(event{kind: evSteer, steer: &pendingSteer{}}); !fx.taken {
		t.Fatal("steer")
	}
	tr.ctl.mu.Lock()
	stopped := !tr.ctl.timer.Stop()
	gen := tr.ctl.m.gen
	tr.ctl.mu.Unlock()
	if !stopped {
		t.Error("the grace timer still ran after the steer")
	}
	tr.ctl.apply(event{kind: evExpire, gen: gen}) // what the timer does when it fires
	if tr.ctl.m.phase != adopting || tr.ctx.Err() != nil {
		t.Fatalf("a window holding a steer must not expire: %s", tr.ctl.m.phase)
	}
	tr.ctl.apply(event{kind: evRefuse})
	if tr.ctl.m.phase != orphaned || tr.ctx.Err() == nil {
		t.Errorf("refused: %s", tr.ctl.m.phase)
	}
}

// TestWindowWait: a question asked while the turn is detached waits for a
// prompt to adopt it (and then is asked), or for nobody (the turn's
// context ends).
func TestWindowWait(t *testing.T) {
	tr, _, lines := testTurn(time.Hour)
	tr.Cancel()
	got := make(chan bool, 1)
	go func() { got <- tr.ctl.waitPhase() }()
	for line := range lines {
		if strings.Contains(line, "waits for a prompt to adopt the turn") {
			break
		}
	}
	select {
	case r := <-got:
		t.Fatalf("the wait returned %v while the window was open", r)
	default:
	}
	tr.ctl.apply(event{kind: evSteer, steer: &pendingSteer{}})
	tr.ctl.apply(event{kind: evAdopt, req: &acp.Request{}})
	select {
	case r := <-got:
		if !r {
			t.Error("an adopted turn's question is to be asked")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the wait did not return on adoption")
	}
	other, _, _ := testTurn(time.Hour)
	other.Cancel()
	other.cancel()
	if other.ctl.waitPhase() {
		t.Error("a turn whose context ended waits for nobody")
	}
}

// TestWindowLeft: the channel closes when a cancel detaches the turn, and
// is closed at once for a turn that is not attached; with no grace too.
func TestWindowLeft(t *testing.T) {
	tr, _, _ := testTurn(time.Hour)
	left := tr.ctl.left()
	select {
	case <-left:
		t.Fatal("closed while attached")
	default:
	}
	tr.Cancel()
	<-left
	<-tr.ctl.left()
	o, _, _ := testTurn(0)
	left = o.ctl.left()
	o.Cancel()
	<-left
}

// TestDetachedTextCopied: answer text a detached turn buffers is its own:
// the text a stream gives may be its frame, valid until the next is read
// (a2aclient.Stream.Share), and the buffer is flushed later.
func TestDetachedTextCopied(t *testing.T) {
	tt, _, _ := testTurn(time.Minute)
	tt.ctl.m.apply(event{kind: evCancel})
	frame := []byte("chunk of a frame")
	tt.ctl.emitText("m-1", unsafe.String(&frame[0], len(frame)))
	copy(frame, "the next frame!!") // the stream reads its next frame
	tt.ctl.m.apply(event{kind: evSteer, steer: &pendingSteer{}})
	if got := texts(tt.ctl.m.apply(event{kind: evAdopt, req: &acp.Request{}}).flush); got != "[chunk of a frame]" {
		t.Errorf("flushed %v", got)
	}
}
