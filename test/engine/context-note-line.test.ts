import { describe, expect, it } from 'vitest';
import { formatContextNote } from '../../src/features/context/note/context-note.js';
import { stripContextNotes } from '../../src/domain/notes/context-note-line.js';
import type { ChatMessage } from '../../src/core/messages/chat-message.js';

const base = { before: 20_712, after: 1_986, messages: 690, leftOut: 612, summarized: 2 };

describe('the context note line', () => {
  it('carries the counts, then the repeated share, then the admin link to the run', () => {
    expect(formatContextNote(base)).toBe(
      'context: 20,712 → 1,986 tokens · 612 of 690 messages left out · 2 summarized',
    );
    expect(formatContextNote({ ...base, repeated: 0.624, run: 'http://eunoe.local/dashboard#runs/r-1' })).toBe(
      'context: 20,712 → 1,986 tokens · 612 of 690 messages left out · 2 summarized' +
        ' · 62% of the prompt repeats the previous one · run http://eunoe.local/dashboard#runs/r-1',
    );
    expect(formatContextNote({ ...base, leftOut: 0, repeated: 1 })).toBe(
      'context: 1,986 tokens · all 690 messages sent · 100% of the prompt repeats the previous one',
    );
  });

  it('a note with every part is stripped from the reply, the usage line after it kept', () => {
    const line = formatContextNote({ ...base, repeated: 0.5, run: 'http://eunoe.local/dashboard#runs/r-2' });
    const messages: ChatMessage[] = [
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: `Hello!\n\n${line}\n\n*12 in · 3 out · $0.0001*` },
    ];
    expect(stripContextNotes(messages)[1]!.content).toBe('Hello!\n\n*12 in · 3 out · $0.0001*');
  });
});
