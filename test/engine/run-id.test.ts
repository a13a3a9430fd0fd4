import { describe, expect, it } from 'vitest';
import { runId } from '../../src/domain/engine/plan/run-id.js';

describe('run ids', () => {
  const ids = ['aaaaaaaaaaaaaaaa', 'bbbbbbbbbbbbbbbb', 'bbbbbbbbbbbbbbbb~1'];
  it('are the same for the same ids, model and options', () => {
    expect(runId([...ids], 'gpt-4o', { maxTokens: 10 })).toBe(runId(ids, 'gpt-4o', { maxTokens: 10 }));
    expect(runId(ids, 'gpt-4o', {})).toMatch(/^run_[\w-]{16}$/);
  });
  it.each([
    ['another order', [ids[1]!, ids[0]!, ids[2]!], 'gpt-4o', {}],
    ['one id fewer', ids.slice(0, 2), 'gpt-4o', {}],
    ['ids joined differently', ['aaaaaaaaaaaaaaaabbbbbbbbbbbbbbbb', 'bbbbbbbbbbbbbbbb~1'], 'gpt-4o', {}],
    ['another model', ids, 'gpt-4o-mini', {}],
    ['other options', ids, 'gpt-4o', { maxTokens: 11 }],
  ])('change with %s', (_label, otherIds, model, options) => {
    expect(runId(otherIds, model, options)).not.toBe(runId(ids, 'gpt-4o', {}));
  });
});
