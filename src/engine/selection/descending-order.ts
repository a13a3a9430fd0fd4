/** Reused radix buffers (one sort at a time: the engine is synchronous). */
let scratch = { bits: new Uint32Array(0), order: new Uint32Array(0), spare: new Uint32Array(0) };
const counts = new Uint32Array(256);

/**
 * Positions of `keys` from the largest key to the smallest, ties to the larger position (the
 * newer message): `order.sort((a, b) => keys[b] - keys[a] || b - a)` without a comparator call
 * per comparison. Keys that are not finite and ≥ 0 sort as 0. A stable LSD radix sort of the
 * keys' IEEE-754 bits (for non-negative doubles, their order as unsigned integers), 8 passes
 * of 8 bits, read backwards.
 */
export function descendingOrder(keys: ArrayLike<number>): Uint32Array {
  const count = keys.length;
  if (scratch.order.length < count) {
    const size = Math.max(count, scratch.order.length * 2);
    scratch = { bits: new Uint32Array(size * 2), order: new Uint32Array(size), spare: new Uint32Array(size) };
  }
  const doubles = new Float64Array(scratch.bits.buffer, 0, count);
  for (let at = 0; at < count; at += 1) {
    const key = keys[at]!;
    doubles[at] = key > 0 && key < Number.POSITIVE_INFINITY ? key : 0; // −0 too: its sign bit would sort it last
  }
  // Little-endian on every platform Node runs on: word 2i is the low half, 2i + 1 the high half.
  const bits = scratch.bits;
  let order = scratch.order;
  let spare = scratch.spare;
  for (let at = 0; at < count; at += 1) order[at] = at;
  for (let pass = 0; pass < 8; pass += 1) {
    const word = pass < 4 ? 0 : 1;
    const shift = (pass % 4) * 8;
    counts.fill(0);
    for (let at = 0; at < count; at += 1) counts[(bits[order[at]! * 2 + word]! >>> shift) & 255]! += 1;
    let total = 0;
    for (let digit = 0; digit < 256; digit += 1) {
      const here = counts[digit]!;
      counts[digit] = total;
      total += here;
    }
    for (let at = 0; at < count; at += 1) {
      const position = order[at]!;
      spare[counts[(bits[position * 2 + word]! >>> shift) & 255]!++] = position;
    }
    [order, spare] = [spare, order];
  }
  // Ascending by key, ties by ascending position (stable): read backwards.
  const result = new Uint32Array(count);
  for (let at = 0; at < count; at += 1) result[at] = order[count - 1 - at]!;
  return result;
}
