// Hand-written SVG charts (no library): stacked bars per day, and paired bars per day.

import { count, dayLabel, usd } from './format.js';

const SVG = 'http://www.w3.org/2000/svg';
/** Mid-tone colours readable on light and dark backgrounds; the last one is "other". */
export const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1', '#9c755f'];
const WIDTH = 960;
const HEIGHT = 280;
const PAD = { top: 12, right: 12, bottom: 28, left: 64 };

function node(name, attributes = {}, parent) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  if (parent) parent.appendChild(element);
  return element;
}

function frame(label) {
  const svg = node('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: 'img', 'aria-label': label });
  node('title', {}, svg).textContent = label;
  return svg;
}

/** A rounded top of the scale (1, 2, 5 × 10^n) and its tick values. */
function scale(max) {
  if (!(max > 0)) return { top: 1, ticks: [0, 1] };
  const power = 10 ** Math.floor(Math.log10(max));
  const step =
    [1, 2, 5, 10, 20, 50, 100].map((factor) => (factor * power) / 10).find((candidate) => max / candidate <= 5) ??
    10 * power;
  const top = Math.ceil(max / step) * step;
  const ticks = [];
  for (let index = 0; index * step <= top + step / 2; index++) ticks.push(index * step);
  return { top, ticks };
}

function axes(svg, days, ticks, top, format) {
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  for (const tick of ticks) {
    const y = PAD.top + plotHeight - (tick / top) * plotHeight;
    node('line', { class: 'axis', x1: PAD.left, x2: WIDTH - PAD.right, y1: y, y2: y }, svg);
    const text = node('text', { x: PAD.left - 6, y: y + 4, 'text-anchor': 'end' }, svg);
    text.textContent = format(tick);
  }
  const slot = (WIDTH - PAD.left - PAD.right) / Math.max(days.length, 1);
  const every = Math.max(1, Math.ceil(days.length / 12));
  days.forEach((day, index) => {
    if (index % every !== 0) return;
    const text = node('text', { x: PAD.left + slot * (index + 0.5), y: HEIGHT - 8, 'text-anchor': 'middle' }, svg);
    text.textContent = dayLabel(day);
  });
  return { slot, plotHeight };
}

/** A titled chart with its value axis (up to `max`, rounded up) and its day labels; where the bars go. */
function plot(label, days, max, format) {
  const svg = frame(label);
  const { top, ticks } = scale(max);
  const { slot, plotHeight } = axes(
    svg,
    days.map((day) => day.day),
    ticks,
    top,
    format,
  );
  return { svg, top, slot, plotHeight };
}

/**
 * Stacked bars: one bar per day, one segment per key (`colors` maps key → colour).
 * @param days [{ day, cost, groups: [{ key, cost }] }]
 */
export function stackedBars(container, days, colors, label) {
  const { svg, top, slot, plotHeight } = plot(label, days, Math.max(0, ...days.map((day) => Number(day.cost))), usd);
  const barWidth = Math.max(2, slot * 0.7);
  days.forEach((day, index) => {
    const group = node('g', { 'data-day': day.day, 'data-cost': day.cost }, svg);
    let base = PAD.top + plotHeight;
    for (const part of day.groups ?? []) {
      const height = (Number(part.cost) / top) * plotHeight;
      if (height <= 0) continue;
      base -= height;
      const rect = node(
        'rect',
        {
          x: PAD.left + slot * index + (slot - barWidth) / 2,
          y: base,
          width: barWidth,
          height,
          fill: colors.get(part.key) ?? PALETTE[PALETTE.length - 1],
          'data-key': part.key,
        },
        group,
      );
      node('title', {}, rect).textContent = `${day.day} · ${part.key}: ${usd(part.cost)}`;
    }
  });
  container.replaceChildren(svg);
}

/** Paired bars per day: tokens before (light) and after (dark) context management. */
export function pairedBars(container, days, label) {
  const { svg, top, slot, plotHeight } = plot(label, days, Math.max(0, ...days.map((day) => day.tokensBefore)), count);
  const barWidth = Math.max(1, slot * 0.35);
  days.forEach((day, index) => {
    const group = node('g', { 'data-day': day.day }, svg);
    [
      ['before', day.tokensBefore, 0],
      ['after', day.tokensAfter, 1],
    ].forEach(([kind, value, offset]) => {
      const height = (value / top) * plotHeight;
      if (height <= 0) return;
      const rect = node(
        'rect',
        {
          class: kind,
          x: PAD.left + slot * index + slot * 0.15 + offset * barWidth,
          y: PAD.top + plotHeight - height,
          width: barWidth,
          height,
          'data-kind': kind,
        },
        group,
      );
      node('title', {}, rect).textContent = `${day.day} · ${kind}: ${count(value)} tokens`;
    });
  });
  container.replaceChildren(svg);
}
