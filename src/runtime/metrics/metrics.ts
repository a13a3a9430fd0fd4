import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { ERROR_CODES } from '../../core/errors/index.js';
import type { StoreHealth } from '../../state/types.js';

/** Where the metrics read gauges from at scrape time. */
export interface MetricsSources {
  /** The state store's health (backend up/down, ledger writes queued while Redis is away). */
  storeHealth?: () => StoreHealth;
  /** Age of the price table in seconds. */
  pricingAgeSeconds?: () => number;
  /** Model ids the admin wants as labels of their own besides the price table's (METRICS_MODELS). */
  knownModels?: readonly string[];
}

/** The label value every model, error code or cost source outside the known ones is counted under. */
export const OTHER_LABEL = 'other';
/** At most this many distinct model labels, whatever the price table holds (a backstop: then `other`). */
export const MAX_MODEL_LABELS = 1_000;
/** At most this many distinct error codes of filters' own (beyond Eunoe's catalogue); the rest are `other`. */
export const MAX_FILTER_CODE_LABELS = 50;

const COST_SOURCES = new Set(['reported', 'computed', 'estimated', 'unpriced']);

/**
 * Label values from a set that grows to `max` distinct values, then answers `other` for any new one: a label
 * fed by what callers send can never add series without end.
 */
class BoundedLabels {
  private readonly seen = new Set<string>();
  constructor(private readonly max: number) {}
  value(candidate: string): string {
    if (this.seen.has(candidate)) return candidate;
    if (this.seen.size >= this.max) return OTHER_LABEL;
    this.seen.add(candidate);
    return candidate;
  }
}

/** Codes the host gives a hook that failed (threw a plain error, crashed its worker, returned no body). */
const HOOK_FAILURES = new Set(['ERR_FILTER_FAILED', 'ERR_FILTER_CRASHED']);

