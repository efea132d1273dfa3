// Generous bounds: they only turn a hang into a readable failure, they measure nothing.
export const TEST_TIMEOUT = 30_000;
export const SETTLE_TIMEOUT = 15_000;
export const HOOK_TIMEOUT = 60_000;

/** Settles `promise`, or fails with a message naming `what` if it takes longer than `ms`. */
export async function settle<T>(
  promise: PromiseLike<T>,
  ms: number,
  what: string,
): Promise<PromiseSettledResult<T>> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
  });
  try {
    const [outcome] = await Promise.race([Promise.allSettled([promise]), timeout]);
    return outcome!;
  } finally {
    clearTimeout(timer);
  }
}

export async function within<T>(promise: PromiseLike<T>, ms: number, what: string): Promise<T> {
  const outcome = await settle(promise, ms, what);
  if (outcome.status === 'rejected') throw outcome.reason;
  return outcome.value;
}

/** Calls `fn` (a synchronous throw counts as a rejection) and returns what it rejected with. */
export async function expectRejection(fn: () => PromiseLike<unknown>, what: string): Promise<unknown> {
  const outcome = await settle(new Promise(resolve => resolve(fn())), SETTLE_TIMEOUT, what);
  if (outcome.status === 'fulfilled') throw new Error(`${what} resolved, but it should reject`);
  return outcome.reason;
}

export async function waitUntil(condition: () => Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${ms} ms waiting for ${what}`);
    await new Promise(resolve => setTimeout(resolve, 50));
  }
}
