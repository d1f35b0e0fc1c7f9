import { engineError, overrideFunction } from './engineOverrides.ts';

/**
 * Timestamp accessors with a time-zone argument. The engine hands the argument to
 * `toLocaleString`, which rejects the fixed offsets cel-go accepts (`"+11:00"`, `"-02:30"`, `"02:00"`);
 * we accept both offsets and IANA names.
 */
interface Civil {
  year: number;
  /** 0-based */
  month: number;
  /** 1-based */
  day: number;
  /** 0 = Sunday */
  weekday: number;
  hour: number;
  minute: number;
  second: number;
}

const OFFSET = /^([+-])?(\d{1,2}):(\d{2})$/;
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

export function civilTime(d: Date, zone: string): Civil {
  const offset = OFFSET.exec(zone);
  if (offset) {
    const minutes = (Number(offset[2]) * 60 + Number(offset[3])) * (offset[1] === '-' ? -1 : 1);
    const s = new Date(d.getTime() + minutes * 60_000);
    return {
      year: s.getUTCFullYear(),
      month: s.getUTCMonth(),
      day: s.getUTCDate(),
      weekday: s.getUTCDay(),
      hour: s.getUTCHours(),
      minute: s.getUTCMinutes(),
      second: s.getUTCSeconds(),
    };
  }
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    weekday: 'short',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(d);
  const get = (type: string): string => parts.find((p) => p.type === type)?.value ?? '0';
  return {
    year: Number(get('year')),
    month: Number(get('month')) - 1,
    day: Number(get('day')),
    weekday: WEEKDAYS.indexOf(get('weekday')),
    hour: Number(get('hour')),
    minute: Number(get('minute')),
    second: Number(get('second')),
  };
}

function dayOfYear(c: Civil): number {
  return Math.round((Date.UTC(c.year, c.month, c.day) - Date.UTC(c.year, 0, 1)) / 86_400_000);
}

const ACCESSORS: Record<string, (c: Civil, d: Date) => number> = {
  getFullYear: (c) => c.year,
  getMonth: (c) => c.month,
  getDate: (c) => c.day,
  getDayOfMonth: (c) => c.day - 1,
  getDayOfWeek: (c) => c.weekday,
  getDayOfYear: (c) => dayOfYear(c),
  getHours: (c) => c.hour,
  getMinutes: (c) => c.minute,
  getSeconds: (c) => c.second,
  getMilliseconds: (_c, d) => d.getUTCMilliseconds(),
};

export function installTimezoneAccessors(): void {
  for (const [name, fn] of Object.entries(ACCESSORS)) {
    overrideFunction(
      `google.protobuf.Timestamp.${name}(string): int`,
      () =>
        ((d: Date, zone: string) => {
          let civil: Civil;
          try {
            civil = civilTime(d, zone);
          } catch {
            throw engineError('invalid_argument', `invalid time zone: ${JSON.stringify(zone)}`);
          }
          return BigInt(fn(civil, d));
        }) as never,
    );
  }
}
