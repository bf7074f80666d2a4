// The start page: the folder tree with a search, and the global tags.
import { get, nodes, records } from './api.js';
import { el, pageLink, params, setParams, table, lockBadge, ready, run, count } from './dom.js';

run(async () => {
  const [all, globalTags] = await Promise.all([nodes(), get('/globaltags').then(r => records(r.answer))]);
  const search = document.getElementById('search');
  search.value = params().get('q') ?? '';
  const drawTree = () => {
    const q = search.value.trim();
    const p = params();
    if (q) p.set('q', q); else p.delete('q');
    setParams(p);
    const { tree, shown } = buildTree(all, q.toLowerCase());
    document.getElementById('tree').replaceChildren(tree);
    document.getElementById('search-count').textContent =
      q ? `${count(shown)} folder${shown === 1 ? '' : 's'} match` : `${count(shown)} folders`;
  };
  search.addEventListener('input', drawTree);
  document.getElementById('search-form').addEventListener('submit', e => e.preventDefault());
  drawTree();
  drawGlobalTags(globalTags);
  ready();
});

/** Nested lists of foldersets (open/close) and folder links; with a query, only matches and their parents. */
function buildTree(all, q) {
  const children = new Map();
  for (const n of all) {
    if (n.path === '/') continue;
    const parent = n.path.slice(0, n.path.lastIndexOf('/')) || '/';
    if (!children.has(parent)) children.set(parent, []);
    children.get(parent).push(n);
  }
  const matches = n => !q || n.path.toLowerCase().includes(q) || (n.description ?? '').toLowerCase().includes(q);
  let shown = 0;
  const list = (path, depth) => {
    const items = [];
    for (const n of children.get(path) ?? []) {
      const name = n.path.slice(n.path.lastIndexOf('/') + 1);
      if (n.folder) {
        if (!matches(n)) continue;
        shown++;
        items.push(el('li', { class: 'folder' }, pageLink('folder.html', { f: n.path }, name),
          el('span', { class: 'meta' }, ` ${n.versioning} · ${n.keyType}`),
          n.description ? el('span', { class: 'description' }, ` — ${n.description}`) : null));
      } else {
        const sub = list(n.path, depth + 1);
        if (!sub && !(q && matches(n))) continue;
        items.push(el('li', { class: 'folderset' },
          el('details', { open: Boolean(q) || depth < 2 },
            el('summary', {}, name, n.description ? el('span', { class: 'description' }, ` — ${n.description}`) : null),
            sub ?? el('p', { class: 'meta' }, 'no folders match'))));
      }
    }
    return items.length ? el('ul', {}, items) : null;
  };
  return { tree: list('/', 0) ?? el('p', {}, q ? 'No folder matches.' : 'The database has no folders yet.'), shown };
}

function drawGlobalTags(globalTags) {
  const box = document.getElementById('gt-list');
  if (!globalTags.length) {
    box.replaceChildren(el('p', {}, 'No global tags yet.'));
  } else {
    box.replaceChildren(table(`${globalTags.length} global tag${globalTags.length === 1 ? '' : 's'}`,
      ['Name', 'Lock', 'Description', 'Inserted'],
      globalTags.map(g => [pageLink('globaltag.html', { gt: g.name }, g.name), lockBadge(g.lock), g.description,
        g.insertionTime])));
  }
  const names = [...globalTags.map(g => g.name), 'HEAD'];
  for (const [id, pick] of [['ga', 0], ['gb', 1]]) {
    const select = document.getElementById(id);
    select.replaceChildren(...names.map(n => el('option', { value: n }, n === 'HEAD' ? 'HEAD (every folder)' : n)));
    select.selectedIndex = Math.min(pick, names.length - 1);
  }
}
