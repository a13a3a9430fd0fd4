import { describe, expect, it } from 'vitest';
import { contextNoteSchema, formatContextNote } from '../../src/features/context/note/context-note.js';
import { stripContextNotes } from '../../src/domain/notes/context-note-line.js';
import type { ChatMessage } from '../../src/core/messages/chat-message.js';

const base = { before: 6_477, after: 461, messages: 101, leftOut: 94, summarized: 0 };

describe('the context note line with what the budget capped', () => {
  it.each([
    "recent=1000 capped to the admin's budget of 500 tokens",
    '+recent=1000, 3 pinned messages capped to your budget of 300 tokens',
    "recent=1000 (your default flags), full capped to the admin's budget of 1,400 tokens (max_cost_usd 0.002)",
  ])('says "%s" after the counts, and is stripped from the reply with it', (capped) => {
    const note = contextNoteSchema.parse({ ...base, capped, run: 'http://eunoe.local/dashboard#runs/r-9' });
    const line = formatContextNote(note);
    expect(line).toBe(
      `context: 6,477 → 461 tokens · 94 of 101 messages left out · ${capped} · run http://eunoe.local/dashboard#runs/r-9`,
    );
    const messages: ChatMessage[] = [
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: `Hello!\n\n${line}\n\n*12 in · 3 out · $0.0001*` },
    ];
    expect(stripContextNotes(messages)[1]!.content).toBe('Hello!\n\n*12 in · 3 out · $0.0001*');
  });
});
