// Command openapi-ops is a skill: it reads an OpenAPI (or Swagger 2.0)
// document on stdin and writes its operations, sorted, on stdout.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
)

type operation struct {
	Method      string `json:"method"`
	Path        string `json:"path"`
	OperationID string `json:"operation_id,omitempty"`
}

func main() {
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.NewDecoder(os.Stdin).Decode(&doc); err != nil {
		fmt.Fprintln(os.Stderr, "decode input:", err)
		os.Exit(1)
	}
	ops := []operation{}
	for path, item := range doc.Paths {
		for method, raw := range item {
			switch method {
			case "get", "put", "post", "delete", "options", "head", "patch", "trace":
			default:
				continue
			}
			var op struct {
				OperationID string `json:"operationId"`
			}
			_ = json.Unmarshal(raw, &op)
			ops = append(ops, operation{Method: strings.ToUpper(method), Path: path, OperationID: op.OperationID})
		}
	}
	sort.Slice(ops, func(i, j int) bool {
		if ops[i].Path != ops[j].Path {
			return ops[i].Path < ops[j].Path
		}
		return ops[i].Method < ops[j].Method
	})
	fmt.Fprintf(os.Stderr, "%d operations\n", len(ops))
	_ = json.NewEncoder(os.Stdout).Encode(map[string]any{"count": len(ops), "operations": ops})
}
