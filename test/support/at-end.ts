/**
 * Clean-ups that must run when the test process is done: a PostgreSQL server the tests started,
 * temp dirs and databases of binaries. `bun test` runs no `process.on("exit")` handler, so the
 * preload (test/preload.ts) runs these from a global `afterAll`; the exit handler stays for
 * scripts that import the helpers outside `bun test`. Each runs once.
 */
const pending = new Set<() => void>();

export function atEnd(fn: () => void): void {
  pending.add(fn);
}

export function runAtEnd(): void {
  for (const fn of [...pending]) {
    pending.delete(fn);
    try {
      fn();
    } catch {
      /* best effort: the next one still runs */
    }
  }
}

process.once("exit", runAtEnd);
