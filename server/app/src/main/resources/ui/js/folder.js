// A folder: what it holds (payload specification, tags, channels) and links to its timelines and tag diffs.
// A folder may have many thousands of channels: the table shows one window of them at a time.
import { KEY_MAX, get, nodePath, nodes, records } from './api.js';
import { el, pageLink, params, setParams, table, lockBadge, ready, run, count } from './dom.js';

const WINDOW = 100;

run(async () => {
  const path = params().get('f');
  if (!path || !path.startsWith('/')) throw new Error('this page needs a folder path, e.g. folder.html?f=/DEMO/Calo/Gains');
  const all = await nodes();
  const node = all.find(n => n.path === path);
  if (!node) throw new Error(`there is no folder or folderset ${path} in this database`);
  document.getElementById('title').textContent = node.path;
  document.title = `${node.path} · Outpost conditions`;
  if (!node.folder) {
    showFolderset(node, all);
    ready();
    return;
  }
  const p = nodePath(path);
  const [channels, tags] = await Promise.all([
    get('/channels' + p).then(r => records(r.answer)),
    node.versioning === 'MV' ? get('/tags' + p).then(r => records(r.answer)) : Promise.resolve([])]);
  showAbout(node, channels.length);
  showPayload(node);
  showTags(node, tags);
  showChannels(node, channels);
  ready();
  // The IOV count scans the folder's HEAD: asked after the page is drawn (a cacheable count, never the rows).
  get(`/count/HEAD/0/${KEY_MAX}/all${p}`).then(r => {
    document.getElementById('iov-count').textContent = count(r.answer.rows[0][0]);
  }, e => {
    document.getElementById('iov-count').textContent = `not known (${e.message})`;
  });
});

function showFolderset(node, all) {
  const prefix = node.path === '/' ? '/' : node.path + '/';
  const inside = all.filter(n => n.path !== node.path && n.path.startsWith(prefix) && n.folder);
  document.getElementById('about').replaceChildren(
    el('p', {}, `Folderset. ${node.description ?? ''}`),
    table(`${inside.length} folders under ${node.path}`, ['Folder', 'Versioning', 'Keys', 'Description'],
      inside.map(n => [pageLink('folder.html', { f: n.path }, n.path), n.versioning, n.keyType, n.description])));
  for (const id of ['payload', 'tags', 'channels']) document.getElementById(id).closest('section').hidden = true;
}

function showAbout(node, channelCount) {
  document.getElementById('about').replaceChildren(el('dl', {},
    el('dt', {}, 'Description'), el('dd', {}, node.description || '—'),
    el('dt', {}, 'Versioning'), el('dd', {}, node.versioning === 'MV' ? 'multi-version (MV)' : 'single-version (SV)'),
    el('dt', {}, 'Keys'), el('dd', {}, node.keyType === 'time' ? 'time (ns since 1970, UTC)' : 'run/lumi'),
    el('dt', {}, 'Channels'), el('dd', { id: 'channel-count' }, count(channelCount)),
    el('dt', {}, 'IOVs at HEAD'), el('dd', { id: 'iov-count' }, 'counting…'),
    el('dt', {}, 'Timeline'), el('dd', {}, pageLink('timeline.html', { f: node.path }, 'IOV timeline at HEAD'))));
}

function showPayload(node) {
  const fields = (node.payloadSpec ?? '').split(',').filter(Boolean).map(f => f.split(':'));
  document.getElementById('payload').replaceChildren(
    el('p', {}, el('code', {}, node.payloadSpec || '(none)')),
    table('Payload fields', ['Field', 'Type'], fields.map(([name, type]) => [name, type])));
}

function showTags(node, tags) {
  const box = document.getElementById('tags');
  if (node.versioning !== 'MV') {
    box.replaceChildren(el('p', {}, 'A single-version folder has no tags: every read is at its HEAD.'));
    return;
  }
  const names = ['HEAD', ...tags.map(t => t.name)];
  const select = (id, label, pick) => [el('label', { for: id }, label), ' ',
    el('select', { id, name: id }, names.map((n, i) => el('option', { value: n, selected: i === pick }, n))), ' '];
  box.replaceChildren(
    tags.length
      ? table(`${tags.length} tag${tags.length === 1 ? '' : 's'}`, ['Tag', 'Kind', 'Lock', 'Description', 'Inserted', ''],
        tags.map(t => [t.name, t.kind, lockBadge(t.lock), t.description, t.insertionTime,
          pageLink('timeline.html', { f: node.path, tag: t.name }, `timeline of ${t.name}`)]))
      : el('p', {}, 'No tags yet.'),
    el('form', { action: 'diff.html', id: 'tag-compare' },
      el('fieldset', {}, el('legend', {}, 'Compare two tags'),
        el('input', { type: 'hidden', name: 'f', value: node.path }),
        select('a', 'First', Math.min(1, names.length - 1)), select('b', 'Second', Math.min(2, names.length - 1)),
        el('button', { type: 'submit' }, 'Compare'))));
}

function showChannels(node, channels) {
  const filter = document.getElementById('cq');
  filter.value = params().get('cq') ?? '';
  let start = Math.max(0, Number(params().get('cp') ?? 0) | 0);
  const draw = () => {
    const q = filter.value.trim().toLowerCase();
    const shown = q ? channels.filter(c => String(c.channel) === q || (c.name ?? '').toLowerCase().includes(q)) : channels;
    if (start >= shown.length) start = Math.max(0, shown.length - WINDOW);
    const p = params();
    if (q) p.set('cq', q); else p.delete('cq');
    if (start) p.set('cp', start); else p.delete('cp');
    setParams(p);
    const windowed = shown.slice(start, start + WINDOW);
    const nav = el('p', { class: 'pager' },
      el('button', { type: 'button', disabled: start === 0, id: 'channels-prev' }, 'Previous'), ' ',
      `channels ${shown.length ? count(start + 1) : 0}–${count(start + windowed.length)} of ${count(shown.length)}`, ' ',
      el('button', { type: 'button', disabled: start + WINDOW >= shown.length, id: 'channels-next' }, 'Next'));
    nav.querySelector('#channels-prev').addEventListener('click', () => { start = Math.max(0, start - WINDOW); draw(); });
    nav.querySelector('#channels-next').addEventListener('click', () => { start += WINDOW; draw(); });
    document.getElementById('channels').replaceChildren(nav,
      table(`Channels of ${node.path}`, ['Channel', 'Name', 'Description', ''],
        windowed.map(c => [String(c.channel), c.name, c.description,
          pageLink('timeline.html', { f: node.path, ch: c.channel }, `timeline of channel ${c.channel}`)]),
        { id: 'channel-table' }));
  };
  filter.addEventListener('input', () => { start = 0; draw(); });
  document.getElementById('channel-filter').addEventListener('submit', e => e.preventDefault());
  draw();
}
