// helm-render renders a Helm chart (a chart directory or a packaged .tgz) with Helm's own library, the
// code path of `helm template`: action.Install in client-only dry-run mode, so values coalescing,
// subcharts, template functions, hook sorting and crds/ are Helm's, not a re-implementation.
//
//	helm-render template [flags] CHART   prints what `helm template` prints (manifests, then hooks)
//	helm-render json     [flags] CHART   the same documents as JSON, with their source and hook data
//
// Flags: --name, --namespace, --values FILE (repeatable, later files win, deep-merged like Helm's -f),
// --set k=v (repeatable, Helm's --set syntax, applied after the files), --include-crds, --skip-tests,
// --no-hooks, --kube-version, --api-versions (repeatable).
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"strings"

	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/loader"
	release "helm.sh/helm/v4/pkg/release/v1"
	"helm.sh/helm/v4/pkg/strvals"
	"sigs.k8s.io/yaml"
)

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

type options struct {
	name, namespace, kubeVersion string
	valueFiles, sets, apiVersions multi
	includeCRDs, skipTests, noHooks bool
}

func main() {
	if len(os.Args) < 2 || (os.Args[1] != "template" && os.Args[1] != "json") {
		fmt.Fprintln(os.Stderr, "usage: helm-render template|json [--name N] [--namespace NS] [--values FILE]... [--set K=V]... [--include-crds] [--skip-tests] [--no-hooks] [--kube-version V] [--api-versions G/V]... CHART")
		os.Exit(2)
	}
	mode := os.Args[1]
	var o options
	fs := flag.NewFlagSet(mode, flag.ExitOnError)
	fs.StringVar(&o.name, "name", "release-name", "release name")
	fs.StringVar(&o.namespace, "namespace", "default", "release namespace")
	fs.StringVar(&o.kubeVersion, "kube-version", "", "Kubernetes version for .Capabilities.KubeVersion")
	fs.Var(&o.valueFiles, "values", "values file (repeatable)")
	fs.Var(&o.sets, "set", "value in Helm's --set syntax (repeatable)")
	fs.Var(&o.apiVersions, "api-versions", "extra API version for .Capabilities.APIVersions (repeatable)")
	fs.BoolVar(&o.includeCRDs, "include-crds", false, "include the chart's crds/ in the output")
	fs.BoolVar(&o.skipTests, "skip-tests", false, "leave out test hooks")
	fs.BoolVar(&o.noHooks, "no-hooks", false, "leave out hooks")
	if err := fs.Parse(os.Args[2:]); err != nil {
		os.Exit(2)
	}
	if fs.NArg() != 1 {
		fail(errors.New("exactly one chart (directory or .tgz) is required"))
	}
	rel, err := render(fs.Arg(0), o)
	if err != nil {
		fail(err)
	}
	text := templateText(rel, o)
	if mode == "template" {
		fmt.Print(text)
		return
	}
	docs, err := documents(text, rel)
	if err != nil {
		fail(err)
	}
	out := map[string]interface{}{
		"release":   o.name,
		"namespace": o.namespace,
		"chart":     map[string]string{"name": rel.Chart.Metadata.Name, "version": rel.Chart.Metadata.Version},
		"documents": docs,
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "helm-render: %v\n", err)
	os.Exit(1)
}

// render runs Helm's install action the way `helm template` configures it.
func render(chartPath string, o options) (*release.Release, error) {
	chrt, err := loader.Load(chartPath)
	if err != nil {
		return nil, fmt.Errorf("loading chart %s: %w", chartPath, err)
	}
	vals, err := userValues(o)
	if err != nil {
		return nil, err
	}
	cfg := action.NewConfiguration(action.ConfigurationSetLogger(slog.DiscardHandler))
	install := action.NewInstall(cfg)
	// Helm 4's `helm template` is a client-side dry run: no cluster is contacted, Capabilities are the
	// defaults plus --kube-version and --api-versions.
	install.DryRunStrategy = action.DryRunClient
	install.Replace = true
	install.ReleaseName = o.name
	install.Namespace = o.namespace
	install.IncludeCRDs = o.includeCRDs
	install.DisableHooks = o.noHooks
	install.APIVersions = common.VersionSet(o.apiVersions)
	if o.kubeVersion != "" {
		kv, err := common.ParseKubeVersion(o.kubeVersion)
		if err != nil {
			return nil, fmt.Errorf("invalid kube version %q: %w", o.kubeVersion, err)
		}
		install.KubeVersion = kv
	}
	out, err := install.Run(chrt, vals)
	if err != nil {
		return nil, err
	}
	// Helm 4 returns its release as an interface so that a later release format can be added; charts of
	// apiVersion v1 and v2 (every chart today) render to the v1 release, as `helm template` assumes.
	switch r := out.(type) {
	case *release.Release:
		return r, nil
	case release.Release:
		return &r, nil
	default:
		return nil, fmt.Errorf("unsupported release type %T", out)
	}
}

