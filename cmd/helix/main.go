package main

import (
	"os"

	"github.com/helixhq/helix/internal/cli"
)

func main() { os.Exit(int(cli.Main())) }
