/**
 * Longest prefix of `previous` whose ids all occur in `current` in increasing order
 * (messages sent last time that are still there, in the same order). Returns its length
 * and the current index of its last element (-1 when empty).
 */
export function validPrefix(
  previous: readonly string[],
  current: readonly string[],
): { length: number; lastIndex: number } {
  const position = new Map<string, number>();
  current.forEach((id, index) => position.set(id, index));
  let lastIndex = -1;
  let length = 0;
  for (const id of previous) {
    const index = position.get(id);
    if (index === undefined || index <= lastIndex) break;
    lastIndex = index;
    length += 1;
  }
  return { length, lastIndex };
}
