import { createRng } from './rng.js';
import { fillInOrder, type SelectionInput } from './selection.js';

/** Random baseline: messages in a seeded random order, each kept if it still fits. */
export function randomSelection(seed: number): (input: SelectionInput) => number[] {
  return (input) => {
    const order = createRng(seed).shuffle(input.messages.map((_, index) => index));
    return fillInOrder(input, order);
  };
}
