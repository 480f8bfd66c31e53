// A write may wait on a check that runs elsewhere (a plugin's PRE handler in the runner process,
// docs/plugins.md "Delivery and guarantees"): it hands the check to its transaction with `hold`, and the
// transaction commits the write only once every check of it has resolved. A check that rejects
// undoes the write, which fails with that reason. Meanwhile the transaction goes on: on SQLite
// the next writes of the group commit run (docs/performance.md "PRE handlers held by the transaction").

/** Hands a check to the write's transaction: the write commits only if `check` resolves. */
export type Hold = (check: Promise<unknown>) => void;

/** Collects a write's checks; `settled()` resolves once all did, or rejects with the first refusal (in the order held). */
export function holds(): { hold: Hold; settled(): Promise<void> } {
  const checks: Array<Promise<unknown>> = [];
  return {
    hold: (check) => {
      // Looked at by settled(), possibly later: a refusal in the meantime is not unhandled.
      check.catch(() => undefined);
      checks.push(check);
    },
    settled: async () => {
      for (const check of checks) await check;
    },
  };
}
