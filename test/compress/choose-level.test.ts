import { describe, expect, it } from 'vitest';
import {
  chooseLevel,
  DEFAULT_LEVEL_POLICY,
  type LevelPolicy,
} from '../../src/features/context/compress/summary-level.js';

const only = (turn: boolean, segment: boolean, conversation: boolean): LevelPolicy => ({
  ...DEFAULT_LEVEL_POLICY,
  enabled: { turn, segment, conversation },
});

describe('chooseLevel', () => {
  it.each([
    [0, 40, DEFAULT_LEVEL_POLICY, undefined],
    [2, 40, DEFAULT_LEVEL_POLICY, 'turn'],
    [6, 40, DEFAULT_LEVEL_POLICY, 'turn'],
    [7, 40, DEFAULT_LEVEL_POLICY, 'segment'],
    [23, 40, DEFAULT_LEVEL_POLICY, 'segment'],
    [24, 40, DEFAULT_LEVEL_POLICY, 'conversation'],
    [4, 6, DEFAULT_LEVEL_POLICY, 'conversation'],
    [2, 40, only(false, true, true), 'segment'],
    [30, 40, only(true, true, false), 'segment'],
    [30, 40, only(true, false, false), 'turn'],
    [10, 40, only(false, false, true), 'conversation'],
    [10, 40, only(false, false, false), undefined],
  ] as const)('%i of %i chat messages → %s', (summarized, chat, policy, level) => {
    expect(chooseLevel(summarized, chat, policy)).toBe(level);
  });
});
