// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the generated YAML holds kgraph ${…} syntax
/** The generated RGD of the language server benchmark (bench/lsp.bench.ts). */
/** An RGD of `n` resources: ConfigMaps, Deployments and Services in blocks of three, each reading the last. */
export function generateRgd(n: number): string {
  const lines = [
    'apiVersion: kro.run/v1alpha1',
    'kind: ResourceGraphDefinition',
    'metadata:',
    '  name: bench.kro.run',
    'spec:',
    '  schema:',
    '    apiVersion: v1alpha1',
    '    kind: Bench',
    '    spec:',
    '      name: string',
    '      replicas: integer | default=2',
    '      image: string | default="nginx"',
    '    status:',
    '      ready: ${deploy1.status.availableReplicas}',
    '  resources:',
  ];
  for (let i = 0; i < n; i++) {
    const b = Math.floor(i / 3);
    if (i % 3 === 0)
      lines.push(
        `    - id: cm${b}`,
        '      template:',
        '        apiVersion: v1',
        '        kind: ConfigMap',
        '        metadata:',
        `          name: \${schema.spec.name}-cm${b}`,
        '        data:',
        `          image: \${schema.spec.image}`,
        b > 0 ? `          previous: \${svc${b - 1}.metadata.name}` : '          previous: none',
      );
    else if (i % 3 === 1)
      lines.push(
        `    - id: deploy${b}`,
        '      template:',
        '        apiVersion: apps/v1',
        '        kind: Deployment',
        '        metadata:',
        `          name: \${cm${b}.metadata.name}-d`,
        '        spec:',
        '          replicas: ${schema.spec.replicas}',
        '          selector:',
        '            matchLabels:',
        `              app: \${schema.spec.name}-${b}`,
        '          template:',
        '            metadata:',
        '              labels:',
        `                app: \${schema.spec.name}-${b}`,
        '            spec:',
        '              containers:',
        '                - name: app',
        `                  image: \${cm${b}.data.image}`,
      );
    else
      lines.push(
        `    - id: svc${b}`,
        '      template:',
        '        apiVersion: v1',
        '        kind: Service',
        '        metadata:',
        `          name: \${deploy${b}.metadata.name}-svc`,
        '        spec:',
        `          selector: \${deploy${b}.spec.selector.matchLabels}`,
        '          ports:',
        '            - port: 80',
      );
  }
  return `${lines.join('\n')}\n`;
}
