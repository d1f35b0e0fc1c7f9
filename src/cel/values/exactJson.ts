/**
 * JSON text with exact integers. JSON.parse rounds integers beyond 2^53 and JSON.stringify cannot
 * write BigInt; Kubernetes int64 fields need both. `ExactJson` holds integers as numbers within
 * ±(2^53-1) and as bigint beyond, which is what `parseJson` returns and `stringifyJson` writes.
 */
import { KgraphError } from '../../diag/diagnostic.ts';

/** JSON with exact integers: integral values beyond the safe range are bigint. */
export type ExactJson =
  | null
  | boolean
  | number
  | bigint
  | string
  | ExactJson[]
  | { [key: string]: ExactJson };

/** Code of errors raised when a value cannot be written as JSON (NaN, ±Infinity, unknown objects). */
export const VALUE_NOT_JSON = 'KG1201';

export const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

export function notJson(message: string): KgraphError {
  return new KgraphError(VALUE_NOT_JSON, message);
}

/** JSON text of `value`; bigint is written from its decimal digits. `indent` as in JSON.stringify. */
export function stringifyJson(value: ExactJson, indent?: number): string {
  // Fast path: without bigint (and non-finite numbers, which JSON.stringify would turn into null),
  // the engine's serializer gives the same text several times faster.
  if (isNativelySerializable(value)) return JSON.stringify(value, null, indent);
  const pad = indent === undefined || indent <= 0 ? '' : ' '.repeat(Math.min(indent, 10));
  const write = (v: ExactJson, depth: number): string => {
    if (v === null) return 'null';
    switch (typeof v) {
      case 'bigint':
        return v.toString();
      case 'number':
        if (!Number.isFinite(v)) throw notJson(`the double ${v} cannot be written as JSON`);
        return JSON.stringify(v);
      case 'string':
      case 'boolean':
        return JSON.stringify(v);
      default:
        break;
    }
    const inner = pad === '' ? '' : `\n${pad.repeat(depth + 1)}`;
    const outer = pad === '' ? '' : `\n${pad.repeat(depth)}`;
    const sep = pad === '' ? ':' : ': ';
    if (Array.isArray(v)) {
      if (v.length === 0) return '[]';
      return `[${v.map((item) => inner + write(item, depth + 1)).join(',')}${outer}]`;
    }
    const entries = Object.entries(v);
    if (entries.length === 0) return '{}';
    return `{${entries.map(([k, item]) => inner + JSON.stringify(k) + sep + write(item, depth + 1)).join(',')}${outer}}`;
  };
  return write(value, 0);
}

function isNativelySerializable(v: ExactJson): boolean {
  if (v === null) return true;
  switch (typeof v) {
    case 'bigint':
      return false;
    case 'number':
      return Number.isFinite(v);
    case 'string':
    case 'boolean':
      return true;
    default:
      break;
  }
  if (Array.isArray(v)) {
    for (const item of v) if (!isNativelySerializable(item)) return false;
    return true;
  }
  for (const key in v) if (!isNativelySerializable(v[key] as ExactJson)) return false;
  return true;
}

/**
 * Parses JSON text, keeping integers beyond ±(2^53-1) exact as bigint (JSON.parse would round
 * them). Integers within the safe range stay numbers, so the result is JSON.parse-compatible
 * whenever no big integer occurs. Throws SyntaxError on invalid JSON.
 */
export function parseJson(text: string): ExactJson {
  // Fast path: an unsafe integer needs at least 16 digits in a row.
  if (!/\d{16}/.test(text)) return JSON.parse(text) as ExactJson;
  return new ExactJsonParser(text).parseDocument();
}

const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
class ExactJsonParser {
  #pos = 0;
  readonly #text: string;

  constructor(text: string) {
    this.#text = text;
  }

  parseDocument(): ExactJson {
    const value = this.#value();
    this.#ws();
    if (this.#pos !== this.#text.length) this.#error('unexpected trailing characters');
    return value;
  }

  #value(): ExactJson {
    this.#ws();
    const c = this.#text[this.#pos];
    if (c === '{') return this.#object();
    if (c === '[') return this.#array();
    if (c === '"') return this.#string();
    for (const [word, v] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (this.#text.startsWith(word, this.#pos)) {
        this.#pos += word.length;
        return v;
      }
    }
    NUMBER.lastIndex = this.#pos;
    const m = NUMBER.exec(this.#text);
    if (m === null) return this.#error('unexpected character');
    this.#pos += m[0].length;
    if (m[1] === undefined && m[2] === undefined) {
      const big = BigInt(m[0]);
      return big > MAX_SAFE || big < -MAX_SAFE ? big : Number(m[0]);
    }
    return Number(m[0]);
  }

  #object(): ExactJson {
    const out: { [key: string]: ExactJson } = {};
    this.#pos++;
    this.#ws();
    if (this.#text[this.#pos] === '}') {
      this.#pos++;
      return out;
    }
    for (;;) {
      this.#ws();
      if (this.#text[this.#pos] !== '"') this.#error('expected a string key');
      const key = this.#string();
      this.#ws();
      if (this.#text[this.#pos] !== ':') this.#error("expected ':'");
      this.#pos++;
      Object.defineProperty(out, key, {
        value: this.#value(),
        enumerable: true,
        writable: true,
        configurable: true,
      });
      this.#ws();
      const c = this.#text[this.#pos++];
      if (c === '}') return out;
      if (c !== ',') this.#error("expected ',' or '}'", this.#pos - 1);
    }
  }

  #array(): ExactJson {
    const out: ExactJson[] = [];
    this.#pos++;
    this.#ws();
    if (this.#text[this.#pos] === ']') {
      this.#pos++;
      return out;
    }
    for (;;) {
      out.push(this.#value());
      this.#ws();
      const c = this.#text[this.#pos++];
      if (c === ']') return out;
      if (c !== ',') this.#error("expected ',' or ']'", this.#pos - 1);
    }
  }

  #string(): string {
    const start = this.#pos;
    let i = start + 1;
    while (i < this.#text.length && this.#text[i] !== '"') i += this.#text[i] === '\\' ? 2 : 1;
    if (i >= this.#text.length) this.#error('unterminated string', start);
    this.#pos = i + 1;
    return JSON.parse(this.#text.slice(start, i + 1)) as string;
  }

  #ws(): void {
    while (' \t\n\r'.includes(this.#text[this.#pos] ?? 'x')) this.#pos++;
  }

  #error(message: string, at = this.#pos): never {
    throw new SyntaxError(`invalid JSON at position ${at}: ${message}`);
  }
}
