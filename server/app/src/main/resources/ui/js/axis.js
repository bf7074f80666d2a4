// Ticks of a key axis where people read them: run-lumi keys on whole runs (or on round lumi numbers inside a run
// when less than two runs are in view), times on round seconds, minutes, hours or days (UTC), other keys on round
// numbers.
import { RUN_LUMI, TIME, formatKey, lumiOf, runKey, runOf } from './keys.js';

const LUMIS_PER_RUN = 1n << 32n;
const MAX_LUMI_STEP = 1000000n;
const NS = { s: 1000000000n, min: 60000000000n, h: 3600000000000n, d: 86400000000000n };
const TIME_STEPS = [NS.s, 2n * NS.s, 5n * NS.s, 10n * NS.s, 15n * NS.s, 30n * NS.s, NS.min, 2n * NS.min, 5n * NS.min,
  10n * NS.min, 15n * NS.min, 30n * NS.min, NS.h, 2n * NS.h, 3n * NS.h, 6n * NS.h, 12n * NS.h, NS.d, 2n * NS.d,
  7n * NS.d];

/**
 * Ticks ({ key, label }) for the keys [lo, hi] (BigInt), about `count` of them at most, and the axis's title.
 */
export function keyTicks(lo, hi, keyType, count = 6) {
  if (hi <= lo) return { title: '', ticks: [{ key: lo, label: formatKey(lo, keyType) }] };
  if (keyType === RUN_LUMI) {
    const runs = runTicks(lo, hi, count);
    // Round lumi numbers only where they are numbers people read (a view of up to a few million lumis): the key
    // space of a run is 2^32 lumis, mostly empty, and 1010/2000000000 says nothing.
    const lumiStep = roundStep(ceilDiv(hi - lo, count));
    if (runs.length >= 2 || (runs.length === 1 && lumiStep > MAX_LUMI_STEP)) return { title: 'run', ticks: runs };
    return { title: 'run/lumi', ticks: lumiTicks(lo, hi, lumiStep) };
  }
  if (keyType === TIME) {
    const wanted = ceilDiv(hi - lo, count);
    const step = TIME_STEPS.find(s => s >= wanted) ?? NS.d * roundStep(wanted / NS.d);
    return { title: 'UTC', ticks: multiples(lo, hi, wanted < NS.s ? roundStep(wanted) : step, k => formatKey(k, TIME)) };
  }
  return { title: 'key', ticks: multiples(lo, hi, roundStep(ceilDiv(hi - lo, count)), k => k.toString()) };
}

/** Lumi 0 of every step-th run in [lo, hi], labelled with the run alone. */
function runTicks(lo, hi, count) {
  const first = runOf(lo) + (lumiOf(lo) === 0n ? 0n : 1n);
  const last = runOf(hi);
  if (last < first) return [];
  const step = roundStep(ceilDiv(last - first, count));
  const ticks = [];
  for (let run = ((first + step - 1n) / step) * step; run <= last; run += step) {
    ticks.push({ key: runKey(run), label: run.toString() });
  }
  return ticks;
}

/** Multiples of step as lumi numbers inside each run in view (less than two runs wide), labelled RUN/LUMI. */
function lumiTicks(lo, hi, step) {
  const ticks = [];
  for (let run = runOf(lo); run <= runOf(hi); run++) {
    const base = runKey(run);
    const from = lo > base ? lo - base : 0n;
    const to = hi - base < LUMIS_PER_RUN ? hi - base : LUMIS_PER_RUN - 1n;
    for (let lumi = ((from + step - 1n) / step) * step; lumi <= to; lumi += step) {
      ticks.push({ key: base + lumi, label: `${run}/${lumi}` });
    }
  }
  return ticks;
}

/** Every multiple of step in [lo, hi]. */
function multiples(lo, hi, step, label) {
  const ticks = [];
  for (let k = ((lo + step - 1n) / step) * step; k <= hi; k += step) ticks.push({ key: k, label: label(k) });
  return ticks;
}

function ceilDiv(n, count) {
  return (n + BigInt(count) - 1n) / BigInt(count);
}

/** The smallest of 1, 2, 5, 10, 20, 50, … that is at least n (and at least 1). */
function roundStep(n) {
  for (let p = 1n; ; p *= 10n) {
    for (const m of [1n, 2n, 5n]) {
      if (m * p >= n) return m * p;
    }
  }
}

/**
 * A range picked on the plot (a drag, a zoom out), rounded outwards to whole runs when it spans at least a run of
 * a run-lumi folder: the URL and the summary then read 300/0 to 305/0, not the keys under the pointer.
 */
export function roundRange(from, to, keyType, max) {
  if (keyType !== RUN_LUMI || to - from < LUMIS_PER_RUN) return [from, to];
  const start = runKey(runOf(from));
  const endRun = runOf(to) + (lumiOf(to) === 0n ? 0n : 1n);
  const end = endRun > runOf(max) ? max : runKey(endRun);
  return [start, end];
}
