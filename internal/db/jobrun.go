package db

// job_runs statuses. Every job records its run through package jobrun.
const (
	RunRunning     = "running"
	RunOK          = "ok"
	RunFailed      = "failed"
	RunPartial     = "partial"
	RunInterrupted = "interrupted"
	RunSkipped     = "skipped"
)
