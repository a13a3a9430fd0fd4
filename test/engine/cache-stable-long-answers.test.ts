import { describe, expect, it } from 'vitest';
import { countMessageTokens } from '../../src/domain/engine/index.js';
import { encoder, longAnswerChat, replayCacheStable } from './helpers/long-answer-chat.js';

/**
 * cache_stable on a chat of long answers (a user and an assistant, each answer ~400 tokens: one exchange is a fifth of
 * a 2k budget), replayed exchange by exchange with the chat's previous prompt, as the context filter gives it. The
 * prompt cache hits only up to the first message that differs from the previous prompt, so the core must stay as it
 * was sent: a full core keeps its messages (newer history waits outside it) instead of losing its oldest ones at
 * every other request, and starts again only once the history left out behind it passes CORE_MAX_GAP rooms, from what
 * the question needs, opening with the part of the old core it still needs.
 */

describe('cache_stable on a chat of long answers, exchange by exchange', () => {
  it('keeps sending the core it sent (the prompt cache keeps hitting), within the budget and in order', () => {
    const history = longAnswerChat(60, 12);
    const tokens = history.map((message) => countMessageTokens(message, encoder));
    expect(Math.min(...tokens.filter((_, at) => at % 2 === 1))).toBeGreaterThan(300);
    const requests = replayCacheStable(history, 2000);
    const restarts = requests.filter((request) => request.restarted).length;
    // The core sent last time leads again: the system prompt and more than one exchange of history…
    const kept = requests.filter((request) => !request.restarted && request.lead >= 3).length;
    // …and a core that starts again from what the question needs keeps the lead of the old one it still needs.
    const restartsKeepingLead = requests.filter((request) => request.restarted && request.lead >= 3).length;
    expect(requests.length).toBeGreaterThan(20);
    // Every request that does not start the core again repeats the previous core first…
    expect(kept).toBe(requests.length - restarts);
    // …the core starts again once the history left out behind it passes CORE_MAX_GAP rooms…
    expect(restarts).toBeGreaterThan(0);
    // …and then still opens with the part of the old core the question needs (here, every time).
    expect(restartsKeepingLead).toBe(restarts);
  });
});
