// The conditions browser (/ui/) in a real Chromium (Debian's, driven by playwright-core) against a running service
// with the demo data (OUTPOST_TEST_SERVER). A failing test leaves a screenshot in server/app/target/ui-tests/.
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const SERVER = process.env.OUTPOST_TEST_SERVER;
const CHROMIUM = process.env.OUTPOST_CHROMIUM ?? '/usr/bin/chromium';
const SHOTS = fileURLToPath(new URL('../../../target/ui-tests/', import.meta.url));
const AXE = readFileSync(fileURLToPath(new URL('./node_modules/axe-core/axe.min.js', import.meta.url)), 'utf8');

if (!SERVER) throw new Error('OUTPOST_TEST_SERVER must name a running service with the demo data (./outpost test does this)');

let browser;
let page;
let problems;

before(async () => {
  // --no-sandbox: the tests run as root in CI, where Chromium's sandbox refuses to start.
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
});

after(async () => {
  await browser?.close();
});

beforeEach(async () => {
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  problems = [];
  page.on('pageerror', e => problems.push(`page error: ${e.message}`));
  page.on('console', m => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
});

afterEach(async t => {
  if (t.passed === false) {
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: `${SHOTS}${t.name.replace(/[^\w-]+/g, '_')}.png`, fullPage: true });
  }
  await page.close();
});

/** Opens a page of the browser and waits until its content is drawn (or its error shown); returns that state. */
async function open(path) {
  await page.goto(`${SERVER}/ui/${path}`);
  return settled();
}

async function settled() {
  await page.waitForFunction(() => ['ready', 'error'].includes(document.documentElement.dataset.state), null,
    { timeout: 20000 });
  return page.evaluate(() => document.documentElement.dataset.state);
}

/** axe-core's serious and critical findings on the current page. */
async function seriousViolations() {
  // Evaluated through the DevTools protocol: the page's policy (rightly) refuses an injected inline script.
  await page.evaluate(AXE);
  const result = await page.evaluate(async () => window.axe.run(document, { resultTypes: ['violations'] }));
  return result.violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
    .map(v => `${v.id}: ${v.help} (${v.nodes.map(n => n.target.join(' ')).slice(0, 3).join('; ')})`);
}

/** Fails when the page shows an alert (its error box or any other visible role=alert element). */
async function assertNoAlert() {
  const alerts = await page.getByRole('alert').filter({ visible: true }).allTextContents();
  assert.deepEqual(alerts, [], 'the page shows an alert');
}

async function apiJson(path) {
  const r = await fetch(`${SERVER}/v1/json${path}`);
  assert.equal(r.status, 200, path);
  return r.json();
}

