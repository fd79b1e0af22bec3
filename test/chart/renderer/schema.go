package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/xeipuuv/gojsonschema"
)

// validateValues checks the merged values against the chart's values.schema.json, as `helm install` and
// `helm template` do (Helm 3 uses this same library), and returns Helm's kind of message listing each failure.
func validateValues(chartDir string, values map[string]interface{}) error {
	schema, err := os.ReadFile(filepath.Join(chartDir, "values.schema.json"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	result, err := gojsonschema.Validate(gojsonschema.NewBytesLoader(schema), gojsonschema.NewGoLoader(values))
	if err != nil {
		return fmt.Errorf("values.schema.json: %w", err)
	}
	if result.Valid() {
		return nil
	}
	var lines []string
	for _, problem := range result.Errors() {
		lines = append(lines, fmt.Sprintf("- %s: %s", problem.Field(), problem.Description()))
	}
	return fmt.Errorf("values don't meet the specifications of the schema(s) in the following chart(s):\n%s",
		strings.Join(lines, "\n"))
}
