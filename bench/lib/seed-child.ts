// The bulk load (seed.ts) in a process of its own: the server's process then starts on the seeded
// database without the load's garbage, nor the 2 GiB page cache its SQLite connection used,
// counted in its resident memory.
import { serve } from './child.ts';
import { seed, type SeedPlan } from './seed.ts';
import type { Engine } from '../../packages/server/src/storage/db.ts';

serve({
  seed: ({ url, engine, plan }: { url: string; engine: Engine; plan: SeedPlan }) => seed(url, engine, plan),
  close: () => undefined,
});
