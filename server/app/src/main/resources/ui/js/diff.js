// Differences between two tags of a folder (key ranges where the payloads differ or only one tag has an IOV),
// or between two global tags (folders added, removed, or resolved to other tags). HEAD is allowed on either side.
import { KEY_MAX, get, nodePath, nodes, records, channelSpec } from './api.js';
import { formatKey, keyHint, parseKey } from './keys.js';
import { el, pageLink, params, table, ready, run, count } from './dom.js';

const CAP = 50000;
const SHOWN = 1000;

run(async () => {
  const p = params();
  if (p.has('ga') || p.has('gb')) return globalTagDiff(p.get('ga') || 'HEAD', p.get('gb') || 'HEAD');
  if (p.has('f')) return tagDiff(p);
  throw new Error('this page compares two tags of a folder (diff.html?f=/A/F&a=T1&b=T2) or two global tags (diff.html?ga=GT1&gb=GT2)');
});

/** folder → { tag, generation } for a global tag, or every folder at HEAD. */
async function resolved(name) {
  const path = name === 'HEAD' ? '/state/HEAD' : '/resolve/' + encodeURIComponent(name);
  return new Map(records((await get(path)).answer).map(r => [r.folder, r]));
}

async function globalTagDiff(a, b) {
  document.getElementById('title').textContent = `Global tags ${a} and ${b}`;
  const [ra, rb] = await Promise.all([resolved(a), resolved(b)]);
  const onlyA = [...ra.keys()].filter(f => !rb.has(f));
  const onlyB = [...rb.keys()].filter(f => !ra.has(f));
  const other = [...ra.keys()].filter(f => rb.has(f) && ra.get(f).tag !== rb.get(f).tag);
  const same = [...ra.keys()].filter(f => rb.has(f) && ra.get(f).tag === rb.get(f).tag);
  const folderLink = f => pageLink('folder.html', { f }, f);
  const result = document.getElementById('result');
  result.replaceChildren(
    table(`${other.length} folder${other.length === 1 ? '' : 's'} resolved to other tags`,
      ['Folder', `Tag in ${a}`, `Tag in ${b}`, ''],
      other.map(f => [folderLink(f), ra.get(f).tag, rb.get(f).tag,
        pageLink('diff.html', { f, a: ra.get(f).tag, b: rb.get(f).tag }, 'compare the tags')]), { id: 'other-tags' }),
    table(`${onlyA.length} folder${onlyA.length === 1 ? '' : 's'} only in ${a}`, ['Folder', 'Tag'],
      onlyA.map(f => [folderLink(f), ra.get(f).tag]), { id: 'only-a' }),
    table(`${onlyB.length} folder${onlyB.length === 1 ? '' : 's'} only in ${b}`, ['Folder', 'Tag'],
      onlyB.map(f => [folderLink(f), rb.get(f).tag]), { id: 'only-b' }),
    table(`${same.length} folder${same.length === 1 ? '' : 's'} resolved to the same tag`, ['Folder', 'Tag'],
      same.map(f => [folderLink(f), ra.get(f).tag])));
  document.getElementById('summary').textContent = other.length + onlyA.length + onlyB.length === 0
    ? `${a} and ${b} resolve every folder to the same tag.`
    : `${other.length} folders resolved to other tags, ${onlyA.length} only in ${a}, ${onlyB.length} only in ${b}.`;
  ready();
}