// userValues merges the values files in order (a later file wins; maps are merged key by key, as Helm's
// -f does), then applies --set. Helm itself coalesces the result with the chart's values.yaml.
func userValues(o options) (map[string]interface{}, error) {
	base := map[string]interface{}{}
	for _, f := range o.valueFiles {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		layer := map[string]interface{}{}
		if err := yaml.Unmarshal(data, &layer); err != nil {
			return nil, fmt.Errorf("values file %s: %w", f, err)
		}
		base = mergeMaps(base, layer)
	}
	for _, s := range o.sets {
		if err := strvals.ParseInto(s, base); err != nil {
			return nil, fmt.Errorf("--set %s: %w", s, err)
		}
	}
	return base, nil
}

func mergeMaps(a, b map[string]interface{}) map[string]interface{} {
	out := make(map[string]interface{}, len(a))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		if bv, ok := v.(map[string]interface{}); ok {
			if av, ok := out[k].(map[string]interface{}); ok {
				out[k] = mergeMaps(av, bv)
				continue
			}
		}
		out[k] = v
	}
	return out
}

// templateText is what `helm template` writes: the release manifest (CRDs first when included), then
// every hook in Helm's order.
func templateText(rel *release.Release, o options) string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(rel.Manifest))
	b.WriteString("\n")
	if !o.noHooks {
		for _, h := range rel.Hooks {
			if o.skipTests && isTestHook(h) {
				continue
			}
			fmt.Fprintf(&b, "---\n# Source: %s\n%s\n", h.Path, h.Manifest)
		}
	}
	return b.String()
}

func isTestHook(h *release.Hook) bool {
	for _, e := range h.Events {
		if e == release.HookTest {
			return true
		}
	}
	return false
}

type hookInfo struct {
	Events         []string `json:"events"`
	Weight         int      `json:"weight"`
	DeletePolicies []string `json:"deletePolicies"`
}

type document struct {
	Source string                 `json:"source"`
	Role   string                 `json:"role"` // crd | manifest | hook
	Hook   *hookInfo              `json:"hook,omitempty"`
	Object map[string]interface{} `json:"object"`
}

var (
	separator = regexp.MustCompile(`(?m)^---[ \t]*$`)
	sourceRe  = regexp.MustCompile(`(?m)^# Source: (.+)$`)
)

// documents splits the `helm template` text into objects, in the same order, each with its source file,
// whether it is a CRD (crds/), a manifest or a hook, and the hook's events, weight and delete policies.
func documents(text string, rel *release.Release) ([]document, error) {
	crdFiles := map[string]bool{}
	for _, c := range rel.Chart.CRDObjects() {
		crdFiles[c.Filename] = true
	}
	hooks := map[string][]*release.Hook{}
	for _, h := range rel.Hooks {
		hooks[h.Path] = append(hooks[h.Path], h)
	}
	docs := []document{}
	source := ""
	for _, piece := range separator.Split(text, -1) {
		if m := sourceRe.FindStringSubmatch(piece); m != nil {
			source = strings.TrimSpace(m[1])
		}
		data, err := yaml.YAMLToJSON([]byte(piece))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", source, err)
		}
		var obj map[string]interface{}
		if err := json.Unmarshal(data, &obj); err != nil {
			return nil, fmt.Errorf("%s: not an object: %w", source, err)
		}
		if obj == nil {
			continue // a document holding only comments or whitespace
		}
		d := document{Source: source, Role: "manifest", Object: obj}
		if crdFiles[source] {
			d.Role = "crd"
		} else if hs := hooks[source]; len(hs) > 0 {
			h := hookFor(hs, obj)
			if h != nil {
				d.Role = "hook"
				d.Hook = &hookInfo{Weight: h.Weight, Events: []string{}, DeletePolicies: []string{}}
				for _, e := range h.Events {
					d.Hook.Events = append(d.Hook.Events, string(e))
				}
				for _, p := range h.DeletePolicies {
					d.Hook.DeletePolicies = append(d.Hook.DeletePolicies, string(p))
				}
			}
		}
		docs = append(docs, d)
	}
	return docs, nil
}

// hookFor finds the hook of a source file that this object is (a file may hold several hooks).
func hookFor(hs []*release.Hook, obj map[string]interface{}) *release.Hook {
	kind, _ := obj["kind"].(string)
	meta, _ := obj["metadata"].(map[string]interface{})
	name, _ := meta["name"].(string)
	for _, h := range hs {
		if h.Kind == kind && h.Name == name {
			return h
		}
	}
	return nil
}
