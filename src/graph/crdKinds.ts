/** Recognises CustomResourceDefinition documents among the inputs (they become schema sources). */
import type { JsonValue } from './model.ts';

export function isCrdDocument(value: JsonValue): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    typeof value.apiVersion === 'string' &&
    value.apiVersion.startsWith('apiextensions.k8s.io/') &&
    value.kind === 'CustomResourceDefinition'
  );
}
