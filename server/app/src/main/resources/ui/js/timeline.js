// IOV timeline of one folder: the IOVs of some channels over a key range, in a tag or HEAD, with one numeric
// payload field plotted against the key. The page asks for a count first and draws at most CAP IOVs: a bigger
// range gets a window of it (the most recent IOVs), found with counts, so a folder of millions of IOVs is never
// read whole. Every request is a canonical, cacheable URL of the native API.
import { KEY_MAX, get, nodePath, nodes, records, channelSpec } from './api.js';
import { RUN_LUMI, formatKey, keyHint, parseKey, urlKey } from './keys.js';
import { el, params, setParams, table, ready, run, count, showError, clearError } from './dom.js';
import { TimelinePlot } from './plot.js';
import { keyTicks, roundRange } from './axis.js';

const CAP = 20000;
const TARGET = 5000; // a window of about 5 IOVs per pixel column of the plot in all
const MAX_LANES = 64;
const TABLE_ROWS = 500;
const NUMERIC = new Set(['Bool', 'UChar', 'Int16', 'UInt16', 'Int32', 'UInt32', 'UInt63', 'Int64', 'Float', 'Double']);

let folder;
let folderPath;
let firstChannel;
let plot;

run(async () => {
  const path = params().get('f');
  if (!path) throw new Error('this page needs a folder path, e.g. timeline.html?f=/DEMO/Calo/Pedestals');
  prefetchCount(path);
  folder = (await nodes()).find(n => n.path === path && n.folder);
  if (!folder) throw new Error(`there is no folder ${path} in this database`);
  folderPath = nodePath(path);
  document.getElementById('title').textContent = `IOV timeline of ${path}`;
  document.title = `Timeline ${path} · Outpost conditions`;
  const [channels, tags] = await Promise.all([
    get('/channels' + folderPath).then(r => r.answer.rows),
    folder.versioning === 'MV' ? get('/tags' + folderPath).then(r => records(r.answer)) : Promise.resolve([])]);
  if (!channels.length) throw new Error(`${path} has no channels yet`);
  firstChannel = channels[0][0];
  document.getElementById('tag').replaceChildren(
    ...['HEAD', ...tags.map(t => t.name)].map(n => el('option', { value: n }, n)));
  const fields = (folder.payloadSpec ?? '').split(',').filter(Boolean).map(f => f.split(':'));
  document.getElementById('field').replaceChildren(el('option', { value: '' }, '(none)'),
    ...fields.filter(([, type]) => NUMERIC.has(type)).map(([name]) => el('option', { value: name }, name)));
  plot = new TimelinePlot(document.getElementById('plot'), document.getElementById('hover'),
    k => formatKey(k, folder.keyType), (lo, hi) => keyTicks(lo, hi, folder.keyType),
    (from, to) => navigate({ from, to }));
  document.getElementById('range-form').addEventListener('submit', e => {
    e.preventDefault();
    const form = new FormData(e.target);
    const p = params();
    for (const k of ['tag', 'ch', 'from', 'to', 'field']) {
      const v = String(form.get(k) ?? '').trim();
      if (v) p.set(k, v); else p.delete(k);
    }
    setParams(p, true);
    draw().catch(showError);
  });
  document.getElementById('zoom-out').addEventListener('click', () => {
    if (!plot.view) return;
    const { lo, hi } = plot.view;
    const half = (hi - lo) * 2n;
    navigate({ from: lo > half ? lo - half : 0n, to: KEY_MAX - hi > half ? hi + half : KEY_MAX });
  });
  window.addEventListener('popstate', () => draw().catch(showError));
  await draw();
});

/** Asks for the count draw() asks first for a given range while the folder is read (failures are draw()'s). */
function prefetchCount(path) {
  try {
    const p = params();
    if (!p.get('ch') || !(p.has('from') || p.has('to'))) return;
    const spec = channelSpec(channelList(p.get('ch')));
    // the folder's key type is not known yet: a bare number (a run or a time) is left to draw()
    const from = p.has('from') ? parseKey(p.get('from')) : 0n;
    const to = p.has('to') ? parseKey(p.get('to')) : KEY_MAX;
    get(`/count/${encodeURIComponent(p.get('tag') || 'HEAD')}/${from}/${to}/${spec}${nodePath(path)}`).catch(() => {});
  } catch {
    // draw() reports a bad channel list or key
  }
}

function navigate(range) {
  const [from, to] = roundRange(range.from, range.to, folder.keyType, KEY_MAX);
  const p = params();
  p.set('from', urlKey(from, folder.keyType));
  p.set('to', urlKey(to, folder.keyType));
  setParams(p, true);
  draw().catch(showError);
}

