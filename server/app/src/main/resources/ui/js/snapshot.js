// A snapshot of a global tag (or HEAD) at one key, or at a time and a run-lumi key for a global tag holding both
// kinds of folders: every folder's objects valid there, as one answer of the service (small folders inline, big
// ones by their pinned URL, fetched when opened).
import { get, getUrl, nodes, records, typed } from './api.js';
import { formatKey, parseKey } from './keys.js';
import { el, pageLink, params, table, ready, run, count } from './dom.js';

run(async () => {
  const gt = params().get('gt');
  const tText = params().get('t');
  if (!gt || !tText) throw new Error('this page needs a global tag and a key, e.g. snapshot.html?gt=DEMO-GT-2026&t=2026-01-01T05:00:00Z');
  const t = parseKey(tText);
  const rText = params().get('r');
  const keys = rText ? `${t},${parseKey(rText)}` : `${t}`;
  const [all, { answer, headers }] = await Promise.all([nodes(), get(`/snapshot/${encodeURIComponent(gt)}/${keys}`)]);
  const keyType = new Map(all.map(n => [n.path, n.keyType]));
  document.getElementById('title').textContent = `Snapshot of ${gt} at ${tText}${rText ? ` and run ${rText}` : ''}`;
  document.getElementById('summary').replaceChildren(
    rText ? `${answer.rows.length} folders, time folders at ${tText}, run-lumi folders at ${rText}. `
      : `${answer.rows.length} folders at key ${t} (${formatKey(t, 'time')} as a time, ${formatKey(t, 'run-lumi')} as run/lumi). `,
    `The same answer holds for keys ${headers.get('X-Outpost-Valid-Since')} to ${headers.get('X-Outpost-Valid-Until')}`
      + ` (time, run-lumi where both). Pinned URL: `,
    el('code', {}, headers.get('X-Outpost-Snapshot') ?? '—'), '. ',
    gt === 'HEAD' ? '' : pageLink('globaltag.html', { gt }, `About ${gt}`));
  const box = document.getElementById('folders');
  for (const f of records(answer)) {
    const body = el('div', {}, f.answer ? iovTable(typed(f.answer), keyType.get(f.folder)) : el('p', {}, 'loading…'));
    const details = el('details', { class: 'snapshot-folder' },
      el('summary', {}, f.folder, el('span', { class: 'meta' }, ` ${f.tag} · ${count(f.rows)} object${f.rows === 1n ? '' : 's'}`)),
      body);
    if (f.url) {
      details.addEventListener('toggle', () => {
        if (!details.open || body.dataset.loaded) return;
        body.dataset.loaded = 'true';
        getUrl(new URL(f.url, location.origin).href, f.url).then(
          r => body.replaceChildren(iovTable(r.answer, keyType.get(f.folder))),
          e => body.replaceChildren(el('p', { role: 'alert' }, `Cannot read ${f.url}: ${e.message}`)));
      });
    }
    box.append(details);
  }
  ready();
});

function iovTable(answer, keyType) {
  const names = answer.columns.map(c => c.name);
  return table(`${answer.rows.length} objects of ${answer.folder} in ${answer.tag}`, names,
    answer.rows.map(r => r.map((v, i) => (names[i] === 'since' || names[i] === 'until' ? formatKey(v, keyType) : showValue(v)))));
}

function showValue(v) {
  return v === null ? 'NULL' : String(v);
}
