package steer

import "strconv"

// Kind tells how a buffered update may be dropped when the buffer is full.
type Kind uint8

// The kinds of buffered updates.
const (
	// Text is answer text.
	Text Kind = iota
	// Thought is reasoning.
	Thought
	// Other updates (tool cards, usage) are small and never dropped for
	// room, only past a count.
	Other
)

// Item is one buffered update.
type Item[U any] struct {
	Update U
	Kind   Kind
	Size   int
}

// Buffer is the bounded output of a detached turn. It keeps what the
// adopting prompt needs: the start of what the person has not seen (it
// continues what they saw) and the latest output (where the agent is
// now). When the two do not fit, the middle is dropped and Take puts a
// note saying how much where it was.
type Buffer[U any] struct {
	// Max bounds the bytes kept (0: 1 MiB); half for each end.
	Max int
	// Note makes the update that says what was dropped (see DroppedNote).
	Note func(bytes, thoughts int) U

	head     []Item[U]
	headSize int
	tail     []Item[U] // a window of the latest items once the head is full
	tailSize int
	tailMode bool
	others   int

	// DroppedBytes and DroppedThoughts count what was dropped.
	DroppedBytes    int
	DroppedThoughts int
}

const maxOther = 10000

func (b *Buffer[U]) half() int {
	if b.Max <= 0 {
		return 1 << 19
	}
	return b.Max / 2
}

// Add buffers an update, dropping the oldest text of the tail when full.
func (b *Buffer[U]) Add(it Item[U]) {
	if it.Kind == Other {
		if b.others >= maxOther {
			b.drop(it)
			return
		}
		b.others++
	}
	if !b.tailMode {
		if b.headSize+it.Size <= b.half() || it.Kind == Other {
			b.head = append(b.head, it)
			b.headSize += it.Size
			return
		}
		b.tailMode = true
	}
	b.tail = append(b.tail, it)
	b.tailSize += it.Size
	for i := 0; b.tailSize > b.half() && i < len(b.tail); {
		if b.tail[i].Kind == Other {
			i++
			continue
		}
		b.drop(b.tail[i])
		b.tailSize -= b.tail[i].Size
		b.tail = append(b.tail[:i], b.tail[i+1:]...)
	}
}

func (b *Buffer[U]) drop(it Item[U]) {
	if it.Kind == Thought {
		b.DroppedThoughts++
		return
	}
	b.DroppedBytes += it.Size
}

// Dropped reports whether anything was dropped.
func (b *Buffer[U]) Dropped() bool { return b.DroppedBytes > 0 || b.DroppedThoughts > 0 }

// Take returns the buffered items in order and empties the buffer. Where
// something was dropped there is a Text item, made by Note, saying what.
func (b *Buffer[U]) Take() []Item[U] {
	items := append([]Item[U](nil), b.head...)
	if b.Dropped() {
		items = append(items, Item[U]{Kind: Text, Update: b.Note(b.DroppedBytes, b.DroppedThoughts)})
	}
	items = append(items, b.tail...)
	b.Reset()
	return items
}

// Reset empties the buffer.
func (b *Buffer[U]) Reset() {
	*b = Buffer[U]{Max: b.Max, Note: b.Note}
}

// Len returns the number of buffered items.
func (b *Buffer[U]) Len() int { return len(b.head) + len(b.tail) }

// Size returns the buffered bytes.
func (b *Buffer[U]) Size() int { return b.headSize + b.tailSize }

// DroppedNote says what a full buffer dropped, in the person's words
// (SPEC §18): what came while their new message was on its way (Send
// Now), and that it is not shown.
func DroppedNote(bytes, thoughts int) string {
	s := "\n\n[While your new message was on its way, "
	switch {
	case bytes > 0 && thoughts > 0:
		s += strconv.Itoa(bytes) + " bytes of the answer and " + strconv.Itoa(thoughts) + " thoughts"
	case bytes > 0:
		s += strconv.Itoa(bytes) + " bytes of the answer"
	default:
		s += strconv.Itoa(thoughts) + " thoughts"
	}
	return s + " came, more than shim keeps: they are not shown here.]\n\n"
}