/** The channel ids of a spelling like "3" or "1-4,7" (at most MAX_LANES). */
function channelList(spec) {
  if (!/^\d+(-\d+)?(,\d+(-\d+)?)*$/.test(spec)) {
    throw new Error(`"${spec}" is not a channel list: write ids and ranges such as 3 or 1-4,7`);
  }
  const ids = [];
  for (const part of spec.split(',')) {
    const [a, b = a] = part.split('-').map(Number);
    if (b < a) throw new Error(`the channel range ${part} runs backwards`);
    if (ids.length + (b - a + 1) > MAX_LANES) throw new Error(`one timeline draws at most ${MAX_LANES} channels`);
    for (let c = a; c <= b; c++) ids.push(c);
  }
  return [...new Set(ids)].sort((x, y) => x - y);
}

async function draw() {
  clearError();
  document.documentElement.dataset.state = 'loading';
  const p = params();
  // the request as written, so that a mistake in it can be corrected in the form
  for (const k of ['ch', 'from', 'to']) document.getElementById(k).value = p.get(k) ?? '';
  for (const k of ['from', 'to']) document.getElementById(k).placeholder = keyHint(folder.keyType);
  const tag = p.get('tag') || 'HEAD';
  const lanes = channelList(p.get('ch') || String(firstChannel));
  const spec = channelSpec(lanes);
  let from = p.has('from') ? parseKey(p.get('from'), folder.keyType) : 0n;
  let to = p.has('to') ? parseKey(p.get('to'), folder.keyType) : KEY_MAX;
  if (from > to) throw new Error('the range starts after it ends');
  const fieldName = p.get('field') ?? (document.getElementById('field').options[1]?.value || '');
  document.getElementById('tag').value = tag;
  document.getElementById('ch').value = spec;
  document.getElementById('field').value = fieldName;

  const range = (a, b) => `/${encodeURIComponent(tag)}/${a}/${b}/${spec}`;
  const countOf = async (a, b) => Number((await get(`/count${range(a, b)}${folderPath}`)).answer.rows[0][0]);
  // An asked range is counted first: up to CAP IOVs are drawn whole. Without one, the latest window is looked for
  // at once, so a folder of millions of IOVs is never counted whole before the first paint.
  const asked = p.has('from') || p.has('to');
  const total = asked ? await countOf(from, to) : null;
  const askedFrom = from;
  const askedTo = to;
  if (total === null || total > CAP) {
    [from, to] = await findWindow(tag, spec, lanes.length, from, to, total, countOf);
    [from, to] = await wholeRuns(from, to, askedFrom, askedTo, countOf);
    if (from > askedFrom || to < askedTo) {
      p.set('from', urlKey(from, folder.keyType));
      p.set('to', urlKey(to, folder.keyType));
      setParams(p);
    }
  }
  const windowNote = n => ` The range ${formatKey(askedFrom, folder.keyType)} to ${formatKey(askedTo, folder.keyType)}`
    + ` holds ${count(n)} IOVs: this is its latest window (one view draws at most ${count(CAP)}); zoom out or`
    + ' change the range to see other parts.';
  const note = total !== null && total > CAP ? windowNote(total) : '';
  const { answer } = await get(`/browse${range(from, to)}/cs${folderPath}`);
  performance.mark('outpost-rows');
  const field = answer.columns.findIndex((c, i) => i >= 3 && c.name === fieldName);
  // an end the page chose may lie far past the last IOV (the search halves empty ranges): drawn like an open end
  const [lo, hi] = domain(answer.rows, from, to, folder.keyType, to === KEY_MAX || to < askedTo);
  const drawn = plot.draw({ rows: answer.rows, columns: answer.columns, lanes, field, lo, hi });
  const canvas = document.getElementById('plot');
  canvas.dataset.iovs = String(drawn);
  canvas.setAttribute('aria-label', `Timeline of ${drawn} IOVs of ${folder.path} in ${tag}, channels ${spec}, `
    + `from ${formatKey(lo, folder.keyType)} to ${formatKey(hi, folder.keyType)}`);
  document.getElementById('summary').replaceChildren(
    el('span', { id: 'drawn' }, `${count(drawn)} IOV${drawn === 1 ? '' : 's'}`),
    ` of channel${lanes.length === 1 ? '' : 's'} ${spec} in ${tag}, keys ${formatKey(from, folder.keyType)} to `
    + `${formatKey(to, folder.keyType)}.${note}`);
  if (total === null && from > askedFrom) {
    // how much the window leaves out, said once the page is drawn
    countOf(askedFrom, askedTo).then(n => {
      if (n > drawn) document.getElementById('summary').append(windowNote(n));
    }, () => {});
  }
  document.getElementById('from').value = from === 0n ? '0' : urlKey(from, folder.keyType);
  document.getElementById('to').value = urlKey(to, folder.keyType);
  valuesTable(answer);
  ready();
}

