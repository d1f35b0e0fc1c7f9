/**
 * Example package: a web app with a ConfigMap, a Secret, a migration Job, a Deployment, a Service,
 * and a CRD with one custom resource. Synthesize it with:
 *   npx kgraph synth examples/sdk/webapp.ts --cluster examples/sdk/cluster.yaml
 *   npx kgraph synth examples/sdk/webapp.ts --cluster examples/sdk/cluster.yaml --as graph
 */
import {
  type AnyResource,
  type CrdOut,
  definePackage,
  k,
  keep,
  kix,
  type Resource,
  type SecretOut,
  type ServiceOut,
  type Workload,
} from '../../src/sdk/index.ts';

interface WebAppConfig {
  image?: string;
  listenPort?: number;
}

interface Parts extends Record<string, unknown> {
  config: AnyResource;
  dbSecret: Resource<SecretOut>;
  serviceAccount: AnyResource;
  migration: Workload;
  deployment: Workload;
  service: Resource<ServiceOut>;
  crds: { Dashboard: Resource<CrdOut> };
  dashboard: AnyResource;
  root: { resource: Resource<ServiceOut>; out: { internalUrl: string } };
}

export default definePackage<Parts>({
  name: 'webapp',
  build: ({ scope, self, availability, config }) => {
    const cfg = (config ?? {}) as WebAppConfig;
    const image = cfg.image ?? 'ghcr.io/acme/webapp:1.4.2';
    const listenPort = cfg.listenPort ?? 8080;
    return {
      config: () =>
        scope.mkResource({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          name: 'webapp-config',
          data: { 'config.json': JSON.stringify({ listenPort }) },
        }),
      dbSecret: () =>
        scope.mkSecret({
          name: 'webapp-db',
          stringData: { url: 'postgres://db.example:5432/app', password: 'change-me' },
        }),
      serviceAccount: () => scope.mkResource({ apiVersion: 'v1', kind: 'ServiceAccount', name: 'webapp' }),
      migration: () =>
        scope.mkJob({
          // The name changes with the image, so a new image runs a new migration (the pod template is immutable).
          name: `webapp-migrate-${kix.contentHash(image, 8)}`,
          spec: {
            backoffLimit: 2,
            template: {
              metadata: { labels: { 'app.kubernetes.io/component': 'migration' } },
              spec: {
                restartPolicy: 'Never',
                serviceAccount: self.serviceAccount,
                containers: [
                  {
                    name: 'migrate',
                    image,
                    args: ['migrate', 'up'],
                    env: kix.mkEnvVars({ DATABASE_URL: self.dbSecret.out.keyRef('url') }),
                  },
                ],
              },
            },
          },
        }),
      deployment: () =>
        scope.mkDeployment({
          name: 'webapp',
          availability: { max: 'node' },
          requires: [self.migration],
          spec: {
            replicas: kix.availability.pick(availability, { none: 1, pod: 2, node: 3, zone: 3 }),
            selector: { matchLabels: scope.selectorLabels },
            template: {
              metadata: { annotations: { 'checksum/config': self.config.out.identityHash } },
              spec: {
                serviceAccount: self.serviceAccount,
                containers: [
                  {
                    name: 'web',
                    image,
                    command: null,
                    ports: [kix.port('http', listenPort)],
                    env: kix.mkEnvVars({
                      CONFIG_MAP: self.config.out.name,
                      DATABASE_PASSWORD: self.dbSecret.out.keyRef('password'),
                    }),
                    readinessProbe: { httpGet: { path: '/healthz', port: 'http' } },
                    resources: {
                      requests: { cpu: '100m', memory: '128Mi' },
                      limits: { cpu: '500m', memory: '256Mi' },
                    },
                    volumeMounts: [
                      { name: 'config', mountPath: '/etc/webapp' },
                      { name: 'scratch', mountPath: '/tmp' },
                    ],
                  },
                ],
                volumes: [
                  { name: 'config', configMap: { name: self.config.out.name } },
                  { name: 'scratch', emptyDir: keep({ sizeLimit: null, medium: null }) },
                ],
              },
            },
          },
        }),
      service: () =>
        scope.mkResource(
          kix.service.fromWorkload(
            { name: 'webapp', ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
            self.deployment,
          ),
        ),
      crds: {
        Dashboard: () =>
          scope.mkCRD({
            spec: {
              group: 'example.kgraph.dev',
              names: { kind: 'Dashboard', plural: 'dashboards', singular: 'dashboard' },
              scope: 'Namespaced',
              versions: [
                {
                  name: 'v1',
                  served: true,
                  storage: true,
                  schema: {
                    openAPIV3Schema: {
                      type: 'object',
                      properties: {
                        spec: { type: 'object', properties: { url: { type: 'string' } } },
                        status: { type: 'object', properties: { phase: { type: 'string' } } },
                      },
                    },
                  },
                },
              ],
            },
            // No `readiness:` predicate: nothing in this example reconciles Dashboards, so a predicate on
            // their status (e.g. { path: '/status/phase', equals: 'Ready' }) would make `kgraph deploy`
            // wait for it forever. An instance without one is ready once it exists.
          }),
      },
      dashboard: () =>
        self.crds.Dashboard.out.cr({ name: 'webapp', spec: { url: `${self.service.out.url()}/metrics` } }),
      root: () => ({
        resource: self.service,
        out: { internalUrl: `${k`http://${self.service.out.fqdn}:80`}` },
      }),
    };
  },
});
