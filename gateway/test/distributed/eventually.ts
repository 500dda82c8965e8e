/** Retries `check` until it passes or `timeoutMs` runs out (then throws its last failure): the writer stores later than ingest answers. */
export async function eventually(check: () => Promise<void>, timeoutMs = 30_000, intervalMs = 200): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }
}