async function tagDiff(p) {
  const path = p.get('f');
  const folder = (await nodes()).find(n => n.path === path && n.folder);
  if (!folder) throw new Error(`there is no folder ${path} in this database`);
  const fp = nodePath(path);
  const tags = folder.versioning === 'MV' ? records((await get('/tags' + fp)).answer).map(t => t.name) : [];
  const a = p.get('a') || 'HEAD';
  const b = p.get('b') || 'HEAD';
  const spec = p.get('ch') || 'all';
  if (spec !== 'all' && !/^\d+(-\d+)?(,\d+(-\d+)?)*$/.test(spec)) throw new Error(`"${spec}" is not a channel list`);
  fillForm(path, ['HEAD', ...tags], a, b, p, folder.keyType);
  const from = p.has('from') ? parseKey(p.get('from'), folder.keyType) : 0n;
  const to = p.has('to') ? parseKey(p.get('to'), folder.keyType) : KEY_MAX;
  if (from > to) throw new Error('the range starts after it ends');
  const channels = spec === 'all' ? 'all' : canonical(spec);
  document.getElementById('title').textContent = `${path}: ${a} and ${b}`;

  const range = t => `/${encodeURIComponent(t)}/${from}/${to}/${channels}`;
  const [ca, cb] = await Promise.all([a, b].map(async t => Number((await get(`/count${range(t)}${fp}`)).answer.rows[0][0])));
  if (ca > CAP || cb > CAP) {
    throw new Error(`${a} has ${count(ca)} and ${b} ${count(cb)} IOVs in this range; this page compares at most `
      + `${count(CAP)} each: narrow the key range or the channels`);
  }
  const [ia, ib] = await Promise.all([a, b].map(async t => (await get(`/browse${range(t)}/cs${fp}`)).answer));
  const diffs = compare(ia.rows, ib.rows);
  const names = ia.columns.slice(3).map(c => c.name);
  const show = v => (v === null ? 'NULL' : String(v));
  const payload = r => (r ? names.map((n, i) => `${n}=${show(r[i + 3])}`).join(', ') : '(no IOV)');
  const key = k => formatKey(k, folder.keyType);
  document.getElementById('summary').textContent = diffs.length
    ? `${count(diffs.length)} key range${diffs.length === 1 ? '' : 's'} differ (${a}: ${count(ca)} IOVs, ${b}: ${count(cb)} IOVs).`
    : `${a} and ${b} hold the same payloads over this range (${count(ca)} and ${count(cb)} IOVs).`;
  document.getElementById('result').replaceChildren(table(
    diffs.length > SHOWN ? `The first ${SHOWN} differences` : `${diffs.length} differences`,
    ['Channel', 'From', 'To', a, b],
    diffs.slice(0, SHOWN).map(d => [String(d.channel), key(d.since), key(d.until), payload(d.a), payload(d.b)]),
    { id: 'differences' }));
  ready();
}

function canonical(spec) {
  const ids = [];
  for (const part of spec.split(',')) {
    const [x, y = x] = part.split('-').map(Number);
    if (y - x > 100000) return spec;
    for (let c = x; c <= y; c++) ids.push(c);
  }
  return channelSpec(ids);
}

function fillForm(path, tags, a, b, p, keyType) {
  document.getElementById('diff-form').hidden = false;
  document.getElementById('diff-f').value = path;
  for (const [id, pick] of [['a', a], ['b', b]]) {
    document.getElementById(id).replaceChildren(...tags.map(t => el('option', { value: t, selected: t === pick }, t)));
  }
  document.getElementById('dch').value = p.get('ch') ?? '';
  document.getElementById('dfrom').value = p.get('from') ?? '';
  document.getElementById('dto').value = p.get('to') ?? '';
  for (const id of ['dfrom', 'dto']) document.getElementById(id).title = keyHint(keyType);
}

/**
 * Key ranges where two IOV lists (sorted by channel, then since) differ: per channel, the keys are cut at every
 * since and until of either list, and each piece compares the payload valid there in each. Neighbouring pieces
 * with the same pair of IOVs are joined.
 */
export function compare(rowsA, rowsB) {
  const byChannel = rows => {
    const m = new Map();
    for (const r of rows) {
      if (!m.has(r[0])) m.set(r[0], []);
      m.get(r[0]).push(r);
    }
    return m;
  };
  const ma = byChannel(rowsA);
  const mb = byChannel(rowsB);
  const channels = [...new Set([...ma.keys(), ...mb.keys()])].sort((x, y) => x - y);
  const out = [];
  for (const ch of channels) {
    const la = ma.get(ch) ?? [];
    const lb = mb.get(ch) ?? [];
    const cuts = [...new Set([...la, ...lb].flatMap(r => [r[1], r[2]]))].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
    let ia = 0;
    let ib = 0;
    for (let i = 0; i + 1 < cuts.length; i++) {
      const k = cuts[i];
      while (ia < la.length && la[ia][2] <= k) ia++;
      while (ib < lb.length && lb[ib][2] <= k) ib++;
      const ra = ia < la.length && la[ia][1] <= k ? la[ia] : null;
      const rb = ib < lb.length && lb[ib][1] <= k ? lb[ib] : null;
      if (samePayload(ra, rb)) continue;
      const prev = out[out.length - 1];
      if (prev && prev.channel === ch && prev.until === k && prev.a === ra && prev.b === rb) prev.until = cuts[i + 1];
      else out.push({ channel: ch, since: k, until: cuts[i + 1], a: ra, b: rb });
    }
  }
  return out;
}

function samePayload(ra, rb) {
  if (ra === null || rb === null) return ra === rb;
  for (let i = 3; i < ra.length; i++) if (String(ra[i]) !== String(rb[i])) return false;
  return true;
}

