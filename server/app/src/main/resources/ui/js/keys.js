// Validity keys: nanoseconds since the epoch for time folders, (run << 32) | lumi for run-lumi folders.
// A key is read in the terms of the folder (or field) it is for: in a run-lumi field a bare number is the run, in a
// time field it is a key (ns since 1970); a form that belongs to the other key type is refused, not reinterpreted.
import { KEY_MAX } from './api.js';

export const TIME = 'time';
export const RUN_LUMI = 'run-lumi';

const NS_PER_MS = 1000000n;
const LUMI_BITS = 32n;
const MAX_RUN = (1n << 31n) - 1n;
const MAX_LUMI = (1n << 32n) - 1n;
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|[+-]\d{2}:\d{2})?$/;
const RUN_AND_LUMI = /^(\d+)[/:](\d+)$/;
const NUMBER = /^\d+$/;

/** How a key of each key type is written, for messages. */
const HOW = {
  [TIME]: 'write a UTC time (2026-01-01T05:00:00Z), a key in ns since 1970 or max',
  [RUN_LUMI]: 'write a run (302), RUN/LUMI (302/17) or max',
};

/** What a key field of a key type takes, for its placeholder. */
export function keyHint(keyType) {
  if (keyType === RUN_LUMI) return 'run (302) or RUN/LUMI (302/17)';
  if (keyType === TIME) return 'UTC time (2026-01-01T05:00:00Z)';
  return 'key';
}

/** A key as people read it: an ISO time (UTC) or run/lumi; "max" for the open end. */
export function formatKey(key, keyType) {
  if (key >= KEY_MAX) return 'max';
  if (keyType === RUN_LUMI) return `${runOf(key)}/${lumiOf(key)}`;
  if (keyType === TIME) {
    const ms = key / NS_PER_MS;
    const rest = key % NS_PER_MS;
    const iso = new Date(Number(ms)).toISOString();
    if (rest === 0n) return iso.endsWith('.000Z') ? iso.replace('.000Z', 'Z') : iso;
    return iso.replace('Z', rest.toString().padStart(6, '0') + 'Z');
  }
  return key.toString();
}

export function runOf(key) {
  return key >> LUMI_BITS;
}

export function lumiOf(key) {
  return key & MAX_LUMI;
}

/** The key of lumi 0 of a run. */
export function runKey(run) {
  return BigInt(run) << LUMI_BITS;
}

/**
 * Reads a key typed or taken from a URL, for a folder or field of the given key type:
 * - run-lumi: a run (`302` = 302/0), RUN/LUMI or RUN:LUMI (`302/17`), `min`, `max`;
 * - time: an ISO date or date-time (UTC unless it names its offset), a decimal key (ns since 1970), `min`, `max`;
 * - either: `raw:N`, the stored key N.
 * Without a key type (not known yet) only the forms that mean the same in both are read; a bare number is refused.
 * Throws an Error saying what it expected, in the terms of the key type.
 */
export function parseKey(text, keyType) {
  const s = String(text).trim();
  if (s === 'max') return KEY_MAX;
  if (s === 'min') return 0n;
  // the stored number itself, spelt so that it cannot be taken for a run or a time (as the loader reads it)
  const raw = /^raw:(\d+)$/i.exec(s);
  if (raw) return checked(BigInt(raw[1]), s);
  const rl = RUN_AND_LUMI.exec(s);
  const iso = rl ? null : ISO.exec(s);
  if (keyType === RUN_LUMI) {
    if (NUMBER.test(s)) return runLumi(s, '0', s);
    if (rl) return runLumi(rl[1], rl[2], s);
    if (iso) throw new Error(`"${s}" is a time; here keys are runs: ${HOW[RUN_LUMI]}`);
    throw new Error(`"${s}" is not a run: ${HOW[RUN_LUMI]}`);
  }
  if (keyType === TIME) {
    if (NUMBER.test(s)) return checked(BigInt(s), s);
    if (iso) return time(iso, s);
    if (rl) throw new Error(`"${s}" is a run and lumi; here keys are times: ${HOW[TIME]}`);
    throw new Error(`"${s}" is not a time: ${HOW[TIME]}`);
  }
  if (rl) return runLumi(rl[1], rl[2], s);
  if (iso) return time(iso, s);
  if (NUMBER.test(s)) throw new Error(`"${s}" could be a run or a time: the key type is not known`);
  throw new Error(`"${s}" is not a key: write max, RUN/LUMI (e.g. 301/0) or a UTC time (e.g. 2026-01-01T05:00:00Z)`);
}

function runLumi(runText, lumiText, s) {
  const run = BigInt(runText);
  const lumi = BigInt(lumiText);
  if (run > MAX_RUN) throw new Error(`"${s}": run ${runText} is past the largest run (2^31-1)`);
  if (lumi > MAX_LUMI) throw new Error(`"${s}": lumi ${lumiText} is past the largest lumi (2^32-1)`);
  return (run << LUMI_BITS) | lumi;
}

function time(match, s) {
  const [, y, mo, d, h = '0', mi = '0', sec = '0', frac = '', zone = 'Z'] = match;
  if (+y < 1970) throw new Error(`"${s}" is not a time from 1970 on`);
  let ms = Date.UTC(+y, +mo - 1, +d, +h, +mi, +sec);
  const read = new Date(ms);
  if (read.getUTCFullYear() !== +y || read.getUTCMonth() !== +mo - 1 || read.getUTCDate() !== +d || read.getUTCHours() !== +h
    || read.getUTCMinutes() !== +mi || read.getUTCSeconds() !== +sec) {
    throw new Error(`"${s}" is not a date and time of the calendar`);
  }
  if (zone !== 'Z') {
    const sign = zone[0] === '-' ? -1 : 1;
    ms -= sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6))) * 60000;
  }
  if (Number.isNaN(ms) || ms < 0) throw new Error(`"${s}" is not a time from 1970 on`);
  return checked(BigInt(ms) * NS_PER_MS + BigInt(frac.padEnd(9, '0')), s);
}

function checked(key, s) {
  if (key > KEY_MAX) throw new Error(`"${s}" is past the largest key (2^63-1)`);
  return key;
}

/** A key for a URL or a form: the readable form when it reads back to the same key, else the decimal key. */
export function urlKey(key, keyType) {
  const s = formatKey(key, keyType);
  try {
    return parseKey(s, keyType) === key ? s : key.toString();
  } catch {
    return key.toString();
  }
}