describe('conditions browser', () => {
  it('opens the folder tree, searches it and follows a folder link', async () => {
    assert.equal(await open(''), 'ready');
    const tree = page.locator('#tree');
    for (const name of ['Pedestals', 'Gains', 'HV', 'Global']) {
      await assert.doesNotReject(tree.getByRole('link', { name, exact: true }).waitFor());
    }
    await page.fill('#search', 'pedestal');
    assert.deepEqual(await tree.getByRole('link').allTextContents(), ['Pedestals']);
    assert.match(page.url(), /\?q=pedestal$/);
    await tree.getByRole('link', { name: 'Pedestals' }).click();
    assert.equal(await settled(), 'ready');
    assert.equal(await page.locator('h1').textContent(), '/DEMO/Calo/Pedestals');
    assert.equal(await page.locator('#channel-count').textContent(), '16');
    assert.equal(await page.locator('#channel-table tbody tr').count(), 16);
    await page.locator('#iov-count').filter({ hasText: '768' }).waitFor();
    assert.deepEqual(problems, []);
  });

  it('shows a folder\'s tags with their locks and descriptions', async () => {
    assert.equal(await open('folder.html?f=/DEMO/Calo/Gains'), 'ready');
    const rows = page.locator('#tags tbody tr');
    assert.equal(await rows.count(), 3);
    const v1 = rows.filter({ hasText: 'GAINS-v1' });
    assert.match(await v1.textContent(), /standard.*locked.*first calibration/);
    assert.match(await page.locator('#payload').textContent(), /gain:Double,status:UChar,comment:String255/);
    assert.deepEqual(await seriousViolations(), []);
    assert.deepEqual(problems, []);
  });

  it('resolves a global tag to the tags of its folders', async () => {
    assert.equal(await open('globaltag.html?gt=DEMO-GT-2026'), 'ready');
    const rows = page.locator('#resolved tbody tr');
    assert.equal(await rows.count(), 4);
    assert.match(await rows.filter({ hasText: '/DEMO/Calo/Gains' }).textContent(), /GAINS-v2.*unlocked.*MV.*run-lumi/);
    assert.match(await rows.filter({ hasText: '/DEMO/Calo/Pedestals' }).textContent(), /HEAD.*SV.*time/);
    const state = (await fetch(`${SERVER}/v1/json/state/DEMO-GT-2026`)).headers.get('X-Outpost-State');
    assert.equal(await page.locator('#state').textContent(), state);
    assert.deepEqual(await seriousViolations(), []);
  });

  it('draws the IOVs of a known range on the timeline and shows values on hover', async () => {
    const range = 'f=/DEMO/Calo/Pedestals&ch=3&from=2026-01-01T02:00:00Z&to=2026-01-01T05:00:00Z&field=mean';
    assert.equal(await open(`timeline.html?${range}`), 'ready');
    // IOVs with since <= 05:00 and until > 02:00: those starting at 02:00, 03:00, 04:00 and 05:00.
    assert.equal(await page.locator('#plot').getAttribute('data-iovs'), '4');
    assert.equal(await page.locator('#drawn').textContent(), '4 IOVs');
    const api = await apiJson('/count/HEAD/1767232800000000000/1767243600000000000/3/DEMO/Calo/Pedestals');
    assert.equal(api.rows[0][0], 4);
    const box = await page.locator('#plot').boundingBox();
    await page.mouse.move(box.x + box.width / 2, box.y + 12);
    assert.match(await page.locator('#hover').textContent(), /channel 3: 2026-01-01T0\dZ?.*mean=\d+(\.\d+)?, rms=/s);
    await page.click('#values summary');
    // the table is built by the disclosure's toggle event, which fires after the click returns
    await page.locator('#values-table tbody tr').first().waitFor();
    const cells = await page.locator('#values-table tbody tr').first().locator('td').allTextContents();
    assert.deepEqual(cells.slice(0, 3), ['3', '2026-01-01T02:00:00Z', '2026-01-01T03:00:00Z']);
    assert.equal(await page.locator('#values-table tbody tr').count(), 4);
    assert.deepEqual(await seriousViolations(), []);
    assert.deepEqual(problems, []);
  });

  it('draws a window of a tag in a run/lumi folder and keeps the state in the URL', async () => {
    assert.equal(await open('timeline.html?f=/DEMO/Calo/Gains&tag=GAINS-v2&ch=0-3'), 'ready');
    assert.equal(await page.locator('#plot').getAttribute('data-iovs'), '12');
    await page.fill('#from', '301/0');
    await page.fill('#to', '302/0');
    await page.click('#range-form button[type=submit]');
    await page.waitForURL(/from=301%2F0&to=302%2F0/);
    assert.equal(await settled(), 'ready');
    // the recalibrated IOV [301/0, 303/0) of each channel, and the initial one ending at 301/0 does not reach in
    await page.locator('#drawn').filter({ hasText: /^4 IOVs$/ }).waitFor();
  });

  it('shows the differences of two tags of a folder', async () => {
    assert.equal(await open('diff.html?f=/DEMO/Calo/Gains&a=GAINS-v1&b=GAINS-v2'), 'ready');
    const rows = page.locator('#differences tbody tr');
    assert.equal(await rows.count(), 4);
    const ch2 = await rows.nth(2).locator('td').allTextContents();
    assert.deepEqual(ch2.slice(0, 3), ['2', '301/0', '303/0']);
    assert.match(ch2[3], /gain=1, status=0, comment=initial/);
    assert.match(ch2[4], /gain=1.02, status=1, comment=recalibrated runs 301-302/);
    assert.deepEqual(await seriousViolations(), []);
  });

  it('shows the folders that two global tags resolve differently', async () => {
    assert.equal(await open('diff.html?ga=DEMO-GT-2026&gb=HEAD'), 'ready');
    const other = await page.locator('#other-tags tbody tr').allTextContents();
    assert.equal(other.length, 1);
    assert.match(other[0], /\/DEMO\/Calo\/Gains.*GAINS-v2.*HEAD/);
    assert.equal(await page.locator('#only-a tbody tr').count(), 0);
  });

  it('shows a global tag\'s snapshot at a time', async () => {
    assert.equal(await open('snapshot.html?gt=DEMO-GT-2026&t=2026-01-01T01:30:00Z&r=302/17'), 'ready');
    const folders = page.locator('details.snapshot-folder');
    assert.equal(await folders.count(), 4);
    const ped = folders.filter({ hasText: '/DEMO/Calo/Pedestals' });
    await ped.locator('summary').click();
    // a folder's rows may be fetched when its disclosure opens
    await ped.locator('tbody tr').first().waitFor();
    assert.equal(await ped.locator('tbody tr').count(), 16);
    assert.match(await ped.locator('tbody tr').first().textContent(), /^02026-01-01T01:00:00Z2026-01-01T02:00:00Z/);
    assert.deepEqual(await seriousViolations(), []);
  });

  it('says clearly when a folder does not exist', async () => {
    assert.equal(await open('folder.html?f=/DEMO/NoSuchFolder'), 'error');
    const alert = page.getByRole('alert');
    assert.match(await alert.textContent(), /no folder or folderset \/DEMO\/NoSuchFolder/);
    assert.equal(await page.getByRole('heading', { name: 'Channels' }).isVisible(), false);
    assert.equal(await open('timeline.html?f=/DEMO/NoSuchFolder'), 'error');
    assert.match(await page.getByRole('alert').textContent(), /no folder \/DEMO\/NoSuchFolder/);
    assert.equal(await open('timeline.html?f=/DEMO/Calo/Pedestals&from=yesterday'), 'error');
    assert.match(await page.getByRole('alert').textContent(), /"yesterday" is not a time: write a UTC time/);
    assert.deepEqual(await seriousViolations(), []);
  });

  it('serves the pages with a policy that forbids inline scripts, and never writes', async () => {
    const r = await fetch(`${SERVER}/ui/`);
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-security-policy'), /script-src 'self';/);
    assert.doesNotMatch(r.headers.get('content-security-policy'), /unsafe-inline|unsafe-eval/);
    assert.match(r.headers.get('cache-control'), /max-age=300/);
    const methods = [];
    page.on('request', q => methods.push(q.method()));
    await open('diff.html?f=/DEMO/Calo/Gains&a=GAINS-v1&b=GAINS-v2');
    await open('index.html');
    assert.ok(methods.length > 4);
    assert.deepEqual([...new Set(methods)], ['GET']);
    // an inline script put into the page is refused by the policy
    const ran = await page.evaluate(() => {
      const s = document.createElement('script');
      s.textContent = 'window.inlineRan = true';
      document.body.append(s);
      return Boolean(window.inlineRan);
    });
    assert.equal(ran, false);
    problems = [];
  });
});

