// Package validate checks the Helm chart's rendered manifests: each one decoded strictly into its Kubernetes API
// type (an unknown field, a wrong type or a missing kind fails), then what the site needs asserted on the typed
// objects (chart_test.go).
package validate

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes/scheme"
)

// ChartDir is the chart, relative to this package.
const ChartDir = "../outpost"

// codec decodes YAML strictly into the built-in API types and the Prometheus Operator's ServiceMonitor.
var codec = func() runtime.Decoder {
	s := runtime.NewScheme()
	if err := scheme.AddToScheme(s); err != nil {
		panic(err)
	}
	if err := monitoringv1.AddToScheme(s); err != nil {
		panic(err)
	}
	return json.NewSerializerWithOptions(json.DefaultMetaFactory, s, s,
		json.SerializerOptions{Yaml: true, Strict: true})
}()

// Helm prints each template's output after a "# Source: chart/templates/x.yaml" line, documents split by "---".
var docSeparator = regexp.MustCompile(`(?m)^---[ \t]*$`)

// Object is one rendered manifest: the template it came from and its typed value.
type Object struct {
	Source string
	Value  runtime.Object
}

// Render runs `helm template` on the chart with the given values files and --set options.
func Render(valuesFiles []string, sets ...string) ([]byte, error) {
	helm := os.Getenv("HELM")
	if helm == "" {
		helm = "helm"
	}
	args := []string{"template", "outpost", ChartDir, "--namespace", "conditions"}
	if v := os.Getenv("KUBE_VERSION"); v != "" {
		args = append(args, "--kube-version", v)
	}
	for _, f := range valuesFiles {
		args = append(args, "--values", f)
	}
	for _, s := range sets {
		args = append(args, "--set", s)
	}
	cmd := exec.Command(helm, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("helm %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return out, nil
}

// Decode splits rendered output into documents and decodes each strictly; the error names the template.
func Decode(rendered []byte) ([]Object, error) {
	var objects []Object
	for _, doc := range docSeparator.Split(string(rendered), -1) {
		source := ""
		if i := strings.Index(doc, "# Source: "); i >= 0 {
			source = strings.TrimSpace(strings.SplitN(doc[i+len("# Source: "):], "\n", 2)[0])
		}
		if strings.TrimSpace(stripComments(doc)) == "" {
			continue
		}
		obj, gvk, err := codec.Decode([]byte(doc), nil, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", source, err)
		}
		if err := checkNames(obj); err != nil {
			return nil, fmt.Errorf("%s (%s): %v", source, gvk.Kind, err)
		}
		objects = append(objects, Object{Source: source, Value: obj})
	}
	return objects, nil
}

func stripComments(doc string) string {
	var b strings.Builder
	for _, line := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// checkNames applies the API server's rules for object names and labels, which decoding alone does not.
func checkNames(obj runtime.Object) error {
	meta, ok := obj.(interface {
		GetName() string
		GetLabels() map[string]string
	})
	if !ok {
		return fmt.Errorf("%T has no object metadata", obj)
	}
	if errs := validation.IsDNS1123Subdomain(meta.GetName()); len(errs) > 0 {
		return fmt.Errorf("name %q: %s", meta.GetName(), strings.Join(errs, "; "))
	}
	for k, v := range meta.GetLabels() {
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			return fmt.Errorf("label key %q: %s", k, strings.Join(errs, "; "))
		}
		if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
			return fmt.Errorf("label %s value %q: %s", k, v, strings.Join(errs, "; "))
		}
	}
	return nil
}

// Find returns the objects of type T.
func Find[T runtime.Object](objects []Object) []T {
	var found []T
	for _, o := range objects {
		if t, ok := o.Value.(T); ok {
			found = append(found, t)
		}
	}
	return found
}
