// Validity keys: nanoseconds since the epoch for time folders, (run << 32) | lumi for run-lumi folders.
import { KEY_MAX } from './api.js';

const NS_PER_MS = 1000000n;
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|[+-]\d{2}:\d{2})?$/;

/** A key as people read it: an ISO time (UTC) or run/lumi; "max" for the open end. */
export function formatKey(key, keyType) {
  if (key >= KEY_MAX) return 'max';
  if (keyType === 'run-lumi') return `${key >> 32n}/${key & 0xffffffffn}`;
  if (keyType === 'time') {
    const ms = key / NS_PER_MS;
    const rest = key % NS_PER_MS;
    const iso = new Date(Number(ms)).toISOString();
    if (rest === 0n) return iso.endsWith('.000Z') ? iso.replace('.000Z', 'Z') : iso;
    return iso.replace('Z', rest.toString().padStart(6, '0') + 'Z');
  }
  return key.toString();
}

/**
 * Reads a key typed or taken from a URL: "max", a decimal key, "run/lumi", or an ISO date-time (UTC unless it
 * names its offset). Throws an Error saying what it expected.
 */
export function parseKey(text) {
  const s = String(text).trim();
  if (s === 'max') return KEY_MAX;
  if (/^\d+$/.test(s)) return checked(BigInt(s), s);
  const rl = /^(\d+)\/(\d+)$/.exec(s);
  if (rl) {
    const lumi = BigInt(rl[2]);
    if (lumi > 0xffffffffn) throw new Error(`lumi section ${rl[2]} is over 2^32-1`);
    return checked((BigInt(rl[1]) << 32n) | lumi, s);
  }
  const t = ISO.exec(s);
  if (t) {
    const [, y, mo, d, h = '0', mi = '0', sec = '0', frac = '', zone = 'Z'] = t;
    let ms = Date.UTC(+y, +mo - 1, +d, +h, +mi, +sec);
    if (zone !== 'Z') {
      const sign = zone[0] === '-' ? -1 : 1;
      ms -= sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6))) * 60000;
    }
    if (Number.isNaN(ms) || ms < 0) throw new Error(`${s} is not a time from 1970 on`);
    return checked(BigInt(ms) * NS_PER_MS + BigInt(frac.padEnd(9, '0')), s);
  }
  throw new Error(`"${s}" is not a key: write max, a decimal key, run/lumi (e.g. 301/0) or a UTC time (e.g. 2026-01-01T05:00:00Z)`);
}

function checked(key, s) {
  if (key > KEY_MAX) throw new Error(`${s} is past the largest key (2^63-1)`);
  return key;
}

/** A key for a URL: the readable form when it reads back to the same key, else the decimal key. */
export function urlKey(key, keyType) {
  const s = formatKey(key, keyType);
  try {
    return parseKey(s) === key ? s : key.toString();
  } catch {
    return key.toString();
  }
}