// Every /ui/ URL that docs/ui.md shows, and what the page must show for it (the doc's own words, checked).
const DOC_EXAMPLES = {
  '/ui/': showsTreeAndGlobalTags,
  '/ui/?q=calo': async () => {
    assert.deepEqual((await page.locator('#tree').getByRole('link').allTextContents()).sort(), ['Gains', 'Pedestals']);
    assert.match(await page.locator('#search-count').textContent(), /^2 folders match$/);
  },
  '/ui/folder.html?f=/DEMO/Calo/Gains': async () => {
    const about = await page.locator('#about').textContent();
    assert.match(about, /calorimeter gains, reprocessed.*multi-version \(MV\).*run\/lumi.*Channels4/s);
    assert.match(await page.locator('#payload').textContent(), /gain:Double,status:UChar,comment:String255/);
    assert.deepEqual((await page.locator('#tags tbody tr td:first-child').allTextContents()).sort(),
      ['GAINS-test', 'GAINS-v1', 'GAINS-v2']);
    assert.equal(await page.locator('#channel-table tbody tr').count(), 4);
    const head = await apiJson('/count/HEAD/0/9223372036854775807/all/DEMO/Calo/Gains');
    await page.locator('#iov-count').filter({ hasText: new RegExp(`^${head.rows[0][0]}$`) }).waitFor();
  },
  '/ui/globaltag.html?gt=DEMO-GT-2026': async () => {
    assert.match(await page.locator('#about').textContent(), /demo global tag: recalibrated gains/);
    assert.match(await page.locator('#state').textContent(), /^[0-9a-f]{16}$/);
    assert.equal(await page.locator('#resolved tbody tr').count(), 4);
    assert.match(await page.locator('#resolved tbody tr').filter({ hasText: '/DEMO/Calo/Gains' }).textContent(), /GAINS-v2/);
    // its folders are time and run-lumi folders: the snapshot form asks for both keys
    assert.equal(await page.locator('#snapshot-form legend').textContent(), 'Snapshot at a time and a run');
    assert.equal(await page.getByLabel('Time (UTC)').isVisible(), true);
    assert.equal(await page.getByLabel('Run').isVisible(), true);
  },
  '/ui/timeline.html?f=/DEMO/Calo/Pedestals&tag=HEAD&ch=0-3&from=2026-01-01T02:00:00Z&to=2026-01-01T05:00:00Z&field=mean':
    async () => {
      // four hourly IOVs (02:00 to 05:00 and the one starting at 05:00) of four channels
      assert.equal(await page.locator('#plot').getAttribute('data-iovs'), '16');
      assert.equal(await page.locator('#field').inputValue(), 'mean');
      assert.deepEqual(ticks(await page.locator('#plot').getAttribute('data-ticks')),
        ['02:00', '02:30', '03:00', '03:30', '04:00', '04:30', '05:00'].map(t => `2026-01-01T${t}:00Z`));
    },
  '/ui/timeline.html?f=/DEMO/Calo/Gains&tag=GAINS-v2&ch=0-3&from=300&to=304': async () => {
    assert.equal(await page.locator('#plot').getAttribute('data-iovs'), '12');
    assert.match(await page.locator('#summary').textContent(), /keys 300\/0 to 304\/0/);
    assert.deepEqual(ticks(await page.locator('#plot').getAttribute('data-ticks')), ['300', '301', '302', '303', '304']);
  },
  '/ui/diff.html?f=/DEMO/Calo/Gains&a=GAINS-v1&b=GAINS-v2': async () => {
    const rows = page.locator('#differences tbody tr');
    assert.equal(await rows.count(), 4);
    for (const row of await rows.all()) {
      assert.deepEqual((await row.locator('td').allTextContents()).slice(1, 3), ['301/0', '303/0']);
    }
  },
  '/ui/diff.html?ga=DEMO-GT-2026&gb=HEAD': async () => {
    assert.match((await page.locator('#other-tags tbody tr').allTextContents()).join('|'), /^\/DEMO\/Calo\/Gains.*GAINS-v2.*HEAD/);
    assert.equal(await page.locator('#only-a tbody tr').count(), 0);
    assert.equal(await page.locator('#only-b tbody tr').count(), 0);
  },
  '/ui/snapshot.html?gt=DEMO-GT-2026&t=2026-01-01T05:00:00Z&r=302': showsSnapshotAt0500Run302,
  '/ui/snapshot.html?gt=DEMO-GT-2026&t=2026-01-01T05:00:00Z': async () => {
    // the global tag reads run-lumi folders too: the page asks for the run, in its own words
    assert.match(await page.locator('#needs').textContent(),
      /^DEMO-GT-2026 reads 2 time folders and 2 run-lumi folders, so its snapshot is read at a time and a run\. Give the run: a run such as 302, or 302\/17 for one lumi block\.$/);
    assert.equal(await page.locator('#snapshot-t').inputValue(), '2026-01-01T05:00:00Z');
    assert.equal(await page.locator('#snapshot-r').isVisible(), true);
    assert.equal(await page.locator('#snapshot-r').evaluate(e => e.required && document.activeElement === e), true);
    assert.equal(await page.locator('details.snapshot-folder').count(), 0);
    assert.doesNotMatch(await page.locator('main').textContent(), /\/v1\/|\{time\},\{runlumi\}|<< ?32/);
  },
};
DOC_EXAMPLES['http://localhost:8000/ui/'] = DOC_EXAMPLES['/ui/'];

