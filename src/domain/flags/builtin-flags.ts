import type { FlagSpec } from './types.js';

/** The flags the host knows without any filter: they steer the context filter. */
export const builtinFlags: readonly FlagSpec[] = Object.freeze([
  { key: 'full', kind: 'boolean', description: 'No trimming this turn: send the whole history.', example: '!full' },
  { key: 'nosum', kind: 'boolean', description: 'Drop messages instead of summarizing them.', example: '!+nosum' },
  {
    key: 'target',
    kind: 'integer',
    min: 1,
    description: 'Soft token target for the context.',
    example: '!target=8000',
  },
  { key: 'context', kind: 'integer', min: 1, description: 'Only the last N turns.', example: '!context=5' },
  { key: 'recent', kind: 'integer', min: 0, description: 'Force-keep the last N messages.', example: '!recent=6' },
  {
    key: 'pin',
    kind: 'boolean',
    scope: 'message',
    description: 'Never drop or summarize the message that carries the flag, on this and every later turn.',
    example: '!pin Remember this schema',
  },
  {
    key: 'tag',
    kind: 'string',
    scope: 'message',
    description: 'Tag the message that carries the flag (a quoted list "a,b" gives several tags).',
    example: '!tag=decision We use Postgres',
  },
  {
    key: 'keep_tag',
    kind: 'string',
    description: 'Keep every message with this tag (quoted list "a,b" for several).',
    example: '!+keep_tag=decision',
  },
  {
    key: 'weight',
    kind: 'number',
    min: 0,
    max: 10,
    description: 'Base weight of this message in scoring.',
    example: '!weight=2',
  },
  {
    key: 'tool_penalty',
    kind: 'number',
    min: 0,
    max: 1,
    description: 'Scoring factor for tool calls and results.',
    example: '!tool_penalty=0.2',
  },
  {
    key: 'pair_coherence',
    kind: 'number',
    min: 0,
    max: 1,
    description: 'How strongly a reply follows its question in scoring.',
    example: '!pair_coherence=0.9',
  },
  {
    key: 'flags',
    kind: 'boolean',
    description: 'Show the flags active in this chat under the reply.',
    example: '!flags',
  },
] satisfies FlagSpec[]);
