// The IOV timeline on one canvas: a row of bars per channel (each IOV one bar, neighbours in alternating shades)
// and a step plot of one numeric payload field against the key. Canvas rather than DOM elements, so a window of
// tens of thousands of IOVs draws in milliseconds; pointing looks IOVs up by binary search.

const PALETTE = ['#1f5fa8', '#b0420b', '#2b7a2b', '#7b3fa0', '#8a6d00', '#a0225a', '#0b7a7a', '#4d4d4d'];
const BAR_SHADES = ['#4a7fc1', '#9bbde6'];
const LEFT = 90;
const RIGHT = 12;
const TOP = 8;
const AXIS = 34;

export class TimelinePlot {
  /**
   * @param canvas    the canvas to draw on (its CSS size decides the drawing size)
   * @param tip       an element shown next to the pointer with the values there
   * @param formatKey key → text
   * @param axis      (lo, hi) → { title, ticks: [{ key, label }] }: the key axis of a view
   * @param onZoom    called with (from, to) keys after a drag across the plot
   */
  constructor(canvas, tip, formatKey, axis, onZoom) {
    this.canvas = canvas;
    this.tip = tip;
    this.formatKey = formatKey;
    this.axis = axis;
    canvas.addEventListener('mousemove', e => this.hover(e));
    canvas.addEventListener('mouseleave', () => { tip.hidden = true; });
    canvas.addEventListener('mousedown', e => { this.dragFrom = e.offsetX; });
    canvas.addEventListener('mouseup', e => {
      const from = this.dragFrom;
      this.dragFrom = undefined;
      if (from === undefined || !this.view || Math.abs(e.offsetX - from) < 6) return;
      const [a, b] = [this.keyAt(Math.min(from, e.offsetX)), this.keyAt(Math.max(from, e.offsetX))];
      if (b > a) onZoom(a, b);
    });
  }

  /**
   * Draws rows ([channel, since, until, ...payload], sorted by channel then since) over the keys [lo, hi].
   * Returns the number of IOVs drawn.
   */
  draw({ rows, columns, lanes, field, lo, hi }) {
    const dpr = window.devicePixelRatio || 1;
    const width = this.canvas.clientWidth;
    const laneHeight = Math.max(3, Math.min(18, Math.floor(140 / Math.max(1, lanes.length))));
    const lanesBottom = TOP + laneHeight * lanes.length;
    const plotTop = lanesBottom + 14;
    const height = plotTop + 200 + AXIS;
    this.canvas.style.height = `${height}px`;
    this.canvas.width = Math.round(width * dpr);
    this.canvas.height = Math.round(height * dpr);
    const g = this.canvas.getContext('2d');
    g.scale(dpr, dpr);
    g.clearRect(0, 0, width, height);
    g.font = '11px sans-serif';

    const span = Number(hi - lo) || 1;
    const plotWidth = width - LEFT - RIGHT;
    const x = k => LEFT + (Number((k < lo ? lo : k > hi ? hi : k) - lo) / span) * plotWidth;
    const byChannel = new Map(lanes.map(c => [c, []]));
    for (let i = 0; i < rows.length; i++) byChannel.get(rows[i][0])?.push(i);

    // Bars: one lane per channel.
    g.textAlign = 'right';
    g.textBaseline = 'middle';
    lanes.forEach((ch, lane) => {
      const y = TOP + lane * laneHeight;
      g.fillStyle = '#222';
      if (laneHeight >= 9) g.fillText(`ch ${ch}`, LEFT - 6, y + laneHeight / 2);
      byChannel.get(ch).forEach((i, n) => {
        const x0 = x(rows[i][1]);
        const x1 = x(rows[i][2]);
        g.fillStyle = BAR_SHADES[n % 2];
        g.fillRect(x0, y + 1, Math.max(1, x1 - x0), laneHeight - 2);
      });
    });

    // The field's values as steps, one colour per channel.
    const values = field < 0 ? [] : rows.map(r => toNumber(r[field])).filter(v => v !== null);
    let vmin = values.length ? values.reduce((a, b) => (b < a ? b : a)) : 0;
    let vmax = values.length ? values.reduce((a, b) => (b > a ? b : a)) : 1;
    if (vmin === vmax) { const pad = Math.abs(vmin) * 0.01 || 1; vmin -= pad; vmax += pad; }
    const plotBottom = plotTop + 200;
    const y = v => plotBottom - ((v - vmin) / (vmax - vmin)) * (plotBottom - plotTop);
    g.strokeStyle = '#bbb';
    g.strokeRect(LEFT, plotTop, plotWidth, plotBottom - plotTop);
    g.fillStyle = '#222';
    for (const v of [vmin, (vmin + vmax) / 2, vmax]) g.fillText(formatNumber(v), LEFT - 6, y(v));
    if (field >= 0) {
      g.lineWidth = 1.5;
      lanes.forEach((ch, lane) => {
        g.strokeStyle = PALETTE[lane % PALETTE.length];
        g.beginPath();
        let prevUntil = null;
        for (const i of byChannel.get(ch)) {
          const v = toNumber(rows[i][field]);
          if (v === null) { prevUntil = null; continue; }
          const yy = y(v);
          if (prevUntil === rows[i][1]) g.lineTo(x(rows[i][1]), yy); else g.moveTo(x(rows[i][1]), yy);
          g.lineTo(x(rows[i][2]), yy);
          prevUntil = rows[i][2];
        }
        g.stroke();
      });
    }

    // Key axis: ticks where people read keys (whole runs, round times); labels alternate in two rows where one row
    // would overlap.
    const axis = this.axis(lo, hi);
    g.textBaseline = 'top';
    g.textAlign = 'right';
    g.fillStyle = '#222';
    g.fillText(axis.title, LEFT - 6, plotBottom + 8);
    const widest = Math.max(0, ...axis.ticks.map(t => g.measureText(t.label).width));
    const xs = axis.ticks.map(t => x(t.key));
    const twoRows = xs.some((xx, i) => i > 0 && xx - xs[i - 1] < widest + 8);
    axis.ticks.forEach(({ key, label }, i) => {
      const xx = x(key);
      g.fillStyle = '#bbb';
      g.fillRect(xx, plotBottom, 1, 5);
      g.fillStyle = '#222';
      const half = g.measureText(label).width / 2;
      g.textAlign = 'center';
      g.fillText(label, Math.min(Math.max(xx, LEFT + half), width - RIGHT - half), plotBottom + 8 + (twoRows ? (i % 2) * 12 : 0));
    });
    this.canvas.dataset.ticks = axis.ticks.map(t => t.label).join(' ');
    this.view = { rows, columns, lanes, byChannel, lo, hi, span, plotWidth, laneHeight, lanesBottom };
    return rows.length;
  }