async function showsTreeAndGlobalTags() {
  for (const name of ['Pedestals', 'Gains', 'HV', 'Global']) {
    await page.locator('#tree').getByRole('link', { name, exact: true }).waitFor();
  }
  assert.match(await page.locator('#gt-list').textContent(), /DEMO-GT-2026/);
}

/** The snapshot of the demo global tag at 05:00 and run 302: each folder with the objects valid there. */
async function showsSnapshotAt0500Run302() {
  assert.equal(await page.locator('h1').textContent(), 'Snapshot of DEMO-GT-2026 at 2026-01-01T05:00:00Z, run 302/0');
  const folders = page.locator('details.snapshot-folder');
  assert.equal(await folders.count(), 4);
  const expected = {
    '/DEMO/Calo/Pedestals': { objects: 16, since: '2026-01-01T05:00:00Z', until: '2026-01-01T06:00:00Z' },
    '/DEMO/DCS/HV': { objects: 8, since: '2026-01-01T05:00:00Z', until: '2026-01-01T05:30:00Z' },
    '/DEMO/Calo/Gains': { objects: 4, since: '301/0', until: '303/0' },
    '/DEMO/Align/Global': { objects: 1, since: '302/0', until: '303/0' },
  };
  for (const [folder, { objects, since, until }] of Object.entries(expected)) {
    const box = folders.filter({ hasText: folder });
    assert.match(await box.locator('summary').textContent(), new RegExp(` · ${objects} objects?$`), folder);
    await box.locator('summary').click();
    // a folder's rows may be fetched when its disclosure opens
    await box.locator('tbody tr').first().waitFor();
    assert.equal(await box.locator('tbody tr').count(), objects, folder);
    for (const row of await box.locator('tbody tr').all()) {
      assert.deepEqual((await row.locator('td').allTextContents()).slice(1, 3), [since, until], folder);
    }
  }
}

