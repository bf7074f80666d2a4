// The snapshot form (on a global tag's page and on the snapshot page): it asks for the keys the global tag's folders
// need — a time for time folders, a run for run-lumi folders, both when it holds both — and nothing else.
import { RUN_LUMI, TIME, keyHint } from './keys.js';
import { pageUrl } from './dom.js';

/** The key types a snapshot of these folders (records with a keyType) is read at: { time, run } as counts. */
export function keysNeeded(folders) {
  return {
    time: folders.filter(f => f.keyType === TIME).length,
    run: folders.filter(f => f.keyType === RUN_LUMI).length,
  };
}

/** "a time and a run", "a run", … */
export function keysWanted(needs) {
  return [needs.time && 'a time', needs.run && 'a run'].filter(Boolean).join(' and ') || 'no key';
}

/**
 * Shows the fields of the form (#snapshot-form with #snapshot-gt, #snapshot-t in #snapshot-time and #snapshot-r in
 * #snapshot-run) that the global tag needs, filled with values ({ t, r }), and opens the snapshot page on submit with
 * only the keys given.
 */
export function setUpSnapshotForm(gt, needs, values = {}) {
  const form = document.getElementById('snapshot-form');
  document.getElementById('snapshot-gt').value = gt;
  for (const [name, box, keyType, needed] of [['t', 'snapshot-time', TIME, needs.time], ['r', 'snapshot-run', RUN_LUMI, needs.run]]) {
    const input = document.getElementById(`snapshot-${name}`);
    document.getElementById(box).hidden = !needed;
    input.disabled = !needed;
    input.required = Boolean(needed);
    input.placeholder = keyHint(keyType);
    input.value = values[name] ?? '';
  }
  form.querySelector('legend').textContent = needs.time || needs.run ? `Snapshot at ${keysWanted(needs)}` : 'Snapshot';
  form.hidden = false;
  form.addEventListener('submit', e => {
    e.preventDefault();
    const value = name => (needs[name === 't' ? 'time' : 'run'] ? document.getElementById(`snapshot-${name}`).value.trim() : '');
    location.assign(pageUrl('snapshot.html', { gt, t: value('t'), r: value('r') }));
  });
  return form;
}
