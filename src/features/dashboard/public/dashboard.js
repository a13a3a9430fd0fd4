// Eunoe dashboard: sign-in, then five views over the JSON endpoints (/usage/daily, /usage/unpriced,
// /usage/caps, /usage/context, /runs, /status). The API key lives in sessionStorage (this tab only) and travels
// as a Bearer header; a `#key=…` fragment (automation) is read once and removed from the address bar.

import { PALETTE, pairedBars, stackedBars } from './charts.js';
import { age, count, day, dayLabel, instant, share, usd } from './format.js';
import { loadRun, loadRuns, runIdFromHash, wireRuns } from './runs.js';

const KEY = 'eunoe.dashboard.key';
const $ = (id) => document.getElementById(id);
const state = { view: 'spend', spend: undefined };

class HttpError extends Error {
  constructor(status, detail) {
    super(detail);
    this.status = status;
  }
}

async function api(path) {
  const response = await fetch(path, {
    headers: { Authorization: `Bearer ${sessionStorage.getItem(KEY) ?? ''}`, Accept: 'application/json' },
  });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new HttpError(response.status, body.detail ?? response.statusText);
  return body;
}

/** Take a `#key=…` fragment once: store it and remove it from the address bar and history. */
function takeKeyFromFragment() {
  const match = /(?:^#|&)key=([^&]*)/.exec(window.location.hash);
  if (!match) return;
  sessionStorage.setItem(KEY, decodeURIComponent(match[1]));
  history.replaceState(null, '', window.location.pathname + window.location.search);
}

function showSignIn(message) {
  sessionStorage.removeItem(KEY);
  $('sign-in').hidden = false;
  $('tabs').hidden = true;
  $('sign-out').hidden = true;
  $('range-bar').hidden = true;
  for (const view of document.querySelectorAll('.view')) view.hidden = true;
  $('sign-in-error').textContent = message ?? '';
  $('key').focus();
}

async function signIn() {
  try {
    await api('/status');
  } catch (error) {
    if (error.status === 401) return showSignIn(`Sign-in failed: ${error.message}. Check the key and try again.`);
    return showSignIn(`Sign-in failed: ${error.message}`);
  }
  $('sign-in').hidden = true;
  $('sign-in-error').textContent = '';
  $('tabs').hidden = false;
  $('sign-out').hidden = false;
  await show(state.view);
  $('main').focus(); // screen readers and keyboard users start at the content, not the form that went away
}

async function show(view, options = {}) {
  state.view = view;
  for (const button of document.querySelectorAll('#tabs button')) {
    if (button.dataset.view === view) button.setAttribute('aria-current', 'page');
    else button.removeAttribute('aria-current');
  }
  for (const section of document.querySelectorAll('.view')) section.hidden = section.id !== `view-${view}`;
  $('range-bar').hidden = !(view === 'spend' || view === 'context');
  $('load-error').textContent = '';
  document.body.dataset.loading = 'true';
  try {
    if (view === 'spend') await loadSpend();
    else if (view === 'caps') await loadCaps();
    else if (view === 'context') await loadContext();
    else if (view === 'runs') await (runIdFromHash() ? loadRun(api, runIdFromHash()) : loadRuns(api, options.more));
    else await loadStatus();
  } catch (error) {
    if (error.status === 401) return showSignIn(`Signed out: ${error.message}`);
    $('load-error').textContent = `Could not load ${view}: ${error.message}`;
  } finally {
    document.body.dataset.loading = 'false';
  }
}

/** The query string of the chosen range. */
function rangeQuery() {
  const choice = $('range').value;
  if (choice === 'month') return '';
  if (choice !== 'custom') return `days=${choice}`;
  const from = $('from').value;
  const to = $('to').value;
  if (!from || !to) return '';
  const end = new Date(`${to}T00:00:00Z`);
  end.setUTCDate(end.getUTCDate() + 1); // the form's "to" is inclusive, the API's exclusive
  return `from=${from}&to=${end.toISOString().slice(0, 10)}`;
}

/** Cards of `[label, value, exact?, options?]`: `options.warn` marks one to act on, `options.text` a sentence. */
function cards(id, entries) {
  $(id).replaceChildren(
    ...entries.map(([label, value, exact, options = {}]) => {
      const item = document.createElement('div');
      if (options.warn) item.className = 'warn';
      const term = document.createElement('dt');
      term.textContent = label;
      const detail = document.createElement('dd');
      detail.textContent = value;
      if (options.text) detail.className = 'text';
      if (exact !== undefined) detail.dataset.exact = exact;
      item.append(term, detail);
      return item;
    }),
  );
}

function cell(text, options = {}) {
  const td = document.createElement(options.header ? 'th' : 'td');
  if (options.header) td.scope = 'row';
  if (options.text) td.className = 'text';
  if (options.header) {
    // Ids such as `vendor/model` may wrap after their slashes.
    const parts = String(text).split('/');
    td.append(...parts.flatMap((part, index) => (index ? ['/', document.createElement('wbr'), part] : [part])));
  } else td.textContent = text;
  if (options.exact !== undefined) td.dataset.exact = options.exact;
  return td;
}

function fillRows(tableId, rows) {
  $(tableId).tBodies[0].replaceChildren(
    ...rows.map((cells) => {
      const tr = document.createElement('tr');
      tr.append(...cells);
      return tr;
    }),
  );
  const wrap = $(tableId).closest('.table-wrap');
  if (wrap) markOverflow(wrap);
}

/** Which side of a table's frame has columns out of view: `data-more` and the hint under the frame. */
function markOverflow(wrap) {
  const hidden = wrap.scrollWidth - wrap.clientWidth;
  const left = wrap.scrollLeft > 1;
  const right = hidden - wrap.scrollLeft > 1;
  const more = left && right ? 'both' : left ? 'left' : right ? 'right' : '';
  if (more) wrap.dataset.more = more;
  else delete wrap.dataset.more;
  const hint = wrap.nextElementSibling;
  if (hint?.classList.contains('scroll-hint')) {
    hint.hidden = !more;
    hint.textContent = right
      ? 'More columns to the right: scroll sideways (or focus the table and use ←/→).'
      : '← More columns to the left.';
  }
}

/**
 * Every table frame scrolls sideways when its table is wider than the page: it is a named, focusable region (the
 * arrow keys scroll it), its title is shown above it (out of the scrolling part), and a hint under it says when
 * columns are out of view, kept up to date as it scrolls or the page is resized.
 */
function wireTableFrames() {
  const resized = new ResizeObserver((entries) => {
    for (const entry of entries) markOverflow(entry.target);
  });
  for (const wrap of document.querySelectorAll('.table-wrap')) {
    wrap.tabIndex = 0;
    wrap.setAttribute('role', 'region');
    const caption = wrap.querySelector('caption');
    if (caption) {
      wrap.setAttribute('aria-label', caption.textContent.trim());
      const title = document.createElement('p');
      title.className = 'table-title';
      title.setAttribute('aria-hidden', 'true'); // the caption says it to screen readers
      title.textContent = caption.textContent.trim();
      wrap.before(title);
    }
    const hint = document.createElement('p');
    hint.className = 'scroll-hint';
    hint.hidden = true;
    wrap.after(hint);
    wrap.addEventListener('scroll', () => markOverflow(wrap), { passive: true });
    resized.observe(wrap);
  }
}

function groupRows(groups) {
  return groups.map((group) => [
    cell(group.key, { header: true }),
    cell(count(group.records)),
    cell(count(group.promptTokens)),
    cell(count(group.completionTokens)),
    cell(count(group.cachedTokens)),
    cell(usd(group.cost), { exact: group.cost }),
    unpricedCell(group.unpriced),
  ]);
}

/** Replies without a price: their count, marked, or a dash when none. */
function unpricedCell(unpriced) {
  const td = cell(unpriced > 0 ? count(unpriced) : '—');
  if (unpriced > 0) {
    td.className = 'warn-text';
    td.title = 'Replies without a price: their cost is not in Cost';
  }
  return td;
}

async function loadSpend() {
  const query = rangeQuery();
  const [byModel, byUser, unpriced, status] = await Promise.all([
    api(`/usage/daily?group_by=model${query ? `&${query}` : ''}`),
    api(`/usage/daily?group_by=user${query ? `&${query}` : ''}`),
    api(`/usage/unpriced${query ? `?${query}` : ''}`),
    api('/status'),
  ]);
  state.spend = { byModel, byUser };
  const last = byModel.series.at(-1)?.day ?? byModel.from;
  $('range-label').textContent = `${dayLabel(byModel.from)} – ${dayLabel(last)} (UTC)`;
  const totals = byModel.totals;
  $('spend-empty').hidden = totals.records > 0;
  cards('spend-cards', [
    ['Total cost', usd(totals.cost), totals.cost],
    ['Replies', count(totals.records)],
    ['Tokens in', count(totals.promptTokens)],
    ['Tokens out', count(totals.completionTokens)],
    ['Cached tokens', count(totals.cachedTokens)],
    ['Unpriced replies', count(totals.unpriced), undefined, { warn: totals.unpriced > 0 }],
  ]);
  showPricingNotice(status.pricing);
  showUnpriced(unpriced);
  renderSpendChart();
  fillRows('top-users', groupRows(byUser.groups));
  fillRows('top-models', groupRows(byModel.groups));
}

/** Replies whose cost is unknown (the model has no price): per model, with what they may have cost. */
function showUnpriced(data) {
  const total = data.totals;
  $('unpriced').hidden = total.records === 0;
  if (total.records === 0) return fillRows('unpriced-table', []);
  const models = data.models.length;
  const without = total.modelsWithoutEstimate;
  const partly = without ? ` for the models that have priced replies (${count(without)} without an estimate)` : '';
  const estimate =
    total.estimate === null
      ? 'There is no estimate: no reply of these models has a cost in this range.'
      : `Estimated at ${usd(total.estimate)}${partly}, from each model's cost per token on its priced replies.`;
  const replies = `${count(total.records)} ${total.records === 1 ? 'reply' : 'replies'}`;
  $('unpriced-summary').textContent =
    `${replies} of ${count(models)} ${models === 1 ? 'model' : 'models'} ` +
    `(${count(total.promptTokens)} tokens in, ${count(total.completionTokens)} out) had no price, so their cost ` +
    `is not in the total above. ${estimate} Add the model to the price table (CUSTOM_PRICING_FILE) or an alias ` +
    '(MODEL_ALIASES_FILE) to price its next replies.';
  fillRows(
    'unpriced-table',
    data.models.map((model) => [
      cell(model.model, { header: true }),
      cell(count(model.records)),
      cell(count(model.promptTokens)),
      cell(count(model.completionTokens)),
      model.estimate === null
        ? cell('no estimate')
        : cell(`≈ ${usd(model.estimate)}`, { exact: model.estimate }),
      cell(
        model.basis
          ? `${count(model.basis.records)} priced ${model.basis.records === 1 ? 'reply' : 'replies'}, ` +
              usd(model.basis.cost)
          : 'no priced reply in range',
        { text: true },
      ),
    ]),
  );
}

/** The refresh's outcome as a word. */
const OUTCOME = { updated: 'Updated', failed: 'Failed', rejected: 'Rejected' };

/** On the Spend view: a sentence when the costs rest on an old price table or the last refresh did not succeed. */
function showPricingNotice(pricing) {
  const notice = $('pricing-notice');
  const last = pricing?.lastRefresh;
  const failed = last && last.outcome !== 'updated';
  if (!pricing || !(pricing.stale || failed)) {
    notice.hidden = true;
    return;
  }
  const parts = [];
  if (pricing.stale)
    parts.push(
      `Costs are computed from a price table ${age(pricing.ageSeconds)} old (prices of ${day(pricing.fetchedAt)}), ` +
        `older than ${pricing.staleAfterDays} days.`,
    );
  if (failed) parts.push(`The last price refresh failed (${instant(last.at)}): ${last.error}.`);
  else if (!pricing.fetchEnabled) parts.push('Refreshing is off (PRICING_FETCH=false).');
  parts.push('See Status.');
  notice.textContent = parts.join(' ');
  notice.hidden = false;
}

function renderSpendChart() {
  if (!state.spend) return;
  const by = $('stack').value;
  const data = by === 'user' ? state.spend.byUser : state.spend.byModel;
  $('stack-label').textContent = by;
  // The seven largest groups get their own colour; the rest share the last one as "other".
  const colors = new Map(data.groups.slice(0, PALETTE.length - 1).map((group, index) => [group.key, PALETTE[index]]));
  stackedBars($('spend-chart'), data.series, colors, `Cost per day by ${by}, ${data.from} to ${data.to} (exclusive)`);
  const legend = data.groups.slice(0, PALETTE.length - 1).map((group) => [group.key, colors.get(group.key)]);
  if (data.groups.length > PALETTE.length - 1) legend.push(['other', PALETTE[PALETTE.length - 1]]);
  $('spend-legend').replaceChildren(
    ...legend.map(([key, color]) => {
      const item = document.createElement('li');
      const swatch = document.createElement('span');
      swatch.className = 'swatch';
      swatch.style.background = color;
      item.append(swatch, key);
      return item;
    }),
  );
}

function csvField(value) {
  let text = String(value ?? '');
  if (/^[=+\-@\t\r]/.test(text) && !/^-?\d/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** CSV of what the Spend view shows: the per-day series by the chosen grouping, with exact costs. */
function downloadCsv() {
  if (!state.spend) return;
  const by = $('stack').value;
  const data = by === 'user' ? state.spend.byUser : state.spend.byModel;
  const lines = [['day', by, 'replies', 'prompt_tokens', 'completion_tokens', 'cached_tokens', 'cost_usd']];
  for (const day of data.series)
    for (const group of day.groups)
      lines.push([
        day.day,
        group.key,
        group.records,
        group.promptTokens,
        group.completionTokens,
        group.cachedTokens,
        group.cost,
      ]);
  const text = `${lines.map((line) => line.map(csvField).join(',')).join('\r\n')}\r\n`;
  const link = document.createElement('a');
  link.href = URL.createObjectURL(new Blob([text], { type: 'text/csv' }));
  link.download = `eunoe-spend-by-${by}-${data.from}-to-${data.to}.csv`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}

async function loadCaps() {
  const caps = await api('/usage/caps');
  const shared = caps.shared ?? [];
  const empty = $('caps-empty');
  if (!caps.filter) {
    empty.textContent =
      'No spend-limit filter is loaded. Add filters/spend-limit.ts and set its daily_limit_usd, monthly_limit_usd, role_limits or user_limits valves (Admin → Settings → Pipelines).';
  } else if (caps.users.length === 0 && shared.length > 0) {
    empty.textContent = 'No user has a cap of their own in force; the groups’ and models’ budgets are below.';
  } else if (caps.users.length === 0) {
    empty.textContent =
      'No user has a cap in force: set daily_limit_usd, monthly_limit_usd, role_limits, user_limits, group_limits or model_limits in the spend-limit valves.';
  }
  empty.hidden = Boolean(caps.filter) && caps.users.length > 0;
  // A user is shown by the email on their newest record when there is one (ids are opaque), else by id.
  const nameOf = (user) => user.email ?? user.user;
  const blocked = caps.users.filter((user) => user.blocked).map(nameOf);
  $('caps-blocked').textContent = blocked.length
    ? `Blocked now (a cap is reached): ${blocked.join(', ')}`
    : caps.users.length
      ? 'Nobody is blocked.'
      : '';
  const passing = caps.users.filter((user) => (caps.passing ?? []).includes(user.user));
  $('caps-passing').textContent = passing.length
    ? `On pace to pass a monthly cap this month: ${passing
        .map((user) => `${nameOf(user)} (${dayLabel(user.caps.find((cap) => cap.pace?.passes)?.pace.passesOn)})`)
        .join(', ')}`
    : '';
  const rows = [];
  for (const user of caps.users) {
    for (const cap of user.caps) {
      const name = cell(nameOf(user), { header: true });
      if (user.email) name.title = `user id ${user.user}`;
      rows.push([name, cell(user.role ?? '—'), ...capCells(cap)]);
    }
  }
  fillRows('caps-table', rows);
  loadSharedCaps(caps, shared);
}

/** A cap's cells from its period to its state (the users' and the shared budgets' tables alike). */
function capCells(cap) {
  const used = document.createElement('td');
  const bar = document.createElement('span');
  bar.className = cap.reached ? 'bar full' : 'bar';
  bar.setAttribute('aria-hidden', 'true');
  const fill = document.createElement('span');
  fill.style.width = `${Math.min(100, cap.percent)}%`;
  bar.append(fill);
  used.append(bar, share(cap.percent / 100));
  const stateCell = cell(cap.reached ? 'Blocked' : 'OK');
  stateCell.className = cap.reached ? 'state-blocked' : 'state-ok';
  return [
    cell(cap.period),
    cell(usd(cap.spent), { exact: cap.spent }),
    cell(usd(cap.cap), { exact: cap.cap }),
    used,
    ...paceCells(cap),
    cell(instant(cap.resetsAt)),
    stateCell,
  ];
}

/**
 * The groups' and model patterns' budgets (group_limits, model_limits): the spend of everyone each holds, against its
 * shared caps, with a group's cap on each member's own spend as a note; who is blocked or on pace to pass.
 */
function loadSharedCaps(caps, shared) {
  $('caps-shared').hidden = shared.length === 0;
  // A group by its name in the valves, a model budget by its pattern (and the group it is for).
  const nameOf = (budget) =>
    budget.kind === 'group' ? budget.group : budget.group ? `${budget.pattern} (${budget.group})` : budget.pattern;
  const byScope = new Map(shared.map((budget) => [budget.scope, budget]));
  const blocked = (caps.sharedBlocked ?? []).map((scope) => byScope.get(scope)).filter(Boolean);
  $('shared-blocked').textContent = blocked.length
    ? `Budgets used up now (everyone they hold is refused): ${blocked.map(nameOf).join(', ')}`
    : 'No shared budget is used up.';
  const passing = (caps.sharedPassing ?? []).map((scope) => byScope.get(scope)).filter(Boolean);
  $('shared-passing').textContent = passing.length
    ? `On pace to pass a monthly budget this month: ${passing
        .map((budget) => `${nameOf(budget)} (${dayLabel(budget.caps.find((cap) => cap.pace?.passes)?.pace.passesOn)})`)
        .join(', ')}`
    : '';
  const rows = [];
  for (const budget of shared) {
    const kind = budget.kind === 'group' ? 'group' : budget.group ? `model, group ${budget.group}` : 'model';
    const member = [
      budget.member?.daily ? `${usd(budget.member.daily)} a day` : '',
      budget.member?.monthly ? `${usd(budget.member.monthly)} a month` : '',
    ]
      .filter(Boolean)
      .join(', ');
    // The name, and a group's cap on each member's own spend as a note under it.
    const name = () => {
      const th = cell(nameOf(budget), { header: true });
      th.title = `scope ${budget.scope}`;
      if (member) {
        const note = document.createElement('span');
        note.className = 'note';
        note.textContent = `each member ${member}`;
        th.append(note);
      }
      return th;
    };
    // A group with per-member caps only: one row with its note.
    if (budget.caps.length === 0) rows.push([name(), cell(kind), ...Array.from({ length: 8 }, () => cell('—'))]);
    for (const cap of budget.caps) rows.push([name(), cell(kind), ...capCells(cap)]);
  }
  fillRows('shared-table', rows);
}

/**
 * A cap's projected month-end spend and its pace (monthly caps; a daily cap has none): "Passes on Nov 28" when the
 * cap is reached before the month resets at this pace. How it is projected: docs/accounting.md, "The month's pace".
 */
function paceCells(cap) {
  if (!cap.pace) return [cell('—'), cell('—')];
  const { pace } = cap;
  const projected = cell(usd(pace.projected), { exact: pace.projected });
  const basis = pace.method === 'recent' ? 'the last 7 full days' : 'the month so far';
  projected.title = `${usd(pace.dailyRate)} a day (${basis}) for the rest of the month`;
  const verdict = cap.reached
    ? cell('Reached')
    : pace.passes
      ? cell(`Passes on ${dayLabel(pace.passesOn)}`)
      : cell('Within cap');
  verdict.className = cap.reached ? 'state-blocked' : pace.passes ? 'state-warn' : 'state-ok';
  if (pace.passesOn) verdict.dataset.day = pace.passesOn;
  return [projected, verdict];
}

async function loadContext() {
  const query = rangeQuery();
  const data = await api(`/usage/context${query ? `?${query}` : ''}`);
  const last = data.days.at(-1)?.day ?? data.from;
  $('range-label').textContent = `${dayLabel(data.from)} – ${dayLabel(last)} (UTC)`;
  const totals = data.totals;
  $('context-empty').hidden = totals.inlets > 0;
  cards('context-cards', [
    ['Requests planned', count(totals.inlets)],
    ['Tokens before', count(totals.tokensBefore)],
    ['Tokens after', count(totals.tokensAfter)],
    ['Saved', share(totals.savedShare)],
    ['Summarizer calls', count(totals.summarizerCalls)],
    ['Summary cache hits', count(totals.cacheHits)],
    ['Prompt tokens from cache', share(totals.cachedShare)],
  ]);
  pairedBars($('context-chart'), data.days, `Prompt tokens per day before and after, ${data.from} to ${data.to}`);
  fillRows(
    'context-table',
    data.days
      .filter((day) => day.inlets > 0)
      .map((day) => [
        cell(day.day, { header: true }),
        cell(count(day.inlets)),
        cell(count(day.tokensBefore)),
        cell(count(day.tokensAfter)),
        cell(share(day.tokensBefore ? 1 - day.tokensAfter / day.tokensBefore : 0)),
        cell(count(day.kept)),
        cell(count(day.summarized)),
        cell(count(day.dropped)),
        cell(count(day.summarizerCalls)),
        cell(count(day.cacheHits)),
        cell(share(day.promptTokens ? day.cachedTokens / day.promptTokens : 0)),
      ]),
  );
}

const failedRefresh = (pricing) => Boolean(pricing?.lastRefresh && pricing.lastRefresh.outcome !== 'updated');

/** The table's age, and when it is older than the dashboard's limit, that it is. */
function tableAge(pricing) {
  if (!pricing) return '—';
  return `${age(pricing.ageSeconds)}${pricing.stale ? ` · older than ${pricing.staleAfterDays} days` : ''}`;
}

/** The last refresh: its outcome and time, or why there was none. */
function lastRefresh(pricing) {
  if (!pricing) return '—';
  const last = pricing.lastRefresh;
  if (last) return `${OUTCOME[last.outcome] ?? last.outcome} · ${instant(last.at)}`;
  return pricing.fetchEnabled ? 'none yet by this server' : 'off (PRICING_FETCH=false)';
}

async function loadStatus() {
  const status = await api('/status');
  const pricing = status.pricing;
  cards('status-cards', [
    ['Version', status.version],
    [
      'State backend',
      `${status.store.backend} · ${status.store.ok ? 'ok' : `down${status.store.detail ? `: ${status.store.detail}` : ''}`}`,
    ],
    ['Price table', pricing ? `${pricing.source} · ${count(pricing.models)} models` : 'not loaded'],
    ['Price table age', tableAge(pricing), undefined, { warn: pricing?.stale }],
    ['Last price refresh', lastRefresh(pricing), undefined, { warn: failedRefresh(pricing), text: true }],
    [
      'Last refresh error',
      failedRefresh(pricing) ? pricing.lastRefresh.error : 'none',
      undefined,
      { warn: failedRefresh(pricing), text: true },
    ],
    [
      'Last successful refresh',
      pricing?.lastSuccessAt ? instant(pricing.lastSuccessAt) : 'none by this server',
      undefined,
      { text: true },
    ],
  ]);
  fillRows(
    'filters-table',
    status.filters.map((filter) => {
      const stateCell = cell(filter.status);
      stateCell.className = filter.status === 'loaded' ? 'state-ok' : 'state-blocked';
      return [
        cell(filter.id, { header: true }),
        cell(filter.name, { text: true }),
        stateCell,
        cell(filter.isolation ?? '—'),
        cell(filter.priority ?? '—'),
        cell(filter.error ? `${filter.error}${filter.line ? ` (line ${filter.line})` : ''}` : '', { text: true }),
      ];
    }),
  );
}

function start() {
  takeKeyFromFragment();
  wireTableFrames();
  $('sign-in-form').addEventListener('submit', (event) => {
    event.preventDefault();
    sessionStorage.setItem(KEY, $('key').value.trim());
    $('key').value = '';
    void signIn();
  });
  $('sign-out').addEventListener('click', () => showSignIn('Signed out.'));
  for (const button of document.querySelectorAll('#tabs button'))
    button.addEventListener('click', () => {
      // A tab shows its view from the top: a run's page (#runs/<id>) is left.
      if (runIdFromHash()) history.replaceState(null, '', window.location.pathname + window.location.search);
      void show(button.dataset.view);
    });
  wireRuns((more) => void show('runs', { more }));
  window.addEventListener('hashchange', () => {
    if (runIdFromHash() && !$('tabs').hidden) void show('runs');
  });
  if (runIdFromHash()) state.view = 'runs'; // a link to a run (the status line's, for admins)
  $('range').addEventListener('change', () => {
    $('custom-range').hidden = $('range').value !== 'custom';
    if ($('range').value !== 'custom') void show(state.view);
  });
  $('apply-range').addEventListener('click', () => void show(state.view));
  $('stack').addEventListener('change', renderSpendChart);
  $('download-csv').addEventListener('click', downloadCsv);
  if (sessionStorage.getItem(KEY)) void signIn();
  else showSignIn();
}

start();
