// The settings of every SQLite connection Charta opens (storage/db.ts), in one place so that the
// benchmark's bare twins and probes open the same file the same way (docs/performance.md, "Bare
// twins"). No imports: a bench process reads them without loading the storage layer.

/**
 * The page cache and temporary storage: system calls dominate SQLite's cost here, so statement
 * journals (savepoints) stay in memory, a 64 MiB page cache and memory-mapped reads keep pages out
 * of read(2).
 */
export const SQLITE_CACHE_PRAGMAS = ['temp_store = MEMORY', 'cache_size = -65536', 'mmap_size = 268435456'] as const;

/** Every pragma a connection gets when it opens, in order. */
export function sqliteConnectionPragmas(synchronous: 'normal' | 'full'): string[] {
  return [
    'journal_mode = WAL',
    `synchronous = ${synchronous === 'full' ? 'FULL' : 'NORMAL'}`,
    'foreign_keys = ON',
    'busy_timeout = 5000',
    // Bounded work for PRAGMA optimize, which refreshes planner statistics.
    'analysis_limit = 1000',
    ...SQLITE_CACHE_PRAGMAS,
  ];
}
