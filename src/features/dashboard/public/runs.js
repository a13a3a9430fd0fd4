// The Runs view: the context filter's run records (GET /runs, GET /runs/:id). A list by time, filtered by chat,
// user and model, paged with "Older runs"; a run page draws the conversation as a strip of messages coloured by
// disposition (score and reason on hover or focus; arrow keys move along it), sortable by score, with the budget bar,
// the totals and, in `preview` mode, each message's first characters. A message the engine sent trimmed (a long tool
// result cut to the lines the question needs) is hatched in the strip and badged when focused.

import { count, share } from './format.js';

const $ = (id) => document.getElementById(id);
const DISPOSITIONS = ['kept', 'pinned', 'summarized', 'dropped'];
const view = { next: null, run: undefined, focus: 0 };

/** The `#runs/<id>` fragment's run id, if any. */
export function runIdFromHash() {
  const match = /^#runs\/([0-9a-z]{9}-[0-9a-f]{8})$/.exec(window.location.hash);
  return match ? match[1] : undefined;
}

function filtersQuery() {
  const parts = [];
  for (const name of ['chat', 'user', 'model']) {
    const value = $(`runs-${name}`).value.trim();
    if (value) parts.push(`${name}=${encodeURIComponent(value)}`);
  }
  return parts;
}

function time(ms) {
  return new Date(ms).toISOString().replace('T', ' ').slice(0, 19);
}

function td(text, className) {
  const cell = document.createElement('td');
  cell.textContent = text;
  if (className) cell.className = className;
  return cell;
}

function runRow(run) {
  const tr = document.createElement('tr');
  const when = document.createElement('th');
  when.scope = 'row';
  const link = document.createElement('a');
  link.href = `#runs/${run.id}`;
  link.textContent = time(run.time).slice(5); // MM-DD hh:mm:ss (the caption says UTC)
  link.title = time(run.time);
  link.dataset.run = run.id;
  when.append(link);
  const t = run.totals;
  const chat = td(run.chat, 'chat');
  chat.title = run.chat;
  tr.append(
    when,
    chat,
    td(run.user ?? '—'),
    td(run.model ?? '—'),
    td(count(t.messages)),
    td(`${count(t.tokensBefore)} → ${count(t.tokensAfter)}`),
    td(`${count(t.kept + t.pinned)} · ${count(t.summarized)} · ${count(t.dropped)}`),
    td(run.budget.limitTokens ? `${count(run.budget.limitTokens)} (${run.budget.source})` : run.budget.source),
  );
  return tr;
}

/** The list of runs (`more`: append the next page). */
export async function loadRuns(api, more = false) {
  $('run-detail').hidden = true;
  $('runs-list').hidden = false;
  const query = filtersQuery();
  if (more && view.next) query.push(`before=${view.next}`);
  query.push('limit=50');
  const page = await api(`/runs?${query.join('&')}`);
  const body = $('runs-table').tBodies[0];
  const rows = page.runs.map(runRow);
  if (more) body.append(...rows);
  else body.replaceChildren(...rows);
  view.next = page.next;
  $('runs-more').hidden = !page.next;
  const empty = body.rows.length === 0;
  $('runs-empty').hidden = !empty;
  $('runs-table-wrap').hidden = empty;
  $('runs-empty').textContent = filtersQuery().length
    ? 'No runs match these filters.'
    : 'No runs recorded yet. The context filter records every request it plans (its inspect valve: structure by default, preview, or off); chat with a model the filter applies to.';
}

function describe(message) {
  const parts = [
    `#${message.index} ${message.role}`,
    `${count(message.tokens)} tokens`,
    `score ${message.score.toFixed(3)}`,
    `${message.disposition}: ${message.reason}`,
  ];
  return parts.join(' · ');
}

/** `trimmed from 74,683 tokens, 2,992 lines left out` for a trimmed message, else undefined. */
function trimmedText(message) {
  const trimmed = message.trimmed;
  if (!trimmed) return undefined;
  return `trimmed from ${count(trimmed.tokensBefore)} tokens, ${count(trimmed.leftOut)} ${trimmed.unit} left out`;
}

function showFocus(message) {
  $('run-focus').textContent = describe(message);
  const trimmed = trimmedText(message);
  $('run-trimmed').textContent = trimmed ?? '';
  $('run-trimmed').hidden = trimmed === undefined;
  $('run-preview').textContent = message.preview ?? '';
  $('run-preview').hidden = message.preview === undefined;
}

