// What an operation knows about the request it serves: storage, caller, request id. No HTTP.
import type { Principal } from '../auth/principal.ts';
import type { Storage } from '../storage/db.ts';
import type { LogBus } from '../logs/bus.ts';

export interface Ctx {
  storage: Storage;
  principal: Principal;
  requestId: string;
  /** The log stream's bus; operations emit after their transaction committed. */
  logs?: LogBus;
}
