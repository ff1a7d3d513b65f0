package exitcode

import (
	"errors"
	"fmt"
	"testing"
)

// TestClassSurvivesWrapping: a class marked where the error arises is found
// through the context commands add around it, and the text is the cause's.
func TestClassSurvivesWrapping(t *testing.T) {
	cause := errors.New("connection refused")
	err := fmt.Errorf("fetch catalog: %w", AsUnavailable(cause))
	e, ok := errors.AsType[*Error](err)
	if !ok || e.Code != Unavailable || e.Kind != "unavailable" || !errors.Is(err, cause) {
		t.Fatalf("class lost: %#v", e)
	}
	if err.Error() != "fetch catalog: connection refused" {
		t.Errorf("text %q", err)
	}
	for _, f := range []func(error) error{AsInput, AsUnavailable, AsSkipped, AsDrift} {
		if f(nil) != nil {
			t.Error("a nil error gained a class")
		}
	}
}

func TestPartialErrorText(t *testing.T) {
	e := &PartialError{Failed: []string{"a: bad", "b: worse"}, Total: 5}
	if got, want := e.Error(), "2 of 5 failed: a: bad; b: worse"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}
