// Package shared is what several command groups need: settings turned into
// clients, the open-error rule, the job-line check. Commands never import each other.
package shared
