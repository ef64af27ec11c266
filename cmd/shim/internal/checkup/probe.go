package checkup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/internal/randid"
)

// ProbeMax bounds the whole probe: the message, the cancel and the end of
// its task.
const ProbeMax = time.Minute

// departureChecks name the doctor row of each departure the client reads
// (SPEC §16).
var departureChecks = map[a2a.Departure]string{
	a2a.DepartureFailureUnknownTask: "failure task id",
	a2a.DepartureOldCardPath:        "old card path",
	a2a.DepartureStreamingNotServed: "streaming claimed",
	a2a.DepartureRecordSeparator:    "record separator",
}

// Probe fills in `shim doctor --probe`'s rows (SPEC §16): one short message
// ("ping") sent through the same client a session uses (the credential
// goes nowhere a session's would not), a cancel of its task while the task
// still runs, then whether streaming works, the time to the first event,
// how the cancel was met and each departure from the spec the client saw,
// as warn rows. Only a message that cannot be sent FAILs.
func Probe(ctx context.Context, t *Table, client *a2aclient.Client, card *a2a.Card) {
	ctx, cancel := context.WithTimeout(ctx, ProbeMax)
	defer cancel()
	defer Departures(t, client)
	start := time.Now()
	s, err := client.Stream(ctx, a2a.OutMessage{ContextID: "shim-doctor-" + randid.Hex(8), Parts: []a2a.Part{{Kind: a2a.PartText, Text: "ping"}}})
	if err != nil {
		t.Row("probe message", Fail, fmt.Sprintf("sending \"ping\": %v", err))
		return
	}
	defer s.Close()
	p := probe{client: client}
	for {
		ev, err := s.Next()
		if err != nil {
			p.ended(err)
			break
		}
		if p.first == 0 {
			p.first = time.Since(start)
		}
		if p.saw(ctx, &ev) {
			break
		}
	}
	p.rows(t, card, client)
}

// probe is what the probe's stream showed.
type probe struct {
	client *a2aclient.Client
	first  time.Duration
	task   string
	state  a2a.State
	// message: the answer came as a message, without a task.
	message bool
	// cancel: a cancel was sent; cancelErr its refusal; endedFirst: the
	// task was over when it was refused (GetTask says so).
	cancel     bool
	cancelErr  error
	endedFirst bool
	// err is how the stream ended when it broke (nil at its end).
	err error
	// text is the failure's message.
	text string
}

// saw takes one event in; true when the task is over.
func (p *probe) saw(ctx context.Context, ev *a2a.Event) bool {
	switch ev.Kind {
	case a2a.EventMessage:
		if p.task == "" {
			p.message = true
			return true
		}
		return false
	case a2a.EventStatus, a2a.EventTask:
		p.state = ev.Status.State
		if ev.Status.Message != nil {
			p.text = ev.Status.Message.Text()
		}
	}
	if p.task == "" {
		p.task = ev.TaskID
	}
	if p.state.Terminal() || p.state == a2a.StateInputRequired || p.state == a2a.StateAuthRequired {
		return true
	}
	if p.task != "" && !p.cancel {
		p.cancel = true
		if err := p.client.CancelTask(ctx, p.task); err != nil {
			p.cancelErr = err
			task, gerr := p.client.GetTask(ctx, p.task, 0)
			p.endedFirst = gerr == nil && task.Status.State.Terminal()
		}
	}
	return false
}

// ended takes the stream's end in.
func (p *probe) ended(err error) {
	if !errors.Is(err, io.EOF) {
		p.err = err
	}
}

// rows are the probe's rows.
func (p *probe) rows(t *Table, card *a2a.Card, client *a2aclient.Client) {
	switch {
	case p.err != nil && p.first == 0:
		t.Row("probe message", Fail, fmt.Sprintf("\"ping\" got no answer: %v", p.err))
		return
	case p.first == 0:
		t.Row("probe message", Warn, "\"ping\" was accepted, but nothing came back")
		return
	}
	t.Row("first event", OK, fmt.Sprintf("%d ms after \"ping\" was sent", p.first.Milliseconds()))
	streams := card.Streaming
	for _, d := range client.Departures() {
		streams = streams && d != a2a.DepartureStreamingNotServed
	}
	switch {
	case streams:
		t.Row("streaming", OK, "works")
	case card.Streaming:
		t.Row("streaming", Warn, "the card says it streams, but it does not: each task is polled")
	default:
		t.Row("streaming", OK, "the card says no streaming: each task is polled")
	}
	switch {
	case p.message:
		t.Row("probe cancel", Skip, "the agent answered with a message, not a task: nothing to cancel")
	case !p.cancel:
		t.Row("probe cancel", Skip, fmt.Sprintf("the task ended (%s) before a cancel could be sent", p.state))
	case p.cancelErr != nil && !p.endedFirst:
		t.Row("probe cancel", Warn, fmt.Sprintf("refused while the task still ran (%v): a cancelled turn may go on finishing at the agent", p.cancelErr))
	case p.cancelErr != nil:
		t.Row("probe cancel", OK, fmt.Sprintf("refused (%v), the task having ended first", p.cancelErr))
	case p.state == a2a.StateCanceled:
		t.Row("probe cancel", OK, "the running task was canceled")
	default:
		t.Row("probe cancel", Warn, fmt.Sprintf("accepted, but the task ended %s", stateOrNone(p.state)))
	}
	if p.err != nil {
		t.Row("probe end", Warn, fmt.Sprintf("the stream ended with an error: %v", p.err))
	}
}

// stateOrNone names a state, or says there was none.
func stateOrNone(s a2a.State) string {
	if s == "" {
		return "without a state"
	}
	return string(s)
}

// DepartureCheck names the doctor row of departure d ("" for one the
// client does not read).
func DepartureCheck(d a2a.Departure) string { return departureChecks[d] }

// Departures are the departures the client saw, a warn row each.
func Departures(t *Table, client *a2aclient.Client) {
	for _, d := range client.Departures() {
		t.Row(DepartureCheck(d), Warn, "the agent "+string(d)+"; shim reads it anyway")
	}
}
