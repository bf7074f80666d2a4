// Small DOM helpers. Text from the database only ever goes in through text nodes, never as HTML.

/** An element with attributes (class, href, id, aria-*, data-*, …) and children (nodes or strings). */
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') e.className = v;
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c !== null && c !== undefined) e.append(c instanceof Node ? c : String(c));
  }
  return e;
}

/** A link to another page of the browser with its state in the query string. */
export function pageLink(page, params, text) {
  return el('a', { href: pageUrl(page, params) }, text);
}

export function pageUrl(page, params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  }
  const s = q.toString();
  return s ? `${page}?${s}` : page;
}

/** A table with a caption, header cells and rows of cells (nodes or strings; null shows as an empty cell). */
export function table(caption, headers, rows, attrs = {}) {
  return el('table', attrs,
    el('caption', {}, caption),
    el('thead', {}, el('tr', {}, headers.map(h => el('th', { scope: 'col' }, h)))),
    el('tbody', {}, rows.map(r => el('tr', {}, r.map(c => el('td', {}, c ?? ''))))));
}

/** The page's query parameters. */
export function params() {
  return new URLSearchParams(location.search);
}

/** Replaces the page's query string (the state of the page) without reloading it. */
export function setParams(p, push = false) {
  const url = pageUrl(location.pathname.split('/').pop() || './', Object.fromEntries(p));
  if (push) history.pushState(null, '', url);
  else history.replaceState(null, '', url);
}

/** Shows what went wrong in the page's alert region and marks the page as done (tests wait for it). */
export function showError(error) {
  const box = document.getElementById('error');
  box.replaceChildren(el('strong', {}, 'Cannot show this: '), error.message);
  box.hidden = false;
  // what the page would have shown (empty or out of date now) goes away; forms to correct the request stay
  for (const e of document.querySelectorAll('.content')) e.hidden = true;
  document.documentElement.dataset.state = 'error';
}

/** Clears the alert region. */
export function clearError() {
  const box = document.getElementById('error');
  box.hidden = true;
  box.replaceChildren();
  for (const e of document.querySelectorAll('.content')) e.hidden = false;
}

/**
 * Marks the page's main content as drawn: Performance API marks for the benchmark (outpost-ready now, and
 * outpost-painted once the next frame is on the screen: a task queued from the frame's callback runs after it)
 * and a data attribute for the tests.
 */
export function ready() {
  if (!performance.getEntriesByName('outpost-ready').length) {
    performance.mark('outpost-ready');
    requestAnimationFrame(() => setTimeout(() => performance.mark('outpost-painted'), 0));
  }
  document.documentElement.dataset.state = 'ready';
}

/** Runs a page's main function; any failure is shown instead of a blank page. */
export function run(main) {
  main().catch(showError);
}

/** "1,234" */
export function count(n) {
  return Number(n).toLocaleString('en-US');
}

/** A lock state as a labelled badge. */
export function lockBadge(lock) {
  if (!lock) return '';
  return el('span', { class: `lock lock-${lock}` }, lock);
}
