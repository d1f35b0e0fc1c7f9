/**
 * Packages shared by the network-policy tests (unit: derived rules; integration: accepted by the server).
 */
import {
  type AnyResource,
  definePackage,
  k,
  kix,
  type Resource,
  type ServiceOut,
  type Workload,
} from '../../../src/sdk/index.ts';

export const container = (extra: Record<string, unknown> = {}) => ({
  name: 'app',
  image: 'ghcr.io/acme/app:1.0.0',
  ...extra,
});

interface ShopParts extends Record<string, unknown> {
  web: Workload;
  apiService: Resource<ServiceOut>;
  api: Workload;
  apiConfig: AnyResource;
  dbService: Resource<ServiceOut>;
  db: Workload;
  root: Resource<ServiceOut>;
}

/** Three tiers: web calls the api through its Service URL; the api reads the database address from a
 * ConfigMap; the database is a StatefulSet behind a headless Service. `apiUsesDb: false` drops the api's
 * reference to the ConfigMap (and so to the database). */
export const shop = (o: { apiUsesDb: boolean }) =>
  definePackage<ShopParts>({
    name: 'shop',
    build: ({ scope, self }) => ({
      web: () =>
        scope.mkDeployment({
          name: 'web',
          meta: {
            network: {
              intents: [{ direction: 'ingress', from: { entity: 'world' }, ports: [{ port: 8080 }] }],
            },
          },
          spec: {
            selector: { matchLabels: { app: 'web' } },
            template: {
              spec: {
                containers: [container({ env: kix.mkEnvVars({ API_URL: self.apiService.out.url() }) })],
              },
            },
          },
        }),
      apiService: () =>
        scope.mkResource({
          apiVersion: 'v1',
          kind: 'Service',
          name: 'api',
          spec: { selector: self.api.out.selector, ports: [{ name: 'http', port: 80, targetPort: 8080 }] },
        }),
      apiConfig: () =>
        scope.mkResource({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          name: 'api',
          data: { DATABASE_URL: k`postgres://${self.dbService.out.fqdn}:5432/shop` },
        }),
      api: () =>
        scope.mkDeployment({
          name: 'api',
          spec: {
            selector: { matchLabels: { app: 'api' } },
            template: {
              spec: {
                containers: [
                  container(
                    o.apiUsesDb ? { envFrom: [{ configMapRef: { name: self.apiConfig.out.name } }] } : {},
                  ),
                ],
              },
            },
          },
        }),
      dbService: () =>
        scope.mkResource({
          apiVersion: 'v1',
          kind: 'Service',
          name: 'db',
          spec: { clusterIP: 'None', selector: self.db.out.selector, ports: [{ name: 'pg', port: 5432 }] },
        }),
      db: () =>
        scope.mkStatefulSet({
          name: 'db',
          spec: {
            headlessService: self.dbService,
            selector: { matchLabels: { app: 'db' } },
            template: { spec: { containers: [container()] } },
          },
        }),
      root: () => self.apiService,
    }),
  });

/** The cluster DNS as a package providing the "dns" role (its own pods resolve upstream, not via itself). */
export const dns = definePackage<{ coredns: Workload; root: Resource<ServiceOut> }>({
  name: 'dns',
  provides: ['dns'],
  build: ({ scope, self }) => ({
    coredns: () =>
      scope.mkDeployment({
        name: 'coredns',
        meta: {
          network: {
            intents: [
              {
                direction: 'egress',
                to: { entity: 'world' },
                ports: [{ port: 53, protocol: 'UDP' }, { port: 53 }],
              },
            ],
          },
        },
        spec: {
          selector: { matchLabels: { 'k8s-app': 'kube-dns' } },
          template: { spec: { dnsPolicy: 'Default', containers: [container()] } },
        },
      }),
    root: () =>
      scope.mkResource({
        apiVersion: 'v1',
        kind: 'Service',
        name: 'kube-dns',
        spec: {
          selector: self.coredns.out.selector,
          ports: [
            { name: 'dns', port: 53, protocol: 'UDP' },
            { name: 'dns-tcp', port: 53, protocol: 'TCP' },
          ],
        },
      }),
  }),
});
