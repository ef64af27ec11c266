package agentcard

import "testing"

// TestWarmCardDecodesWhole: the card Warm decodes is read to its end by
// Parse and ParseSecurity (an error or a member left out would warm less
// than a real card needs).
func TestWarmCardDecodesWhole(t *testing.T) {
	card, err := Parse(warmCard, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if card.Endpoint == "" || len(card.Skills) != 1 || len(card.Extensions) != 1 || !card.Streaming {
		t.Errorf("warm card read as %+v", card)
	}
	sec := ParseSecurity(warmCard)
	if sec == nil || sec.Scheme == nil || sec.Unmet != "" {
		t.Errorf("warm card's security read as %+v", sec)
	}
	Warm()
}
