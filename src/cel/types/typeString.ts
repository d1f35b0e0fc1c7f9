/**
 * Reads and writes CEL type names in the engine's notation (`list<map<string, Foo>>`,
 * `optional<int>`, `google.protobuf.Timestamp`), so that checker output can be compared
 * structurally with schema-derived types.
 */
export interface TypeExpr {
  readonly name: string;
  readonly params: readonly TypeExpr[];
}

export function parseTypeString(text: string): TypeExpr {
  let i = 0;
  const skip = () => {
    while (text[i] === ' ') i++;
  };
  const parseOne = (): TypeExpr => {
    skip();
    const start = i;
    while (i < text.length && !'<>, '.includes(text[i]!)) i++;
    const name = text.slice(start, i);
    if (name === '') throw new Error(`invalid CEL type '${text}' at ${start}`);
    skip();
    const params: TypeExpr[] = [];
    if (text[i] === '<') {
      i++;
      for (;;) {
        params.push(parseOne());
        skip();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '>') {
          i++;
          break;
        }
        throw new Error(`invalid CEL type '${text}' at ${i}`);
      }
    }
    return normalize({ name, params });
  };
  const result = parseOne();
  skip();
  if (i !== text.length) throw new Error(`invalid CEL type '${text}' at ${i}`);
  return result;
}

const DYN: TypeExpr = { name: 'dyn', params: [] };

function normalize(t: TypeExpr): TypeExpr {
  if (t.name === 'list' && t.params.length === 0) return { name: 'list', params: [DYN] };
  if (t.name === 'map' && t.params.length === 0) return { name: 'map', params: [DYN, DYN] };
  if (t.name === 'timestamp') return { name: 'google.protobuf.Timestamp', params: [] };
  if (t.name === 'duration') return { name: 'google.protobuf.Duration', params: [] };
  if (t.name === 'null_type') return { name: 'null', params: [] };
  return t;
}

export function formatTypeString(t: TypeExpr): string {
  return t.params.length === 0 ? t.name : `${t.name}<${t.params.map(formatTypeString).join(', ')}>`;
}

/** Type parameters of generic results (`list<T>` of `[]`, `map<K, V>` of `{}`): one-letter names. */
export function isTypeParam(t: TypeExpr): boolean {
  return t.params.length === 0 && /^[A-Z]$/.test(t.name);
}

export const PRIMITIVE_TYPES = new Set([
  'int',
  'uint',
  'double',
  'string',
  'bool',
  'bytes',
  'null',
  'type',
  'google.protobuf.Timestamp',
  'google.protobuf.Duration',
]);
