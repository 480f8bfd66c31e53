// Identifier formats of the API: dashed UUIDs for commands and notes, 32-hex keys for
// patients and staff, and the high-entropy secrets behind API keys, client secrets and tokens.
import crypto from 'node:crypto';
import os from 'node:os';

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const KEY_RE = /^[0-9a-f]{32}$/;

export const newUuid = (): string => crypto.randomUUID();
export const newKey = (): string => crypto.randomBytes(16).toString('hex');
/** 256 bits, URL-safe. */
export const newSecret = (): string => crypto.randomBytes(32).toString('base64url');

/** Names one bus or claimer of this process across processes (host, pid, random): a relay skips its own payloads by it. */
export const processOrigin = (): string => `${os.hostname()}:${process.pid}:${crypto.randomBytes(4).toString('hex')}`;