/** The values as a table (the first TABLE_ROWS IOVs), built when its disclosure is first opened. */
function valuesTable(answer) {
  const details = document.getElementById('values');
  const box = document.getElementById('values-table');
  box.replaceChildren();
  const build = () => {
    if (!details.open || box.firstChild) return;
    box.append(table(
      answer.rows.length > TABLE_ROWS ? `The first ${TABLE_ROWS} of ${count(answer.rows.length)} IOVs` : `${answer.rows.length} IOVs`,
      answer.columns.map(c => c.name), answer.rows.slice(0, TABLE_ROWS).map(r => r.map((v, i) => (i === 1 || i === 2
        ? formatKey(v, folder.keyType) : v === null ? 'NULL' : String(v))))));
  };
  details.ontoggle = build;
  build();
}

/**
 * The keys to draw: the asked range, narrowed to the data where the range is open (0 or max); an open end of a
 * run-lumi folder ends on a whole run.
 */
function domain(rows, from, to, keyType, openEnd) {
  if (!rows.length) return [from, to];
  let first = rows[0][1];
  let last = 0n;
  for (const r of rows) {
    if (r[1] < first) first = r[1];
    const end = r[2] === KEY_MAX ? r[1] : r[2];
    if (end > last) last = end;
  }
  const lo = from > 0n || first < from ? from : first;
  let hi = to;
  if (openEnd) {
    const pad = (last - lo) / 20n || 1n;
    hi = last + pad < to ? last + pad : to;
    if (hi < to) hi = roundRange(lo, hi, keyType, to)[1];
  }
  return hi > lo ? [lo, hi] : [lo, lo + 1n];
}

/**
 * A window [start, to'] of at most CAP IOVs at the end of [from, to] (total: the range's count, null if not asked
 * yet). Its end is the last IOV valid at the end of the range (an "at" query); its width starts from the length of
 * the IOV before it and is corrected with counts, a few cacheable requests in all. Without an IOV at the end, the
 * whole range is drawn if it fits, else halving the range with counts finds the window.
 */
async function findWindow(tag, spec, lanes, from, to, total, countOf) {
  const at = async k => {
    try {
      return (await get(`/at/${encodeURIComponent(tag)}/${k}/${spec}${folderPath}`)).answer.rows;
    } catch {
      return [];
    }
  };
  const last = await at(to === KEY_MAX ? KEY_MAX - 1n : to);
  if (last.length) {
    const lastSince = last.reduce((m, r) => (r[1] > m ? r[1] : m), 0n);
    const before = lastSince > from ? await at(lastSince - 1n) : [];
    const step = before.length ? lastSince - before.reduce((m, r) => (r[1] < m ? r[1] : m), lastSince) : 0n;
    let width = step > 0n ? step * BigInt(Math.ceil(TARGET / lanes)) : 0n;
    let previous = -1;
    for (let i = 0; i < 8 && width > 0n; i++) {
      const start = to - from > width ? (lastSince > width ? lastSince - width : 0n) : from;
      const startClamped = start < from ? from : start;
      const c = await countOf(startClamped, to);
      if (c <= CAP && (c >= TARGET / 8 || startClamped === from)) return [startClamped, to];
      if (c === previous) {
        // widening found nothing more: a small folder, drawn whole if it fits
        total ??= await countOf(from, to);
        if (total <= CAP) return [from, to];
      }
      previous = c;
      width = c > CAP ? scale(width, TARGET / c) : scale(width, Math.min(8, TARGET / Math.max(c, 1)));
    }
  }
  total ??= await countOf(from, to);
  if (total <= CAP) return [from, to];
  // Halving: the start moves up while the window holds too many IOVs; an empty top half is cut off.
  let lo = from;
  let hi = to;
  let end = to;
  for (let i = 0; i < 70 && hi > lo + 1n; i++) {
    const mid = lo + (hi - lo) / 2n;
    const c = await countOf(mid, end);
    if (c > CAP) lo = mid;
    else if (c === 0) { end = mid; hi = mid; }
    else if (c < TARGET / 8) hi = mid;
    else return [mid, end];
  }
  return [hi, end];
}

/**
 * A window the page chose in a run-lumi folder, widened to whole runs when that still fits (one more count): the
 * URL and the summary then read 1016/0 to 1031/0, not the keys the search happened to reach.
 */
async function wholeRuns(from, to, askedFrom, askedTo, countOf) {
  if (folder.keyType !== RUN_LUMI) return [from, to];
  const [start, end] = roundRange(from, to, RUN_LUMI, KEY_MAX);
  const wider = [start < askedFrom ? askedFrom : start, end > askedTo ? askedTo : end];
  if (wider[0] === from && wider[1] === to) return [from, to];
  return await countOf(wider[0], wider[1]) <= CAP ? wider : [from, to];
}

function scale(width, factor) {
  const w = BigInt(Math.max(1, Math.round(Number(width) * factor)));
  return w > 0n ? w : 1n;
}
