/** Retries `check` until it holds (at most 30 s unless told, every 100 ms), then throws its last failure: for what a watcher applies later. */
export async function eventually<T>(check: () => Promise<T>, { timeoutMs = 30_000 }: { timeoutMs?: number } = {}): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
