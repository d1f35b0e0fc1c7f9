/**
 * The function libraries of kgraph's CEL environment (design/graph.md §16): the cel-go extensions kro
 * enables, the Kubernetes libraries and kro's own, each a `CelLibrary` that declares its functions' types
 * (for the checker) and implementations. `allLibraries` is what `baseEnvironment()` installs.
 */
import { encodersLibrary } from './encoders.ts';
import { formatLibrary } from './format.ts';
import { ipLibrary } from './ip.ts';
import { k8sListsLibrary } from './k8s-lists.ts';
import { kroHashLibrary } from './kro-hash.ts';
import { kroJsonLibrary } from './kro-json.ts';
import { kroListsLibrary } from './kro-lists.ts';
import { kroMapsLibrary } from './kro-maps.ts';
import { kroRandomLibrary } from './kro-random.ts';
import { kroRuntimeLibrary } from './kro-runtime.ts';
import type { CelLibrary } from './library.ts';
import { listsLibrary } from './lists.ts';
import { omitLibrary } from './omit.ts';
import { quantityLibrary } from './quantity.ts';
import { regexLibrary } from './regex.ts';
import { semverLibrary } from './semver.ts';
import { stringsLibrary } from './strings.ts';
import { urlLibrary } from './url.ts';

export { CONDITION_TYPE, RuntimeCondition } from './kro-runtime.ts';
export type { CelLibrary } from './library.ts';
export { isOmit, OMIT, OmitSentinel } from './omit.ts';

/** Every function library of kgraph's CEL environment (design/graph.md §16), in install order. */
export const allLibraries: CelLibrary[] = [
  stringsLibrary,
  formatLibrary,
  listsLibrary,
  encodersLibrary,
  k8sListsLibrary,
  regexLibrary,
  urlLibrary,
  quantityLibrary,
  ipLibrary,
  semverLibrary,
  kroRandomLibrary,
  kroMapsLibrary,
  kroJsonLibrary,
  kroHashLibrary,
  kroListsLibrary,
  omitLibrary,
  kroRuntimeLibrary,
];
