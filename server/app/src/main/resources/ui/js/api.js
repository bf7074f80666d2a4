// Reads the native JSON API (docs/api.md) with the same canonical, cacheable URLs as every other client.
// Keys are 63-bit: JSON numbers that large lose digits in JavaScript, so they are read as BigInt.

export const KEY_MAX = 9223372036854775807n;

const BIG_COLUMN_TYPES = new Set(['UInt63', 'Int64', 'UInt64']);
// A JSON string or number token; integers of 16 digits or more are quoted before JSON.parse sees them.
const TOKEN = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;
const LONG_INTEGER = /^-?\d{16,}$/;

/** An answer the service refused: its status and the problem's detail, for the page to show. */
export class ApiError extends Error {
  constructor(status, detail, path) {
    super(detail);
    this.status = status;
    this.path = path;
  }
}

/** Parses an answer's JSON text: key columns and the validity interval become BigInt. */
export function parseAnswer(text) {
  return typed(JSON.parse(text.replace(TOKEN, t => (t[0] !== '"' && LONG_INTEGER.test(t) ? `"${t}"` : t))));
}

/**
 * An answer parsed by parseAnswer with its key columns and validity as BigInt; also for the answers a snapshot
 * nests as objects (their long integers were already quoted when the snapshot's text was parsed).
 */
export function typed(answer) {
  if (answer.validSince !== undefined) {
    answer.validSince = BigInt(answer.validSince);
    answer.validUntil = BigInt(answer.validUntil);
  }
  if (Array.isArray(answer.columns) && Array.isArray(answer.rows)) {
    const big = answer.columns.map((c, i) => (BIG_COLUMN_TYPES.has(c.type) ? i : -1)).filter(i => i >= 0);
    if (big.length) {
      for (const row of answer.rows) {
        for (const i of big) {
          if (row[i] !== null) row[i] = BigInt(row[i]);
        }
      }
    }
  }
  return answer;
}

/** A path segment list as the API spells it: "/A/B" stays, each name percent-encoded. */
export function nodePath(path) {
  return path.split('/').map(encodeURIComponent).join('/');
}

/** The absolute URL of an API path such as "/nodes" (the pages live at <context>/ui/, the API at <context>/v1/). */
export function apiUrl(path) {
  return new URL('../v1/json' + path, document.baseURI).href;
}

const inFlight = new Map();

/**
 * GETs an API path; resolves to { answer, headers } or rejects with an ApiError saying what was wrong. A request
 * already under way for the same path is shared, so a page can ask early for what it will need (the browser's
 * HTTP cache serves finished answers again while their Cache-Control allows).
 */
export function get(path) {
  if (!inFlight.has(path)) {
    inFlight.set(path, getUrl(apiUrl(path), path).finally(() => inFlight.delete(path)));
  }
  return inFlight.get(path);
}

/** GETs a URL the service named itself (e.g. a snapshot's pinned folder URL). */
export async function getUrl(url, shown = url) {
  let response;
  try {
    response = await fetch(url, { headers: { 'X-Outpost-Client': 'outpost-ui' } });
  } catch (e) {
    throw new ApiError(0, `the service did not answer (${e.message})`, shown);
  }
  const text = await response.text();
  if (!response.ok) {
    let detail = `${response.status} ${response.statusText}`;
    try {
      const problem = JSON.parse(text);
      if (problem.detail) detail = problem.detail;
    } catch {
      // not a problem document: keep the status line
    }
    throw new ApiError(response.status, detail, shown);
  }
  return { answer: parseAnswer(text), headers: response.headers };
}

/** The rows of an answer as objects keyed by column name. */
export function records(answer) {
  const names = answer.columns.map(c => c.name);
  return answer.rows.map(r => Object.fromEntries(names.map((n, i) => [n, r[i]])));
}

/** The node list (folders and foldersets) as records; one cacheable answer shared by every page. */
export async function nodes() {
  return records((await get('/nodes')).answer);
}

/** The canonical channel spelling of a list of channel ids (ascending, non-touching ranges). */
export function channelSpec(ids) {
  const sorted = [...new Set(ids)].sort((a, b) => a - b);
  const parts = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    parts.push(i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}