const SECONDS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * Eunoe's Prometheus metrics on their own registry (several runtimes in one process never clash):
 * HTTP requests, hook durations and failures, usage and cost, pricing age, state
 * backend health, and Node's default process metrics. Scrape text with `registry.metrics()`.
 *
 * Every label has a bounded set of values, whatever callers send: routes are patterns, filters the loaded ones,
 * statuses numbers; a model is labelled with the price-table id it resolved to (or its own id when the admin lists
 * it in METRICS_MODELS), any other model is `other`; error codes are Eunoe's catalogue plus the first
 * MAX_FILTER_CODE_LABELS codes of filters' own, then `other`.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly httpRequests: Counter<'route' | 'method' | 'status'>;
  private readonly hookDuration: Histogram<'filter' | 'hook'>;
  private readonly filterErrors: Counter<'filter' | 'hook' | 'code'>;
  private readonly filterTimeouts: Counter<'filter' | 'hook'>;
  private readonly filterRejections: Counter<'filter' | 'hook' | 'status' | 'code'>;
  private readonly usageTokens: Counter<'model' | 'kind'>;
  private readonly usageCost: Counter<'model'>;
  private readonly usageRecords: Counter<'model' | 'cost_source'>;
  private readonly ledgerUnrecorded: Counter;
  private readonly knownModels: ReadonlySet<string>;
  private readonly modelLabels = new BoundedLabels(MAX_MODEL_LABELS);
  private readonly codeLabels = new BoundedLabels(MAX_FILTER_CODE_LABELS);

  constructor(sources: MetricsSources = {}) {
    this.knownModels = new Set(sources.knownModels ?? []);
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.httpRequests = new Counter({
      name: 'eunoe_http_requests_total',
      help: 'HTTP requests answered, by route pattern, method and status',
      labelNames: ['route', 'method', 'status'],
      registers,
    });
    this.hookDuration = new Histogram({
      name: 'eunoe_hook_duration_seconds',
      help: 'Time a filter hook took (failed calls included), by filter and hook',
      labelNames: ['filter', 'hook'],
      buckets: SECONDS,
      registers,
    });
    this.filterErrors = new Counter({
      name: 'eunoe_filter_errors_total',
      help: 'Hook calls that failed (threw, crashed, returned no body), by filter, hook and error code',
      labelNames: ['filter', 'hook', 'code'],
      registers,
    });
    this.filterTimeouts = new Counter({
      name: 'eunoe_filter_timeouts_total',
      help: 'Hook calls that ran past HOOK_TIMEOUT_MS (answered 504)',
      labelNames: ['filter', 'hook'],
      registers,
    });
    this.filterRejections = new Counter({
      name: 'eunoe_filter_rejections_total',
      help: 'Requests a filter stopped on purpose (FilterError), by filter, hook, status and code (spend limit: code="ERR_SPEND_LIMIT")',
      labelNames: ['filter', 'hook', 'status', 'code'],
      registers,
    });
    this.usageTokens = new Counter({
      name: 'eunoe_usage_tokens_total',
      help: 'Tokens recorded in the ledger, by model and kind (prompt, completion, cached, reasoning)',
      labelNames: ['model', 'kind'],
      registers,
    });
    this.usageCost = new Counter({
      name: 'eunoe_usage_cost_usd_total',
      help: 'USD cost recorded in the ledger, by model (the exact decimals summed as a float)',
      labelNames: ['model'],
      registers,
    });
    this.usageRecords = new Counter({
      name: 'eunoe_usage_records_total',
      help: 'Ledger records written, by model and cost source',
      labelNames: ['model', 'cost_source'],
      registers,
    });
    this.ledgerUnrecorded = new Counter({
      name: 'eunoe_ledger_unrecorded_total',
      help: 'Ledger records that could be neither written nor journaled (the disk and the journal reserve full, LEDGER_QUEUE_MAX reached): their outlets answered 503',
      registers,
    });
    new Gauge({
      name: 'eunoe_pricing_table_age_seconds',
      help: 'Age of the price table in use (since it was fetched)',
      registers,
      collect() {
        if (sources.pricingAgeSeconds) this.set(sources.pricingAgeSeconds());
      },
    });
    new Gauge({
      name: 'eunoe_state_backend_up',
      help: 'Whether the state backend is healthy (1: answers, no ledger write waiting in the journal) or not (0), by backend',
      labelNames: ['backend'],
      registers,
      collect() {
        const health = sources.storeHealth?.();
        if (health) this.set({ backend: health.backend }, health.ok ? 1 : 0);
      },
    });
    new Gauge({
      name: 'eunoe_ledger_queue_depth',
      help: 'Ledger writes held in the local journal (the store unreachable, or the write refused and retried)',
      registers,
      collect() {
        const health = sources.storeHealth?.();
        if (health) this.set(health.queued ?? 0);
      },
    });
  }

  /** One answered HTTP request. */
  observeRequest(route: string, method: string, status: number): void {
    this.httpRequests.inc({ route, method, status: String(status) });
  }

  /** One hook call: its duration, and how it failed (`error` with a `code` and `status`), if it did. */
  observeHook(filter: string, hook: string, seconds: number, error?: { code?: string; status?: number }): void {
    this.hookDuration.observe({ filter, hook }, seconds);
    if (!error) return;
    const code = this.codeLabel(error.code ?? 'ERR_FILTER_FAILED');
    if (code === 'ERR_FILTER_TIMEOUT') this.filterTimeouts.inc({ filter, hook });
    else if (HOOK_FAILURES.has(code) || error.status === undefined) this.filterErrors.inc({ filter, hook, code });
    // Any other coded error with a status is the filter's own answer (FilterError: 429 spend limit, 403, 503…).
    else this.filterRejections.inc({ filter, hook, status: String(error.status), code });
  }

  /** One ledger record the store refused (neither written nor journaled). */
  usageUnrecorded(): void {
    this.ledgerUnrecorded.inc();
  }

  /**
   * The model label of a ledger record: the model as sent when the admin lists it (METRICS_MODELS) or it is a
   * price-table id itself, else the price-table id it resolved to, else `other` (`unknown` when it had none).
   */
  private modelLabel(model: string, pricedAs: string | undefined): string {
    if (!model) return 'unknown';
    if (this.knownModels.has(model)) return this.modelLabels.value(model);
    if (pricedAs) return this.modelLabels.value(pricedAs);
    return OTHER_LABEL;
  }

  /** An error code as a label: Eunoe's own always, a filter's own while there are few. */
  private codeLabel(code: string): string {
    return Object.hasOwn(ERROR_CODES, code) ? code : this.codeLabels.value(code);
  }

  /** One new ledger record (a repeated message id is not counted twice: the caller passes new ones only). */
  usageRecorded(record: {
    model: string;
    /** The price-table id the model resolved to, when it did. */
    pricedAs?: string;
    cost: string;
    costSource: string;
    promptTokens: number;
    completionTokens: number;
    cachedTokens: number;
    reasoningTokens: number;
  }): void {
    const model = this.modelLabel(record.model, record.pricedAs);
    const costSource = COST_SOURCES.has(record.costSource) ? record.costSource : OTHER_LABEL;
    this.usageRecords.inc({ model, cost_source: costSource });
    const count = (value: number) => (Number.isFinite(value) && value > 0 ? value : 0);
    this.usageTokens.inc({ model, kind: 'prompt' }, count(record.promptTokens));
    this.usageTokens.inc({ model, kind: 'completion' }, count(record.completionTokens));
    this.usageTokens.inc({ model, kind: 'cached' }, count(record.cachedTokens));
    this.usageTokens.inc({ model, kind: 'reasoning' }, count(record.reasoningTokens));
    const cost = Number(record.cost);
    if (Number.isFinite(cost) && cost > 0) this.usageCost.inc({ model }, cost);
  }
}
