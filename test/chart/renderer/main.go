// chart-render: renders a Helm chart directory the way `helm template` does, for the chart tests (no helm binary
// can be installed here; see docs/adr/0008-chart-rendering-in-tests.md). It uses Go's text/template with the
// real Sprig function map, as Helm does, plus Helm's own functions (include, tpl, required, toYaml, fromYaml,
// toJson, lookup) and its objects (.Values, .Release, .Chart, .Capabilities, .Files, .Template).
//
// Usage: chart-render CHART_DIR NAMESPACE API_VERSIONS(comma-separated) [VALUES_FILE...]
// Prints {"<chart>/templates/<file>": "<rendered text>"} as JSON; a template error exits 1 with Helm-like text.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig"
	"github.com/ghodss/yaml"
)

func main() {
	if len(os.Args) < 4 {
		fail(fmt.Errorf("usage: chart-render CHART_DIR NAMESPACE API_VERSIONS [VALUES_FILE...]"))
	}
	chartDir, namespace := os.Args[1], os.Args[2]
	chart := readYaml(filepath.Join(chartDir, "Chart.yaml"))
	values := readYaml(filepath.Join(chartDir, "values.yaml"))
	for _, file := range os.Args[4:] {
		values = mergeValues(values, readYaml(file))
	}
	if err := validateValues(chartDir, values); err != nil {
		fail(err)
	}
	apiVersions := strings.Split(os.Args[3], ",")
	rendered, err := render(chartDir, chart, values, namespace, apiVersions)
	if err != nil {
		fail(err)
	}
	out, _ := json.Marshal(rendered)
	os.Stdout.Write(out)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "Error:", err)
	os.Exit(1)
}

func readYaml(path string) map[string]interface{} {
	data, err := os.ReadFile(path)
	if err != nil {
		fail(err)
	}
	parsed := map[string]interface{}{}
	if err := yaml.Unmarshal(data, &parsed); err != nil {
		fail(fmt.Errorf("%s: %w", path, err))
	}
	return parsed
}

// mergeValues overlays a user values file on the chart's defaults as Helm does: maps merge key by key, anything
// else (lists included) is replaced, and a null removes the default.
func mergeValues(base, overlay map[string]interface{}) map[string]interface{} {
	merged := map[string]interface{}{}
	for k, v := range base {
		merged[k] = v
	}
	for k, v := range overlay {
		if v == nil {
			delete(merged, k)
			continue
		}
		baseMap, baseIsMap := merged[k].(map[string]interface{})
		overMap, overIsMap := v.(map[string]interface{})
		if baseIsMap && overIsMap {
			merged[k] = mergeValues(baseMap, overMap)
		} else {
			merged[k] = v
		}
	}
	return merged
}

type files struct{ root string }

// Get reads a file of the chart, relative to its root; a missing file is "", as in Helm.
func (f files) Get(name string) string {
	data, err := os.ReadFile(filepath.Join(f.root, filepath.FromSlash(name)))
	if err != nil {
		return ""
	}
	return string(data)
}

type apiVersionSet []string

func (s apiVersionSet) Has(version string) bool {
	for _, v := range s {
		if v == version {
			return true
		}
	}
	return false
}

func render(chartDir string, chart, values map[string]interface{}, namespace string, apiVersions []string) (map[string]string, error) {
	name, _ := chart["name"].(string)
	paths, _ := filepath.Glob(filepath.Join(chartDir, "templates", "*"))
	sort.Strings(paths)
	root := template.New(name)
	funcs := functionMap(root)
	root.Funcs(funcs).Option("missingkey=zero")
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		templateName := name + "/templates/" + filepath.Base(path)
		if _, err := root.New(templateName).Parse(string(data)); err != nil {
			return nil, fmt.Errorf("parse error: %w", err)
		}
	}
	top := map[string]interface{}{
		"Values":  values,
		"Release": map[string]interface{}{"Name": "meerkat", "Namespace": namespace, "Service": "Helm", "IsInstall": true, "IsUpgrade": false, "Revision": 1},
		"Chart":   map[string]interface{}{"Name": chart["name"], "Version": chart["version"], "AppVersion": chart["appVersion"]},
		"Capabilities": map[string]interface{}{
			"APIVersions": apiVersionSet(apiVersions),
			"KubeVersion": map[string]interface{}{"Version": "v1.30.0", "Major": "1", "Minor": "30"},
		},
		"Files": files{root: chartDir},
	}
	rendered := map[string]string{}
	for _, path := range paths {
		base := filepath.Base(path)
		if strings.HasPrefix(base, "_") {
			continue
		}
		templateName := name + "/templates/" + base
		top["Template"] = map[string]interface{}{"Name": templateName, "BasePath": name + "/templates"}
		var out bytes.Buffer
		if err := root.ExecuteTemplate(&out, templateName, top); err != nil {
			return nil, err
		}
		rendered[templateName] = strings.ReplaceAll(out.String(), "<no value>", "")
	}
	return rendered, nil
}

func functionMap(root *template.Template) template.FuncMap {
	funcs := sprig.TxtFuncMap()
	// Helm removes these two so that a chart renders the same on every machine.
	delete(funcs, "env")
	delete(funcs, "expandenv")
	funcs["toYaml"] = func(v interface{}) string {
		data, err := yaml.Marshal(v)
		if err != nil {
			return ""
		}
		return strings.TrimSuffix(string(data), "\n")
	}
	funcs["fromYaml"] = func(s string) map[string]interface{} {
		parsed := map[string]interface{}{}
		if err := yaml.Unmarshal([]byte(s), &parsed); err != nil {
			parsed["Error"] = err.Error()
		}
		return parsed
	}
	funcs["toJson"] = func(v interface{}) string {
		data, _ := json.Marshal(v)
		return string(data)
	}
	funcs["required"] = func(message string, v interface{}) (interface{}, error) {
		if v == nil || v == "" {
			return nil, fmt.Errorf("%s", message)
		}
		return v, nil
	}
	funcs["lookup"] = func(string, string, string, string) map[string]interface{} { return map[string]interface{}{} }
	funcs["include"] = func(name string, data interface{}) (string, error) {
		var out bytes.Buffer
		err := root.ExecuteTemplate(&out, name, data)
		return out.String(), err
	}
	funcs["tpl"] = func(text string, data interface{}) (string, error) {
		t, err := root.Clone()
		if err != nil {
			return "", err
		}
		if _, err := t.New("tpl").Parse(text); err != nil {
			return "", err
		}
		var out bytes.Buffer
		err = t.ExecuteTemplate(&out, "tpl", data)
		return out.String(), err
	}
	return funcs
}
