// Command cel-go-bench evaluates the expressions of bench/cel-vs-go.bench.ts with cel-go (the CEL
// implementation kro uses): each is compiled once, then evaluated in timed rounds; it prints one JSON
// line per expression with the median evaluations per second of 7 rounds.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/google/cel-go/cel"
)

type expression struct {
	Name   string `json:"name"`
	Source string `json:"source"`
}

func data() map[string]any {
	items := make([]any, 0, 100)
	for i := 0; i < 100; i++ {
		items = append(items, map[string]any{"name": fmt.Sprintf("item-%d", i), "enabled": i%2 == 0, "weight": int64(i)})
	}
	schema := map[string]any{
		"metadata": map[string]any{"name": "web", "namespace": "apps", "labels": map[string]any{"team": "a", "tier": "frontend"}},
		"spec": map[string]any{
			"name": "web", "replicas": int64(3), "image": "nginx:1.27", "enabled": true,
			"ports": []any{int64(80), int64(443)}, "items": items,
		},
	}
	deployment := map[string]any{"status": map[string]any{
		"availableReplicas": int64(3),
		"conditions":        []any{map[string]any{"type": "Available", "status": "True"}},
	}}
	return map[string]any{"schema": schema, "deployment": deployment}
}

func main() {
	var exprs []expression
	if err := json.NewDecoder(os.Stdin).Decode(&exprs); err != nil {
		fmt.Fprintln(os.Stderr, "expressions on stdin (JSON):", err)
		os.Exit(2)
	}
	env, err := cel.NewEnv(cel.Variable("schema", cel.DynType), cel.Variable("deployment", cel.DynType))
	if err != nil {
		panic(err)
	}
	vars := data()
	out := json.NewEncoder(os.Stdout)
	for _, e := range exprs {
		ast, iss := env.Compile(e.Source)
		if iss.Err() != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", e.Name, iss.Err())
			os.Exit(1)
		}
		prg, err := env.Program(ast)
		if err != nil {
			panic(err)
		}
		run := func(n int) float64 {
			t0 := time.Now()
			for i := 0; i < n; i++ {
				if _, _, err := prg.Eval(vars); err != nil {
					panic(err)
				}
			}
			return float64(n) / time.Since(t0).Seconds()
		}
		run(2000)
		n := 20000
		rates := make([]float64, 0, 7)
		for r := 0; r < 7; r++ {
			rates = append(rates, run(n))
		}
		sort.Float64s(rates)
		_ = out.Encode(map[string]any{"name": e.Name, "opsPerSec": rates[3]})
	}
}
