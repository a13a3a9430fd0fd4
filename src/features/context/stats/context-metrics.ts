import { Counter, type Registry } from 'prom-client';

/** What the context filter reports for one planned inlet (see ContextMetrics). */
export interface ContextPlanSample {
  tokensBefore: number;
  tokensAfter: number;
  kept: number;
  summarized: number;
  dropped: number;
}

/** The Prometheus samples of the context filter's plans. */
export interface ContextMetrics {
  /** One planned context (tokens before/after, messages kept/summarized/dropped). */
  contextPlan(sample: ContextPlanSample): void;
}

/**
 * The context filter's Prometheus series, on the host's registry (GET /metrics): inlets planned, prompt tokens before
 * and after, messages kept, summarized and dropped. A sample with a negative or non-finite number is not counted.
 */
export function createContextMetrics(registry: Registry): ContextMetrics {
  const registers = [registry];
  const plans = new Counter({
    name: 'eunoe_context_plans_total',
    help: 'Inlets the context filter planned',
    registers,
  });
  const tokens = new Counter({
    name: 'eunoe_context_tokens_total',
    help: 'Prompt tokens the context filter saw (stage="before") and sent on (stage="after")',
    labelNames: ['stage'],
    registers,
  });
  const messages = new Counter({
    name: 'eunoe_context_messages_total',
    help: 'Messages the context filter kept, summarized or dropped',
    labelNames: ['outcome'],
    registers,
  });
  return {
    contextPlan(sample) {
      for (const value of Object.values(sample)) if (!Number.isFinite(value) || value < 0) return;
      plans.inc();
      tokens.inc({ stage: 'before' }, sample.tokensBefore);
      tokens.inc({ stage: 'after' }, sample.tokensAfter);
      messages.inc({ outcome: 'kept' }, sample.kept);
      messages.inc({ outcome: 'summarized' }, sample.summarized);
      messages.inc({ outcome: 'dropped' }, sample.dropped);
    },
  };
}
