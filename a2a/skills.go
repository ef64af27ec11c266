package a2a

import "encoding/json"

// Skill is one of the card's skills (1.0 and 0.3 spell them alike).
type Skill struct {
	ID          string
	Name        string
	Description string
	Examples    []string
}

type wireSkill struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Examples    []string `json:"examples"`
}

// cardSkills reads a card's skills in its order; a skill with neither id
// nor name is left out, and a card whose skills do not decode has none.
func cardSkills(body []byte) []Skill {
	var w struct {
		Skills []wireSkill `json:"skills"`
	}
	if json.Unmarshal(body, &w) != nil {
		return nil
	}
	var out []Skill
	for _, s := range w.Skills {
		if s.ID == "" && s.Name == "" {
			continue
		}
		out = append(out, Skill{ID: s.ID, Name: s.Name, Description: s.Description, Examples: s.Examples})
	}
	return out
}
