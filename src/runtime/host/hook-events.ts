import type { FilterEvent } from './types.js';

/** Most events one request keeps (a filter that emits in a loop cannot grow a response without bound). */
export const MAX_EVENTS = 20;
/** Longest text kept in one event's description or content. */
export const MAX_EVENT_TEXT = 500;

const NOTIFICATION_TYPES = new Set(['info', 'success', 'warning', 'error']);

const clip = (text: string): string => (text.length > MAX_EVENT_TEXT ? `${text.slice(0, MAX_EVENT_TEXT - 1)}…` : text);

/** The event in its clean shape, or undefined when it is not one (a filter's mistake is dropped, never thrown). */
export function cleanEvent(event: unknown): FilterEvent | undefined {
  if (typeof event !== 'object' || event === null) return undefined;
  const { type, data } = event as { type?: unknown; data?: unknown };
  if (typeof data !== 'object' || data === null) return undefined;
  const fields = data as Record<string, unknown>;
  if (type === 'status' && typeof fields.description === 'string') {
    return {
      type,
      data: {
        description: clip(fields.description),
        done: fields.done !== false,
        ...(fields.hidden === true ? { hidden: true } : {}),
      },
    };
  }
  if (type === 'notification' && typeof fields.content === 'string') {
    const kind = NOTIFICATION_TYPES.has(String(fields.type)) ? fields.type : 'info';
    return {
      type,
      data: { type: kind as 'info' | 'success' | 'warning' | 'error', content: clip(fields.content) },
    };
  }
  return undefined;
}

/**
 * The events the hooks of one request emitted, in order. `emit` is what a hook receives: it
 * never throws, drops what is not an event, and keeps at most MAX_EVENTS.
 */
export class HookEvents {
  readonly list: FilterEvent[] = [];

  readonly emit = (event: FilterEvent): void => {
    if (this.list.length >= MAX_EVENTS) return;
    const clean = cleanEvent(event);
    if (clean) this.list.push(clean);
  };
}
