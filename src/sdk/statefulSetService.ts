/**
 * A StatefulSet's governing Service: the `spec.headlessService` shorthand and the cluster check that
 * `spec.serviceName` names a headless Service (`clusterIP: None`) in the StatefulSet's namespace (design/sdk.md §A4.2, item 3).
 */
import type { Build, ResNode } from './build.ts';
import { objectKey } from './build.ts';
import { Lazy } from './context.ts';
import { SdkCode, SdkError } from './errors.ts';
import { materialize } from './materialize.ts';
import { isResource, nodeOf } from './resource.ts';
import { asObj, asText } from './validators.ts';

interface Where {
  readonly label: string;
  readonly key: string;
  readonly namespace: string;
}

/** The `serviceName` the shorthand sets: the Service's plain name (no context, so no edge and no cycle). */
export function headlessServiceName(svc: unknown, w: Where, checkHeadless: boolean): string {
  const where = { node: w.key, path: 'spec.headlessService' };
  const svcNode = nodeOf(svc);
  if (!isResource(svc) || !svcNode || svc.kind !== 'Service' || svc.apiVersion !== 'v1') {
    throw new SdkError(
      SdkCode.headlessService,
      `${w.label}: spec.headlessService must be a v1 Service resource`,
      where,
    );
  }
  if (svc.namespace !== w.namespace) {
    throw new SdkError(
      SdkCode.headlessService,
      `${w.label}: headless Service ${svc.name} is in namespace ${svc.namespace}, not ${w.namespace}`,
      where,
    );
  }
  if (checkHeadless && !svcNode.isImport && clusterIPOf(svcNode) !== 'None') {
    throw new SdkError(
      SdkCode.headlessService,
      `${w.label}: Service ${svc.name} is not headless (clusterIP must be "None")`,
      where,
    );
  }
  return svc.name;
}

/**
 * The Service's `spec.clusterIP`, materializing only that field: the rest of the Service may hold
 * `lazy()` values that read the StatefulSet being built (its selector), and forcing them here would be
 * a cycle through the StatefulSet the shorthand is building.
 */
function clusterIPOf(svc: ResNode): string | undefined {
  const spec = svc.draft.spec instanceof Lazy ? svc.draft.spec.force() : svc.draft.spec;
  const raw = asObj(spec)?.clusterIP;
  return raw === undefined ? undefined : asText(materialize(raw, 'text').value);
}

/**
 * Every StatefulSet's `spec.serviceName` (set by hand or by the shorthand) must name a headless Service of
 * the build in the same namespace. A `mkServiceRef` (a Service an operator creates) is accepted: its
 * clusterIP is not known at build time.
 */
export function checkStatefulSetServices(build: Build): void {
  for (const node of build.nodes) {
    if (node.kind !== 'StatefulSet' || node.apiVersion !== 'apps/v1' || node.namespace === undefined)
      continue;
    const spec = asObj(asObj(materialize(node.draft, 'text').value)?.spec);
    const serviceName = asText(spec?.serviceName);
    if (serviceName === undefined || serviceName === '') continue;
    const where = { node: node.key, path: 'spec.serviceName' };
    const svc = build.byKey.get(objectKey('v1', 'Service', node.namespace, serviceName));
    if (!svc) {
      throw new SdkError(
        SdkCode.headlessService,
        `${node.label}: spec.serviceName "${serviceName}" names no Service in namespace ${node.namespace}; build the headless Service (clusterIP: None) there, or reference an operator's with scope.mkServiceRef`,
        where,
      );
    }
    if (!svc.isImport && clusterIPOf(svc) !== 'None') {
      throw new SdkError(
        SdkCode.headlessService,
        `${node.label}: spec.serviceName "${serviceName}" names ${svc.label}, which is not headless (set spec.clusterIP: "None")`,
        where,
      );
    }
  }
}
