// A global tag: its lock and description, the tag every folder resolves to, and each folder's generation.
import { get, records } from './api.js';
import { el, pageLink, params, table, lockBadge, ready, run } from './dom.js';
import { keysNeeded, setUpSnapshotForm } from './snapshotform.js';

run(async () => {
  const name = params().get('gt');
  if (!name) throw new Error('this page needs a global tag, e.g. globaltag.html?gt=DEMO-GT-2026');
  const globalTags = records((await get('/globaltags')).answer);
  const gt = globalTags.find(g => g.name === name);
  if (!gt) throw new Error(`there is no global tag ${name}; the global tags are: ${globalTags.map(g => g.name).join(', ') || 'none'}`);
  const { answer, headers } = await get('/resolve/' + encodeURIComponent(name));
  const folders = records(answer);
  document.getElementById('title').textContent = `Global tag ${name}`;
  document.title = `${name} · Outpost conditions`;
  document.getElementById('about').replaceChildren(el('dl', {},
    el('dt', {}, 'Description'), el('dd', {}, gt.description || '—'),
    el('dt', {}, 'Lock'), el('dd', {}, lockBadge(gt.lock)),
    el('dt', {}, 'Inserted'), el('dd', {}, gt.insertionTime),
    el('dt', {}, 'State'), el('dd', {}, el('code', { id: 'state' }, headers.get('X-Outpost-State') ?? '—'))));
  document.getElementById('folders').replaceChildren(table(`${folders.length} folders`,
    ['Folder', 'Resolved tag', 'Lock', 'Versioning', 'Keys', 'Generation'],
    folders.map(f => [pageLink('folder.html', { f: f.folder }, f.folder),
      pageLink('timeline.html', { f: f.folder, tag: f.tag }, f.tag), lockBadge(f.lock), f.versioning, f.keyType,
      el('code', {}, f.generation)]), { id: 'resolved' }));
  setUpSnapshotForm(name, keysNeeded(folders));
  document.getElementById('compare-ga').value = name;
  const others = [...globalTags.map(g => g.name).filter(n => n !== name), 'HEAD'];
  document.getElementById('compare-gb').replaceChildren(
    ...others.map(n => el('option', { value: n }, n === 'HEAD' ? 'HEAD (every folder)' : n)));
  ready();
});