/** The strip: one segment per message, its width in proportion to its tokens (at least a pixel), in the chosen order. */
function drawStrip() {
  const run = view.run;
  const byScore = $('run-order').value === 'score';
  const messages = byScore ? [...run.messages].sort((a, b) => b.score - a.score || a.index - b.index) : run.messages;
  const total = run.messages.reduce((sum, message) => sum + message.tokens, 0) || 1;
  const strip = $('run-strip');
  strip.replaceChildren(
    ...messages.map((message, position) => {
      const item = document.createElement('li');
      const trimmed = trimmedText(message);
      item.className = `seg ${message.disposition}${trimmed ? ' trimmed' : ''}`;
      item.dataset.index = String(message.index);
      item.dataset.disposition = message.disposition;
      if (trimmed) item.dataset.trimmed = trimmed;
      item.dataset.score = String(message.score);
      item.setAttribute('role', 'option');
      item.setAttribute('aria-label', describe(message));
      item.title = describe(message);
      item.tabIndex = position === 0 ? 0 : -1;
      item.style.flexGrow = String(Math.max(message.tokens, 1) / total);
      item.addEventListener('focus', () => {
        view.focus = position;
        for (const other of strip.children) other.tabIndex = other === item ? 0 : -1;
        item.setAttribute('aria-selected', 'true');
        showFocus(message);
      });
      item.addEventListener('blur', () => item.removeAttribute('aria-selected'));
      item.addEventListener('mouseenter', () => showFocus(message));
      return item;
    }),
  );
  view.focus = 0;
  showFocus(messages[0]);
}

function moveFocus(event) {
  const items = $('run-strip').children;
  if (!items.length) return;
  const steps = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1, PageDown: 10, PageUp: -10 };
  let next;
  if (event.key in steps) next = view.focus + steps[event.key];
  else if (event.key === 'Home') next = 0;
  else if (event.key === 'End') next = items.length - 1;
  else return;
  event.preventDefault();
  items[Math.max(0, Math.min(items.length - 1, next))].focus();
}

function budgetBar(run) {
  const { limitTokens } = run.budget;
  const { tokensBefore, tokensAfter } = run.totals;
  const scale = Math.max(limitTokens, tokensBefore, 1);
  $('run-budget-used').style.width = `${(tokensAfter / scale) * 100}%`;
  $('run-budget-limit').style.left = `${(Math.min(limitTokens || scale, scale) / scale) * 100}%`;
  $('run-budget-limit').hidden = !limitTokens;
  $('run-budget-label').textContent = limitTokens
    ? `${count(tokensAfter)} of ${count(limitTokens)} tokens sent (budget from ${run.budget.source}); ${count(tokensBefore)} in the whole conversation`
    : `${count(tokensAfter)} tokens sent, no budget (${run.budget.source}); ${count(tokensBefore)} in the whole conversation`;
  $('run-budget').setAttribute('aria-valuenow', String(tokensAfter));
  $('run-budget').setAttribute('aria-valuemax', String(scale));
}

/** One run's page. */
export async function loadRun(api, id) {
  $('runs-list').hidden = true;
  $('run-detail').hidden = false;
  const run = await api(`/runs/${encodeURIComponent(id)}`);
  view.run = run;
  $('run-title').textContent = `Run of ${new Date(run.time).toISOString().replace('T', ' ').slice(0, 19)} UTC`;
  $('run-meta').textContent = `chat ${run.chat} · user ${run.user ?? '—'} · model ${run.model ?? '—'} · ${run.algorithm} / ${run.weighting} · ${run.durationMs} ms`;
  const t = run.totals;
  const saved = t.tokensBefore ? 1 - t.tokensAfter / t.tokensBefore : 0;
  const trimmedCount = run.messages.filter((message) => message.trimmed).length;
  const cards = [
    ['Messages', count(t.messages)],
    ['Kept', count(t.kept)],
    ['Pinned', count(t.pinned)],
    ['Summarized', count(t.summarized)],
    ['Dropped', count(t.dropped)],
    ...(trimmedCount ? [['Trimmed', count(trimmedCount)]] : []),
    ['Tokens before', count(t.tokensBefore)],
    ['Tokens after', count(t.tokensAfter)],
    ['Saved', share(saved)],
  ];
  $('run-cards').replaceChildren(
    ...cards.map(([label, value]) => {
      const item = document.createElement('div');
      const term = document.createElement('dt');
      term.textContent = label;
      const detail = document.createElement('dd');
      detail.textContent = value;
      item.append(term, detail);
      return item;
    }),
  );
  budgetBar(run);
  const flags = Object.entries(run.flags).map(([key, value]) => (value === true ? `!${key}` : `!${key}=${value}`));
  $('run-flags').textContent = flags.length ? `Flags in force: ${flags.join(' ')}` : 'No flags in force.';
  $('run-summaries').textContent = `Summaries: ${count(run.summaries.made)} messages summarized, ${count(run.summaries.calls)} summarizer calls, ${count(run.summaries.cacheHits)} cache hits.`;
  $('run-notes').replaceChildren(
    ...run.notes.map((note) => {
      const item = document.createElement('li');
      item.textContent = note;
      return item;
    }),
  );
  drawStrip();
}

/** Wires the view's controls once; `reload` shows the list again (the caller's loading state included). */
export function wireRuns(reload) {
  $('runs-filters').addEventListener('submit', (event) => {
    event.preventDefault();
    reload(false);
  });
  $('runs-more').addEventListener('click', () => reload(true));
  $('run-order').addEventListener('change', drawStrip);
  $('run-strip').addEventListener('keydown', moveFocus);
  $('run-back').addEventListener('click', (event) => {
    event.preventDefault();
    history.pushState(null, '', window.location.pathname + window.location.search);
    reload(false);
  });
  $('run-strip').setAttribute('aria-describedby', 'run-focus');
  for (const disposition of DISPOSITIONS) $(`legend-${disposition}`).dataset.disposition = disposition;
}
