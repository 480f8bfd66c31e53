// CPU profiles of a server process during one scenario, through the inspector (no restart, no
// profile of the seeding). Open the .cpuprofile in Chrome DevTools or run bench/profile-summary.ts.
import fs from 'node:fs';
import path from 'node:path';
import { Session } from 'node:inspector/promises';

let session: Session | undefined;

export async function startProfile(): Promise<void> {
  session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
}

export async function stopProfile(file: string): Promise<string> {
  if (session === undefined) throw new Error('no profile running');
  const { profile } = await session.post('Profiler.stop');
  session.disconnect();
  session = undefined;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(profile));
  return file;
}
