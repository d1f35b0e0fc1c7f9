/**
 * The name of an RGD's GraphRevision (design/rgd.md §19.5), kro's form: `<rgd>-r00001`, the number padded to
 * five digits so names sort by revision. Past 253 characters the RGD name is cut and an FNV-32a hash of the
 * whole RGD name is appended, so two long names with the same prefix never share revision names. Pure.
 */

const MAX_NAME = 253;

export function fnv32a(text: string): string {
  let h = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

export function graphRevisionName(rgdName: string, revision: number): string {
  const number = `-r${String(revision).padStart(5, '0')}`;
  if (rgdName.length + number.length <= MAX_NAME) return rgdName + number;
  const suffix = `${number}-${fnv32a(rgdName)}`;
  // The cut may end on '.' or '-', which a DNS subdomain may not end a segment with.
  const head = rgdName.slice(0, MAX_NAME - suffix.length).replace(/[.-]+$/, '');
  return (head === '' ? 'gr' : head) + suffix;
}
