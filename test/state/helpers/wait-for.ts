/** Poll `check` every `everyMs` until it returns true (or a truthy promise); throws after `withinMs`. */
export async function waitFor(check: () => boolean | Promise<boolean>, withinMs = 5000, everyMs = 20): Promise<void> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`condition not met within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Sleep for real. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
