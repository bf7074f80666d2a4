// A snapshot of a global tag (or HEAD): every folder's objects valid at a time (time folders) and a run (run-lumi
// folders), as one answer of the service (small folders inline, big ones by their pinned URL, fetched when opened).
// The page asks for the keys the global tag's folders need, and reads each in its own terms: a run field takes a
// run (302) or RUN/LUMI (302/17), a time field a UTC time.
import { get, getUrl, nodes, records, typed } from './api.js';
import { RUN_LUMI, TIME, formatKey, parseKey } from './keys.js';
import { el, pageLink, params, table, ready, run, count } from './dom.js';
import { keysNeeded, keysWanted, setUpSnapshotForm } from './snapshotform.js';

run(async () => {
  const p = params();
  const gt = p.get('gt');
  if (!gt) throw new Error('this page shows the snapshot of a global tag: pick one under "Global tags" on the start page');
  const tText = p.get('t')?.trim() || '';
  const rText = p.get('r')?.trim() || '';
  const folders = await foldersOf(gt);
  const needs = keysNeeded(folders);
  setUpSnapshotForm(gt, needs, { t: tText, r: rText });
  const name = gt === 'HEAD' ? 'HEAD (every folder)' : gt;
  document.getElementById('title').textContent = `Snapshot of ${name}`;
  document.title = `Snapshot ${gt} · Outpost conditions`;
  if (!folders.length) {
    say(`${name} reaches no folders yet, so its snapshot is empty.`);
    return ready();
  }
  const holds = `${name} reads ${[needs.time && plural(needs.time, 'time folder'), needs.run && plural(needs.run, 'run-lumi folder')]
    .filter(Boolean).join(' and ')}, so its snapshot is read at ${keysWanted(needs)}`;
  const missing = [needs.time && !tText && 'time', needs.run && !rText && 'run'].filter(Boolean);
  if (missing.length) {
    const how = { time: 'a UTC time such as 2026-01-01T05:00:00Z', run: 'a run such as 302, or 302/17 for one lumi block' };
    say(`${holds}. Give the ${missing.join(' and the ')}: ${missing.map(m => how[m]).join('; ')}.`);
    document.getElementById(missing[0] === 'time' ? 'snapshot-t' : 'snapshot-r').focus();
    return ready();
  }
  const t = needs.time ? parseKey(tText, TIME) : null;
  const r = needs.run ? parseKey(rText, RUN_LUMI) : null;
  const unused = [!needs.time && tText && `the time (${name} has no time folders)`,
    !needs.run && rText && `the run (${name} has no run-lumi folders)`].filter(Boolean);
  say(`${holds}.${unused.length ? ` Not used: ${unused.join(' and ')}.` : ''}`);
  const at = [t !== null && formatKey(t, TIME), r !== null && `run ${formatKey(r, RUN_LUMI)}`].filter(Boolean).join(', ');
  document.getElementById('title').textContent = `Snapshot of ${name} at ${at}`;

  const keys = [t, r].filter(k => k !== null).join(',');
  const { answer, headers } = await get(`/snapshot/${encodeURIComponent(gt)}/${keys}`);
  document.getElementById('summary').replaceChildren(
    `${plural(answer.rows.length, 'folder')} at ${at}. The same answer holds for ${validity(headers, t, r)}. Pinned URL: `,
    el('code', {}, headers.get('X-Outpost-Snapshot') ?? '—'), '. ',
    gt === 'HEAD' ? '' : pageLink('globaltag.html', { gt }, `About ${gt}`));
  const box = document.getElementById('folders');
  box.replaceChildren();
  for (const f of records(answer)) {
    const body = el('div', {}, f.answer ? iovTable(typed(f.answer), f.keyType) : el('p', {}, 'loading…'));
    const details = el('details', { class: 'snapshot-folder' },
      el('summary', {}, f.folder, el('span', { class: 'meta' }, ` ${f.tag} · ${plural(f.rows, 'object')}`)),
      body);
    if (f.url) {
      details.addEventListener('toggle', () => {
        if (!details.open || body.dataset.loaded) return;
        body.dataset.loaded = 'true';
        getUrl(new URL(f.url, location.origin).href, f.url).then(
          res => body.replaceChildren(iovTable(res.answer, f.keyType)),
          e => body.replaceChildren(el('p', { role: 'alert' }, `Cannot read ${f.url}: ${e.message}`)));
      });
    }
    box.append(details);
  }
  ready();
});

/** The folders (with their key types) a snapshot of the global tag, or of HEAD, reads. */
async function foldersOf(gt) {
  if (gt === 'HEAD') return (await nodes()).filter(n => n.folder);
  const globalTags = records((await get('/globaltags')).answer);
  if (!globalTags.some(g => g.name === gt)) {
    throw new Error(`there is no global tag ${gt}; the global tags are: ${globalTags.map(g => g.name).join(', ') || 'none'}`);
  }
  return records((await get('/resolve/' + encodeURIComponent(gt))).answer);
}

/** The keys the answer holds for, from X-Outpost-Valid-Since/-Until (one key, or a pair time,run). */
function validity(headers, t, r) {
  const since = (headers.get('X-Outpost-Valid-Since') ?? '').split(',');
  const until = (headers.get('X-Outpost-Valid-Until') ?? '').split(',');
  const parts = [];
  const types = [t !== null && TIME, r !== null && RUN_LUMI].filter(Boolean);
  types.forEach((keyType, i) => {
    const [a, b] = since.length === types.length ? [since[i], until[i]] : [since[0], until[0]];
    if (!/^\d+$/.test(a ?? '') || !/^\d+$/.test(b ?? '')) return;
    const range = `${formatKey(BigInt(a), keyType)} to ${formatKey(BigInt(b), keyType)}`;
    parts.push(keyType === TIME ? `times ${range}` : `runs ${range}`);
  });
  return parts.join(' and ') || 'these keys';
}

function say(text) {
  const box = document.getElementById('needs');
  box.textContent = text;
  box.hidden = false;
}

function plural(n, word) {
  return `${count(n)} ${word}${Number(n) === 1 ? '' : 's'}`;
}

function iovTable(answer, keyType) {
  const names = answer.columns.map(c => c.name);
  return table(`${answer.rows.length} objects of ${answer.folder} in ${answer.tag}`, names,
    answer.rows.map(r => r.map((v, i) => (names[i] === 'since' || names[i] === 'until' ? formatKey(v, keyType) : showValue(v)))));
}

function showValue(v) {
  return v === null ? 'NULL' : String(v);
}
