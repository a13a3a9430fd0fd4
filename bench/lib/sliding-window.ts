import { fillInOrder, type SelectionInput } from './selection.js';

/** Keep-the-newest baseline: the longest run of newest messages that fits (plus system and last user). */
export function slidingWindow(input: SelectionInput): number[] {
  const newestFirst = input.messages.map((_, index) => index).reverse();
  return fillInOrder(input, newestFirst, true);
}
