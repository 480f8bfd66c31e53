// What an operation knows about the request it serves: storage, caller, request id. No HTTP.
import type { Principal } from '../auth/principal.ts';
import type { Storage } from '../storage/db.ts';

export interface Ctx {
  storage: Storage;
  principal: Principal;
  requestId: string;
}