  keyAt(offsetX) {
    const v = this.view;
    const f = Math.min(1, Math.max(0, (offsetX - LEFT) / v.plotWidth));
    return v.lo + BigInt(Math.round(f * v.span));
  }

  /** The IOV of a channel valid at key k (rows of a channel are sorted by since), or -1. */
  find(ch, k) {
    const list = this.view.byChannel.get(ch) ?? [];
    const rows = this.view.rows;
    let a = 0;
    let b = list.length - 1;
    let found = -1;
    while (a <= b) {
      const m = (a + b) >> 1;
      if (rows[list[m]][1] <= k) { found = m; a = m + 1; } else b = m - 1;
    }
    return found >= 0 && rows[list[found]][2] > k ? list[found] : -1;
  }

  hover(e) {
    const v = this.view;
    if (!v || e.offsetX < LEFT) { this.tip.hidden = true; return; }
    const k = this.keyAt(e.offsetX);
    const inLane = e.offsetY >= TOP && e.offsetY < v.lanesBottom;
    const channels = inLane ? [v.lanes[Math.floor((e.offsetY - TOP) / v.laneHeight)]] : v.lanes.slice(0, 8);
    const lines = [`key ${this.formatKey(k)}`];
    for (const ch of channels) {
      const i = this.find(ch, k);
      if (i < 0) { lines.push(`channel ${ch}: no IOV`); continue; }
      const r = v.rows[i];
      const payload = v.columns.slice(3).map((c, j) => `${c.name}=${r[j + 3] === null ? 'NULL' : r[j + 3]}`).join(', ');
      lines.push(`channel ${ch}: ${this.formatKey(r[1])} – ${this.formatKey(r[2])}: ${payload}`);
    }
    this.tip.textContent = lines.join('\n');
    this.tip.hidden = false;
    this.tip.style.left = `${Math.max(0, Math.min(e.offsetX + 14, this.canvas.clientWidth - 640))}px`;
    this.tip.style.top = `${e.offsetY + 14}px`;
  }
}

function toNumber(v) {
  if (v === null || v === undefined) return null;
  if (typeof v === 'boolean') return v ? 1 : 0;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

function formatNumber(v) {
  return Math.abs(v) >= 1e5 || (Math.abs(v) < 1e-3 && v !== 0) ? v.toExponential(3) : String(+v.toPrecision(5));
}
