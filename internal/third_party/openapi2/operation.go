package openapi2

import (
	"encoding/json"
	"maps"

	"github.com/helixhq/helix/internal/third_party/openapi3"
)

type Operation struct {
	Extensions map[string]any `json:"-" yaml:"-"`

	Summary      string                 `json:"summary,omitempty,case:strict" yaml:"summary,omitempty"`
	Description  string                 `json:"description,omitempty,case:strict" yaml:"description,omitempty"`
	Deprecated   bool                   `json:"deprecated,omitempty,case:strict" yaml:"deprecated,omitempty"`
	ExternalDocs *openapi3.ExternalDocs `json:"externalDocs,omitempty,case:strict" yaml:"externalDocs,omitempty"`
	Tags         []string               `json:"tags,omitempty,case:strict" yaml:"tags,omitempty"`
	OperationID  string                 `json:"operationId,omitempty,case:strict" yaml:"operationId,omitempty"`
	Parameters   Parameters             `json:"parameters,omitempty,case:strict" yaml:"parameters,omitempty"`
	Responses    *Responses             `json:"responses,case:strict" yaml:"responses"`
	Consumes     []string               `json:"consumes,omitempty,case:strict" yaml:"consumes,omitempty"`
	Produces     []string               `json:"produces,omitempty,case:strict" yaml:"produces,omitempty"`
	Schemes      []string               `json:"schemes,omitempty,case:strict" yaml:"schemes,omitempty"`
	Security     *SecurityRequirements  `json:"security,omitempty,case:strict" yaml:"security,omitempty"`
}

// MarshalJSON returns the JSON encoding of Operation.
func (operation Operation) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, 12+len(operation.Extensions))
	maps.Copy(m, operation.Extensions)
	if x := operation.Summary; x != "" {
		m["summary"] = x
	}
	if x := operation.Description; x != "" {
		m["description"] = x
	}
	if x := operation.Deprecated; x {
		m["deprecated"] = x
	}
	if x := operation.ExternalDocs; x != nil {
		m["externalDocs"] = x
	}
	if x := operation.Tags; len(x) != 0 {
		m["tags"] = x
	}
	if x := operation.OperationID; x != "" {
		m["operationId"] = x
	}
	if x := operation.Parameters; len(x) != 0 {
		m["parameters"] = x
	}
	m["responses"] = operation.Responses
	if x := operation.Consumes; len(x) != 0 {
		m["consumes"] = x
	}
	if x := operation.Produces; len(x) != 0 {
		m["produces"] = x
	}
	if x := operation.Schemes; len(x) != 0 {
		m["schemes"] = x
	}
	if x := operation.Security; x != nil {
		m["security"] = x
	}
	return json.Marshal(m)
}

// UnmarshalJSON sets Operation to a copy of data.
func (operation *Operation) UnmarshalJSON(data []byte) error {
	type OperationBis Operation
	var x OperationBis
	if err := unmarshalJSON(data, &x); err != nil {
		return unmarshalError(err)
	}
	_ = unmarshalJSON(data, &x.Extensions)
	delete(x.Extensions, "summary")
	delete(x.Extensions, "description")
	delete(x.Extensions, "deprecated")
	delete(x.Extensions, "externalDocs")
	delete(x.Extensions, "tags")
	delete(x.Extensions, "operationId")
	delete(x.Extensions, "parameters")
	delete(x.Extensions, "responses")
	delete(x.Extensions, "consumes")
	delete(x.Extensions, "produces")
	delete(x.Extensions, "schemes")
	delete(x.Extensions, "security")
	if len(x.Extensions) == 0 {
		x.Extensions = nil
	}
	*operation = Operation(x)
	return nil
}
