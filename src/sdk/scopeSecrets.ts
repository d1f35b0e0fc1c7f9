import type { KStr } from './context.ts';
import { SdkCode, SdkError } from './errors.ts';
import { createResource, type Resource, type ScopeState } from './resource.ts';
import type { SecretArgs, SecretHelpers, SecretOut, SecretRefArgs } from './scopeApi.ts';
import { asText } from './validators.ts';

function secretOut(
  nameOut: KStr,
  keys: readonly string[] | undefined,
  type: string,
  label: string,
): SecretHelpers {
  const checkKey = (key: string) => {
    if (keys !== undefined && !keys.includes(key)) {
      throw new SdkError(
        SdkCode.secretKey,
        `${label}: key "${key}" is not one of ${keys.join(', ') || '(none)'}`,
      );
    }
  };
  return {
    keys: keys ?? [],
    type,
    keyRef: (key, o = {}) => {
      checkKey(key);
      return {
        secretKeyRef: { name: nameOut, key, ...(o.optional === undefined ? {} : { optional: o.optional }) },
      };
    },
    mkEnv: (map) =>
      Object.keys(map)
        .sort()
        .map((envName) => {
          const key = map[envName]!;
          checkKey(key);
          return { name: envName, valueFrom: { secretKeyRef: { name: nameOut, key } } };
        }),
    envFrom: (o = {}) => ({
      secretRef: { name: nameOut },
      ...(o.prefix === undefined ? {} : { prefix: o.prefix }),
    }),
    volume: (name, o = {}) => ({ name, secret: { secretName: nameOut, ...o } }),
  };
}

export function mkSecret(st: ScopeState, a: SecretArgs): Resource<SecretOut> {
  const type = a.type ?? 'Opaque';
  const keys = [...new Set([...Object.keys(a.data ?? {}), ...Object.keys(a.stringData ?? {})])].sort();
  const { data, stringData, type: _t, immutable, ...rest } = a;
  return createResource(
    st,
    { ...rest, apiVersion: 'v1', kind: 'Secret', data: data ?? {}, stringData: stringData ?? {} },
    {
      namespaced: true,
      body: { type, ...(immutable === undefined ? {} : { immutable }) },
      outExtras: (_n, base) => secretOut(base.name as KStr, keys, type, `Secret ${asText(a.name)}`),
    },
  ).resource as Resource<SecretOut>;
}

export function mkSecretRef(st: ScopeState, a: SecretRefArgs): Resource<SecretOut> {
  const ns = a.namespace ?? st.namespaceName;
  const type = a.type ?? 'Opaque';
  return createResource(
    { ...st, namespaceName: ns },
    { apiVersion: 'v1', kind: 'Secret', name: a.name },
    {
      namespaced: true,
      isImport: true,
      reflected: a.reflect === true,
      systemAnnotations: {
        'kix.run/import': 'true',
        ...(a.keys?.length ? { 'kix.run/required-keys': [...a.keys].sort().join(',') } : {}),
      },
      outExtras: (_n, base) => secretOut(base.name as KStr, a.keys, type, `Secret ref ${asText(a.name)}`),
    },
  ).resource as Resource<SecretOut>;
}
