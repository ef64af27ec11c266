package acp

// Plan replaces the session's plan: every entry, in order (the client
// shows the latest plan only).
type Plan struct {
	SessionUpdate tagPlan     `json:"sessionUpdate"`
	Entries       []PlanEntry `json:"entries"`
}

// PlanEntry is one task of a plan.
type PlanEntry struct {
	Content  string            `json:"content"`
	Priority PlanEntryPriority `json:"priority"`
	Status   PlanEntryStatus   `json:"status"`
}

// PlanEntryPriority is how much a task matters.
type PlanEntryPriority string

// Plan entry priorities.
const (
	PriorityHigh   PlanEntryPriority = "high"
	PriorityMedium PlanEntryPriority = "medium"
	PriorityLow    PlanEntryPriority = "low"
)

// PlanEntryStatus is where a task stands.
type PlanEntryStatus string

// Plan entry statuses.
const (
	PlanPending    PlanEntryStatus = "pending"
	PlanInProgress PlanEntryStatus = "in_progress"
	PlanCompleted  PlanEntryStatus = "completed"
)

type tagPlan struct{}

func (tagPlan) MarshalJSON() ([]byte, error) { return []byte(`"plan"`), nil }

func (Plan) isUpdate() {}
