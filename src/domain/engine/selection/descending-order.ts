/**
 * Positions of `keys` from the largest key to the smallest, ties to the larger position (the
 * newer message): `order.sort((a, b) => keys[b] - keys[a] || b - a)` without a comparator call
 * per comparison (about 4× faster on a 700-message chat). Keys that are not finite and > 0 sort
 * as 0. A quicksort (median of three, the smaller side first so the stack stays logarithmic)
 * with an insertion sort for short runs; the order is total, so the result is unique.
 */
export function descendingOrder(keys: ArrayLike<number>): Uint32Array {
  const count = keys.length;
  const key = new Float64Array(count);
  const order = new Uint32Array(count);
  for (let at = 0; at < count; at += 1) {
    const value = keys[at]!;
    key[at] = value > 0 && value < Number.POSITIVE_INFINITY ? value : 0;
    order[at] = at;
  }
  // (low, high, partitions left) per waiting side; past 2·log2(count) partitions a side is sorted by
  // comparison instead, so crafted orders cannot make it quadratic (introsort).
  const stack = new Int32Array(192);
  let top = 0;
  if (count > 1) {
    stack[top++] = 0;
    stack[top++] = count - 1;
    stack[top++] = 2 * Math.ceil(Math.log2(count));
  }
  while (top > 0) {
    let budget = stack[--top]!;
    let high = stack[--top]!;
    let low = stack[--top]!;
    while (high - low > 16) {
      if (budget-- === 0) {
        const side = Array.from(order.subarray(low, high + 1)).sort((a, b) => key[b]! - key[a]! || b - a);
        order.set(side, low);
        low = high; // sorted: nothing left for the insertion sort below
        break;
      }
      const a = order[low]!;
      const b = order[(low + high) >>> 1]!;
      const c = order[high]!;
      const ab = key[a]! > key[b]! || (key[a] === key[b] && a > b);
      const bc = key[b]! > key[c]! || (key[b] === key[c] && b > c);
      const ac = key[a]! > key[c]! || (key[a] === key[c] && a > c);
      const pivot = ab ? (bc ? b : ac ? c : a) : ac ? a : bc ? c : b;
      const pivotKey = key[pivot]!;
      let left = low;
      let right = high;
      while (left <= right) {
        let x = order[left]!;
        while (key[x]! > pivotKey || (key[x] === pivotKey && x > pivot)) x = order[++left]!;
        let y = order[right]!;
        while (pivotKey > key[y]! || (pivotKey === key[y] && pivot > y)) y = order[--right]!;
        if (left <= right) {
          order[left++] = y;
          order[right--] = x;
        }
      }
      // The larger side waits on the stack, the smaller is sorted now: at most log2(count) sides wait.
      if (right - low < high - left) {
        stack[top++] = left;
        stack[top++] = high;
        stack[top++] = budget;
        high = right;
      } else {
        stack[top++] = low;
        stack[top++] = right;
        stack[top++] = budget;
        low = left;
      }
    }
    for (let at = low + 1; at <= high; at += 1) {
      const x = order[at]!;
      let to = at - 1;
      while (to >= low) {
        const y = order[to]!;
        if (key[x]! > key[y]! || (key[x] === key[y] && x > y)) {
          order[to + 1] = y;
          to -= 1;
        } else break;
      }
      order[to + 1] = x;
    }
  }
  return order;
}
