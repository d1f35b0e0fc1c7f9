import { nodeCtx, withCtx } from './context.ts';
import { SdkCode, SdkError } from './errors.ts';
import { createResource, type Resource, type ScopeState, type ServiceOut } from './resource.ts';
import type { ServiceRefArgs, WebhookEntry, WebhookService, WebhookServiceArgs } from './scopeApi.ts';
import { asObj, asText } from './validators.ts';
import type { Value } from './values.ts';

export function mkServiceRef(st: ScopeState, a: ServiceRefArgs): Resource<ServiceOut> {
  const sel = asObj(a.selector);
  const nameText = asText(a.name) ?? '';
  if (!sel || Object.keys(sel).length === 0) {
    throw new SdkError(
      SdkCode.serviceRef,
      `mkServiceRef ${nameText}: selector must be a non-empty label map`,
    );
  }
  if (!Array.isArray(a.ports) || a.ports.length === 0) {
    throw new SdkError(SdkCode.serviceRef, `mkServiceRef ${nameText}: ports must be a non-empty list`);
  }
  for (const p of a.ports) {
    if (typeof p?.port !== 'number' || p.port < 1 || p.port > 65535) {
      throw new SdkError(
        SdkCode.serviceRef,
        `mkServiceRef ${nameText}: every port needs a number in 1..65535`,
      );
    }
  }
  const marker = `service-ref-${st.instanceName}-${nameText}`;
  const { node, resource } = createResource(
    st,
    {
      apiVersion: 'v1',
      kind: 'Service',
      name: a.name,
      spec: { selector: a.selector, ports: a.ports as unknown as Value },
      ...(a.labels ? { labels: a.labels } : {}),
      ...(a.requires ? { requires: a.requires } : {}),
    },
    {
      namespaced: true,
      isImport: true,
      servicePort: true,
      systemAnnotations: { 'kix.run/import': 'true', 'kix.run/import-marker': marker },
      outExtras: (n) => ({
        selector: Object.fromEntries(Object.entries(a.selector).map(([k, v]) => [k, withCtx(v, nodeCtx(n))])),
        labels: { ...(a.labels ?? {}) },
      }),
    },
  );
  st.build.imports.push({ name: marker, kind: 'Service', namespace: node.namespace, objectName: node.name });
  return resource as Resource<ServiceOut>;
}

export function mkWebhookService(st: ScopeState, a: WebhookServiceArgs): WebhookService {
  const service = createResource(
    st,
    {
      apiVersion: 'v1',
      kind: 'Service',
      name: a.name,
      ...(a.labels ? { labels: a.labels } : {}),
      ...(a.annotations ? { annotations: a.annotations } : {}),
      spec: {
        selector: a.selector,
        ports: [{ name: 'https', port: a.port, targetPort: a.targetPort ?? a.port, protocol: 'TCP' }],
      },
    },
    { namespaced: true, servicePort: true },
  ).resource as Resource<ServiceOut>;
  const wire = (entries: readonly WebhookEntry[]) =>
    entries.map(({ path, ...entry }) => {
      if (typeof entry.name !== 'string' || typeof path !== 'string') {
        throw new SdkError(
          SdkCode.webhookService,
          'mkWebhookService: every webhook entry needs a name and a path',
        );
      }
      return {
        admissionReviewVersions: ['v1'],
        sideEffects: 'None',
        ...entry,
        clientConfig: {
          ...(asObj(entry.clientConfig) ?? {}),
          service: { name: service.out.name, namespace: st.namespaceName, path, port: a.port },
        },
      };
    });
  const result: WebhookService = { service };
  const cfg = (kind: string, entries: readonly WebhookEntry[] | undefined) =>
    entries && entries.length > 0
      ? createResource(
          st,
          {
            apiVersion: 'admissionregistration.k8s.io/v1',
            kind,
            name: a.name,
            extra: { webhooks: wire(entries) },
          },
          { namespaced: false },
        ).resource
      : undefined;
  const v = cfg('ValidatingWebhookConfiguration', a.validating);
  const m = cfg('MutatingWebhookConfiguration', a.mutating);
  if (v) result.validatingConfiguration = v;
  if (m) result.mutatingConfiguration = m;
  return result;
}
