// Package shared holds what more than one command group needs: settings
// turned into clients (embeddings, LLM, speech-to-text, sync strategies, the
// skill sandbox), the open-error rule and the check of a scheduled job line.
// Commands import it, never each other.
package shared
