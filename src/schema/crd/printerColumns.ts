/**
 * The printer columns of a generated CRD: kro's defaults (State, Ready, Age) unless the RGD sets
 * `additionalPrinterColumns`, in which case exactly those are used. A priority of 0 is not written:
 * kro's CRD types omit it (omitempty), so the generated CRDs are byte-for-byte comparable.
 */
import type { PrinterColumn } from './rgdSchema.ts';

export const DEFAULT_PRINTER_COLUMNS: readonly PrinterColumn[] = [
  {
    name: 'State',
    type: 'string',
    jsonPath: '.status.state',
    description: 'The state of a ResourceGraphDefinition instance',
  },
  {
    name: 'Ready',
    type: 'string',
    jsonPath: '.status.conditions[?(@.type=="Ready")].status',
    description: 'Whether a ResourceGraphDefinition instance is ready',
  },
  {
    name: 'Age',
    type: 'date',
    jsonPath: '.metadata.creationTimestamp',
    description: 'Age of the resource',
  },
];

export function printerColumnsFor(additional: readonly PrinterColumn[] | undefined): PrinterColumn[] {
  const source = additional && additional.length > 0 ? additional : DEFAULT_PRINTER_COLUMNS;
  return source.map((c) => ({ ...c }));
}