function ticks(attribute) {
  return (attribute ?? '').split(' ').filter(Boolean);
}

/** The /ui/ URLs docs/ui.md shows (in code spans), as written there. */
function docExamples() {
  const doc = readFileSync(fileURLToPath(new URL('../../../../../docs/ui.md', import.meta.url)), 'utf8');
  return [...new Set([...doc.matchAll(/`((?:http:\/\/localhost:8000)?\/ui\/[^`\s]*)`/g)].map(m => m[1]))];
}

describe('every example URL of docs/ui.md', () => {
  for (const url of docExamples()) {
    it(`shows what the doc says for ${url}`, async () => {
      const check = DOC_EXAMPLES[url];
      assert.ok(check, `docs/ui.md shows ${url}, which this test does not know: add what the page must show for it`);
      assert.equal(await open(url.replace(/^(http:\/\/localhost:8000)?\/ui\//, '')), 'ready');
      await assertNoAlert();
      await check();
      assert.deepEqual(problems, []);
    });
  }
});

describe('keys as the fields read them', () => {
  it('reads a bare number in the snapshot\'s run field as the run, typed or in the URL', async () => {
    assert.equal(await open('globaltag.html?gt=DEMO-GT-2026'), 'ready');
    await page.getByLabel('Time (UTC)').fill('2026-01-01T05:00:00Z');
    await page.getByLabel('Run').fill('302');
    await page.getByRole('button', { name: 'Show snapshot' }).click();
    await page.waitForURL(/snapshot\.html\?gt=DEMO-GT-2026&t=2026-01-01T05%3A00%3A00Z&r=302$/);
    assert.equal(await settled(), 'ready');
    await assertNoAlert();
    await showsSnapshotAt0500Run302();
    // and run 302, lumi 5 as RUN/LUMI
    assert.equal(await open('snapshot.html?gt=DEMO-GT-2026&t=2026-01-01T05:00:00Z&r=302/5'), 'ready');
    assert.match(await page.locator('h1').textContent(), /, run 302\/5$/);
    assert.deepEqual(problems, []);
  });

  it('asks on the snapshot page for the missing key and shows the snapshot once it is given', async () => {
    assert.equal(await open('snapshot.html?gt=DEMO-GT-2026&r=302'), 'ready');
    await assertNoAlert();
    assert.match(await page.locator('#needs').textContent(), /Give the time: a UTC time such as 2026-01-01T05:00:00Z\.$/);
    assert.equal(await page.locator('#snapshot-r').inputValue(), '302');
    await page.getByLabel('Time (UTC)').fill('2026-01-01T05:00:00Z');
    await page.getByRole('button', { name: 'Show snapshot' }).click();
    await page.waitForURL(/&t=2026-01-01T05%3A00%3A00Z&r=302$/);
    assert.equal(await settled(), 'ready');
    await showsSnapshotAt0500Run302();
    // HEAD reads every folder: both keys asked for
    assert.equal(await open('snapshot.html?gt=HEAD'), 'ready');
    assert.match(await page.locator('#needs').textContent(), /^HEAD \(every folder\) reads 2 time folders and 2 run-lumi folders.*Give the time and the run: /);
    assert.deepEqual(await seriousViolations(), []);
  });

  it('refuses a key of the wrong kind in the page\'s own terms, keeping the form to correct it', async () => {
    const cases = [
      ['snapshot.html?gt=DEMO-GT-2026&t=2026-01-01T05:00:00Z&r=2026-01-01T05:00:00Z',
        /"2026-01-01T05:00:00Z" is a time; here keys are runs: write a run \(302\), RUN\/LUMI \(302\/17\) or max/],
      ['snapshot.html?gt=DEMO-GT-2026&t=2026-01-01T05:00:00Z&r=run302',
        /"run302" is not a run: write a run \(302\), RUN\/LUMI \(302\/17\) or max/],
      ['snapshot.html?gt=DEMO-GT-2026&t=2026-01-01T05:00:00Z&r=302/4294967296', /lumi 4294967296 is past the largest lumi/],
      ['snapshot.html?gt=DEMO-GT-2026&t=302/0&r=302', /"302\/0" is a run and lumi; here keys are times: write a UTC time/],
      ['timeline.html?f=/DEMO/Calo/Pedestals&from=301/0', /"301\/0" is a run and lumi; here keys are times/],
      ['timeline.html?f=/DEMO/Calo/Gains&from=2026-01-01', /"2026-01-01" is a time; here keys are runs: write a run \(302\), RUN\/LUMI/],
      ['diff.html?f=/DEMO/Calo/Gains&a=GAINS-v1&b=GAINS-v2&from=2026-02-30T00:00:00Z', /is a time; here keys are runs/],
      ['timeline.html?f=/DEMO/Calo/Pedestals&from=2026-02-30T00:00:00Z', /"2026-02-30T00:00:00Z" is not a date and time of the calendar/],
    ];
    for (const [url, message] of cases) {
      assert.equal(await open(url), 'error', url);
      const alert = await page.locator('#error').textContent();
      assert.match(alert, message, url);
      // the page's terms, never the HTTP API's URL syntax
      assert.doesNotMatch(alert, /\/v1\/|\{time\},\{runlumi\}|<< ?32/, url);
    }
    // the form stays, holding what was typed
    assert.equal(await open('snapshot.html?gt=DEMO-GT-2026&t=2026-01-01T05:00:00Z&r=run302'), 'error');
    assert.equal(await page.locator('#snapshot-r').inputValue(), 'run302');
    assert.deepEqual(await seriousViolations(), []);
  });

  it('reads bare runs in a run-lumi timeline\'s and a tag diff\'s range', async () => {
    assert.equal(await open('timeline.html?f=/DEMO/Calo/Gains&tag=GAINS-v2&ch=0-3'), 'ready');
    await page.fill('#from', '301');
    await page.fill('#to', '302');
    await page.click('#range-form button[type=submit]');
    await page.waitForURL(/from=301&to=302/);
    assert.equal(await settled(), 'ready');
    // the recalibrated IOV [301/0, 303/0) of each channel, as with 301/0 to 302/0
    await page.locator('#drawn').filter({ hasText: /^4 IOVs$/ }).waitFor();
    assert.match(await page.locator('#summary').textContent(), /keys 301\/0 to 302\/0/);
    assert.equal(await open('diff.html?f=/DEMO/Calo/Gains&a=GAINS-v2&b=GAINS-test&ch=2&from=302&to=303'), 'ready');
    // the user tag's hot cell test of channel 2 inside run 302, against GAINS-v2's IOVs that reach into the
    // closed range [302/0, 303/0]: the recalibration [301/0, 303/0) and the initial gain from 303/0 on
    const rows = [];
    for (const row of await page.locator('#differences tbody tr').all()) rows.push((await row.locator('td').allTextContents()).slice(0, 3));
    assert.deepEqual(rows, [['2', '301/0', '302/100'], ['2', '302/100', '302/200'], ['2', '302/200', '303/0'], ['2', '303/0', 'max']]);
  });

  it('ticks a run-lumi axis on runs, zooms to whole runs, and ticks lumis inside one run', async () => {
    assert.equal(await open('timeline.html?f=/DEMO/Calo/Gains&tag=GAINS-v2&ch=0-3'), 'ready');
    assert.deepEqual(ticks(await page.locator('#plot').getAttribute('data-ticks')), ['300', '301', '302', '303', '304']);
    const box = await page.locator('#plot').boundingBox();
    // drag across the middle of the plot: the URL gets whole runs, not the keys under the pointer
    await page.mouse.move(box.x + box.width * 0.35, box.y + 100);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.7, box.y + 100, { steps: 5 });
    await page.mouse.up();
    await page.waitForURL(/from=\d+%2F0&to=\d+%2F0/);
    assert.equal(await settled(), 'ready');
    for (const tick of ticks(await page.locator('#plot').getAttribute('data-ticks'))) assert.match(tick, /^\d+$/);
    // inside one run: round lumi numbers of that run
    assert.equal(await open('timeline.html?f=/DEMO/Calo/Gains&ch=2&from=302/100&to=302/200'), 'ready');
    assert.deepEqual(ticks(await page.locator('#plot').getAttribute('data-ticks')),
      ['302/100', '302/120', '302/140', '302/160', '302/180', '302/200']);
    assert.deepEqual(problems, []);
  });

  it('parses and places keys as js/keys.js and js/axis.js promise', async () => {
    assert.equal(await open('index.html'), 'ready');
    const results = await page.evaluate(async () => {
      const { parseKey, formatKey } = await import('./js/keys.js');
      const { keyTicks, roundRange } = await import('./js/axis.js');
      const tryParse = (text, type) => {
        try {
          return parseKey(text, type).toString();
        } catch (e) {
          return `error: ${e.message}`;
        }
      };
      const labels = (lo, hi, type) => keyTicks(BigInt(lo), BigInt(hi), type).ticks.map(t => t.label).join(' ');
      return {
        run: tryParse('302', 'run-lumi'),
        runLumi: tryParse('302/5', 'run-lumi'),
        runColonLumi: tryParse(' 302:5 ', 'run-lumi'),
        maxRun: tryParse('2147483647/4294967295', 'run-lumi'),
        tooBigRun: tryParse('2147483648', 'run-lumi'),
        max: tryParse('max', 'run-lumi'),
        raw: tryParse('raw:302', 'run-lumi'),
        rawTime: tryParse('RAW:1767243600000000000', 'time'),
        timeKey: tryParse('1767243600000000000', 'time'),
        isoOffset: tryParse('2026-01-01T07:00:00+02:00', 'time'),
        date: tryParse('2026-01-01', 'time'),
        nanos: formatKey(parseKey('2026-01-01T05:00:00.000000001Z', 'time'), 'time'),
        before1970: tryParse('1969-12-31T23:59:59Z', 'time'),
        unknownBare: tryParse('302'),
        unknownRunLumi: tryParse('302/0'),
        manyRuns: labels(300n << 32n, 400n << 32n, 'run-lumi'),
        oneRunBoundary: labels((1010n << 32n) + 5n, (1011n << 32n) + 7n, 'run-lumi'),
        fewLumisAcrossBoundary: labels((1010n << 32n) + 4294967291n, (1011n << 32n) + 5n, 'run-lumi'),
        runsAcrossBoundary: labels((300n << 32n) + 2705829396n, (306n << 32n) + 17n, 'run-lumi'),
        dragged: roundRange((300n << 32n) + 2705829396n, (303n << 32n) + 5n, 'run-lumi', 9223372036854775807n).join(' '),
        draggedInsideRun: roundRange((300n << 32n) + 5n, (300n << 32n) + 9n, 'run-lumi', 9223372036854775807n).join(' '),
        days: labels(1767225600000000000n, 1767225600000000000n + 6n * 86400000000000n, 'time'),
      };
    });
    assert.deepEqual(results, {
      run: String(302n << 32n),
      runLumi: String((302n << 32n) | 5n),
      runColonLumi: String((302n << 32n) | 5n),
      maxRun: '9223372036854775807',
      tooBigRun: 'error: "2147483648": run 2147483648 is past the largest run (2^31-1)',
      max: '9223372036854775807',
      raw: '302',
      rawTime: '1767243600000000000',
      timeKey: '1767243600000000000',
      isoOffset: '1767243600000000000',
      date: '1767225600000000000',
      nanos: '2026-01-01T05:00:00.000000001Z',
      before1970: 'error: "1969-12-31T23:59:59Z" is not a time from 1970 on',
      unknownBare: 'error: "302" could be a run or a time: the key type is not known',
      unknownRunLumi: String(302n << 32n),
      manyRuns: '300 320 340 360 380 400',
      oneRunBoundary: '1011',
      fewLumisAcrossBoundary: '1010/4294967292 1010/4294967294 1011/0 1011/2 1011/4',
      runsAcrossBoundary: '301 302 303 304 305 306',
      dragged: `${300n << 32n} ${304n << 32n}`,
      draggedInsideRun: `${(300n << 32n) + 5n} ${(300n << 32n) + 9n}`,
      days: ['01', '02', '03', '04', '05', '06', '07'].map(d => `2026-01-${d}T00:00:00Z`).join(' '),
    });
  });
});
