/**
 * SDK diagnostic codes (KG7xxx) and the typed error the builders throw.
 * Builders throw because they run inside user code (a package's `build`); synth catches
 * nothing: the first error stops the build, warnings are collected on the build.
 */
import { fileURLToPath } from 'node:url';
import { type Diagnostic, KgraphError, type Severity, type SourceLocation } from '../diag/diagnostic.ts';
import { brandClass } from './brand.ts';

export const SdkCode = {
  workloadKindInMkResource: 'KG7001',
  secretInMkResource: 'KG7002',
  crdInMkResource: 'KG7003',
  invalidName: 'KG7004',
  extraIdentity: 'KG7005',
  extraMetadataIdentity: 'KG7006',
  extraShadowsArgument: 'KG7007',
  invalidCedePath: 'KG7008',
  invalidReadiness: 'KG7009',
  redundantRequires: 'KG7010',
  notAResource: 'KG7011',
  resourceInManifest: 'KG7012',
  invalidArgument: 'KG7013',
  markerCorrupted: 'KG7020',
  strictCoercion: 'KG7021',
  cycle: 'KG7022',
  deferredValue: 'KG7023',
  markerUnknown: 'KG7024',
  selectorRequired: 'KG7030',
  podLabelsRequired: 'KG7031',
  jobTtlRefused: 'KG7032',
  serviceAccountShorthand: 'KG7033',
  headlessService: 'KG7034',
  availabilityMax: 'KG7035',
  rerunAnnotation: 'KG7036',
  checkSelectorSubset: 'KG7040',
  checkNamespacedRefs: 'KG7041',
  checkNamedPorts: 'KG7042',
  checkContainerResources: 'KG7043',
  checkDuplicateNames: 'KG7044',
  checkFieldRefs: 'KG7045',
  checkPrivileged: 'KG7046',
  checkDaemonSet: 'KG7047',
  checkSpreadFeasible: 'KG7048',
  loadBalancerProvider: 'KG7050',
  metricsApi: 'KG7051',
  fromWorkload: 'KG7052',
  serviceRef: 'KG7053',
  portRule: 'KG7054',
  forService: 'KG7055',
  imageRef: 'KG7056',
  envVars: 'KG7057',
  secretKey: 'KG7058',
  packageDefinition: 'KG7060',
  clusterDefinition: 'KG7061',
  packageLoad: 'KG7062',
  /** `self.<name>` names no part of the package. */
  unknownPart: 'KG7066',
  selectorSubsetOther: 'KG7063',
  webhookService: 'KG7064',
  unresolvedDependency: 'KG7065',
  networkIntent: 'KG7070',
  networkPolicyKind: 'KG7071',
  networkPolicy: 'KG7072',
  chart: 'KG7073',
} as const;

export type SdkCodeValue = (typeof SdkCode)[keyof typeof SdkCode];

/** A build error of the SDK. `code` is one of {@link SdkCode}; `diagnostics` holds one entry. */
export class SdkError extends KgraphError {
  constructor(
    code: SdkCodeValue,
    message: string,
    extra: Partial<Omit<Diagnostic, 'code' | 'message'>> = {},
  ) {
    const location = extra.location ?? callSite(new Error().stack);
    super(code, message, [{ severity: 'error', code, message, ...(location ? { location } : {}), ...extra }]);
    this.name = 'SdkError';
  }
}
// kgraph's own code (src/, dist/ or the bin/ launcher, this file being src/sdk or dist/sdk) is skipped when looking for the
// user's frame; the repository's examples and tests are user code.
const kgraphRoot = fileURLToPath(new URL('../../', import.meta.url));
const ownCode = [`${kgraphRoot}src/`, `${kgraphRoot}dist/`, `${kgraphRoot}bin/`];

/**
 * Where the user's package was when the SDK threw: the first stack frame outside kgraph itself (its
 * sources or dist/), node_modules and Node's internals. Undefined when no such frame exists (an error
 * raised at synth, after every part was built).
 */
export function callSite(stack: string | undefined): SourceLocation | undefined {
  for (const line of (stack ?? '').split('\n').slice(1)) {
    const m = /\(?((?:file:\/\/)?\/[^()]*?):(\d+):(\d+)\)?\s*$/.exec(line);
    if (!m?.[1]) continue;
    const file = m[1].startsWith('file://') ? fileURLToPath(m[1]) : m[1];
    if (ownCode.some((dir) => file.startsWith(dir))) continue;
    if (file.includes('/node_modules/') || file.startsWith('node:')) continue;
    return { file, line: Number(m[2]), column: Number(m[3]) };
  }
  return undefined;
}

// An SdkError thrown by another copy of the SDK (registry.ts) is still `instanceof SdkError`.
brandClass(SdkError, 'SdkError');

export function sdkDiagnostic(
  severity: Severity,
  code: SdkCodeValue,
  message: string,
  extra: Partial<Omit<Diagnostic, 'code' | 'message' | 'severity'>> = {},
): Diagnostic {
  return { severity, code, message, ...extra };
}
