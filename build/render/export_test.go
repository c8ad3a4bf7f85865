package render

import "github.com/go-json-experiment/json/jsontext"

// SetStructuredHook sets the function structured calls first with each
// value and pointer it is given (nil: none).
func SetStructuredHook(f func(tur jsontext.Value, res any)) { structuredHook = f }
