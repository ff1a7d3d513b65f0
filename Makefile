# Placeholder; replaced by the full Makefile in the foundation commit series.
build:
	CGO_ENABLED=0 go build -o bin/helix ./cmd/helix
