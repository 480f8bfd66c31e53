// Stored secret values sealed at rest (docs/operations.md, "Sealed secrets"): AES-256-GCM from
// Node's crypto, a fresh random 96-bit nonce for every value, and the value's identity as
// additional authenticated data, so that a sealed value opens only in the row it was written to.
// A sealed value is the text `v1:` + base64(nonce ‖ ciphertext ‖ 16-byte tag); the id of the key
// that sealed it is stored beside it (a short hash of the key, never the key), so that a key can
// rotate and a mixed state stays readable given both keys. Nothing here logs, and no error quotes a
// value or a key.
import crypto from 'node:crypto';
import { inspect } from 'node:util';

/** Bytes of a key: AES-256. */
export const KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const FORMAT = 'v1:';
const ALGORITHM = 'aes-256-gcm';

/**
 * A secret key problem that stops a start or a rotation: no key, the wrong key, a key file that
 * cannot be trusted. The message names the problem and where the key came from, never a key or a value.
 */
export class SecretKeyError extends Error {}

/** A key that is not one: wrong length, not base64 or hex. */
export class SecretKeyFormatError extends SecretKeyError {}

/** A sealed value this keyring cannot open: its key is not here, or it fails its check. No value in the message. */
export class UnsealError extends Error {
  constructor(
    message: string,
    /** `unknown-key`: sealed with a key this process was not given; `broken`: changed, damaged or moved from another row. */
    readonly reason: 'unknown-key' | 'broken',
  ) {
    super(message);
  }
}

/**
 * One 256-bit key. Its bytes are a private field: JSON, `util.inspect` and log serialisers see
 * only `[secret key <id>]`.
 */
export class SecretKey {
  readonly id: string;
  readonly #bytes: Buffer;

  constructor(bytes: Buffer) {
    if (bytes.length !== KEY_BYTES) throw new SecretKeyFormatError(`a secret key is ${KEY_BYTES} bytes, not ${bytes.length}`);
    this.#bytes = Buffer.from(bytes);
    this.id = keyIdOf(this.#bytes);
  }

  /** A new random key. */
  static generate(): SecretKey {
    return new SecretKey(crypto.randomBytes(KEY_BYTES));
  }

  /**
   * A key written as base64 (standard or URL-safe, padded or not) or as 64 hex digits, surrounding
   * white space ignored: what `openssl rand -base64 32` or `openssl rand -hex 32` print.
   * `origin` names it in the error (`CHARTA_SECRET_KEY`, a file), which never quotes the text.
   */
  static parse(text: string, origin: string): SecretKey {
    const t = text.trim();
    let bytes: Buffer | undefined;
    if (/^[0-9a-fA-F]{64}$/.test(t)) bytes = Buffer.from(t, 'hex');
    else if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(t)) bytes = Buffer.from(t, 'base64');
    if (bytes === undefined || bytes.length !== KEY_BYTES) {
      throw new SecretKeyFormatError(
        `${origin} is not a secret key: it must be ${KEY_BYTES} random bytes written as base64 (44 characters) or hex (64 digits), ` +
          'as `openssl rand -base64 32` prints',
      );
    }
    return new SecretKey(bytes);
  }

  /** The key as written to a key file: base64 and a newline. */
  text(): string {
    return `${this.#bytes.toString('base64')}\n`;
  }

  seal(plaintext: string, context: string): string {
    const nonce = crypto.randomBytes(NONCE_BYTES);
    const cipher = crypto.createCipheriv(ALGORITHM, this.#bytes, nonce, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return FORMAT + Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64');
  }

  /** The plaintext, or UnsealError `broken` when the value is not in the format or fails its authentication. */
  open(sealed: string, context: string): string {
    const broken = () => new UnsealError('it fails its integrity check (changed or damaged in the database, or copied from another row)', 'broken');
    const body = sealed.slice(FORMAT.length);
    // Strict base64: Node's decoder would pass over what follows a character out of the alphabet.
    if (!sealed.startsWith(FORMAT) || !/^[A-Za-z0-9+/]*={0,2}$/.test(body)) throw broken();
    const raw = Buffer.from(body, 'base64');
    if (raw.length < NONCE_BYTES + TAG_BYTES) throw broken();
    const decipher = crypto.createDecipheriv(ALGORITHM, this.#bytes, raw.subarray(0, NONCE_BYTES), { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
    let plain: Buffer;
    try {
      plain = Buffer.concat([decipher.update(raw.subarray(NONCE_BYTES, raw.length - TAG_BYTES)), decipher.final()]);
    } catch {
      throw broken();
    }
    return plain.toString('utf8');
  }

  toJSON(): string {
    return `[secret key ${this.id}]`;
  }

  [inspect.custom](): string {
    return this.toJSON();
  }
}

/** A key's id: the first 16 hex digits of a SHA-256 of it, domain-separated. Says which key sealed a value; reveals nothing of it. */
export function keyIdOf(bytes: Buffer): string {
  return crypto.createHash('sha256').update('charta secret key id\0').update(bytes).digest('hex').slice(0, 16);
}

/** A sealed value and the id of its key: the two columns stored. */
export interface Sealed {
  keyId: string;
  sealed: string;
}

/**
 * The keys of a process: one seals every new value, every one opens what it sealed (during a
 * rotation, the old and the new key: docs/operations.md, "Sealed secrets").
 */
export class Keyring {
  private readonly keys = new Map<string, SecretKey>();

  constructor(
    readonly sealing: SecretKey,
    opening: readonly SecretKey[] = [],
  ) {
    for (const key of [sealing, ...opening]) this.keys.set(key.id, key);
  }

  /** A keyring that seals with `key` and still opens everything this one opens: a rotation's. */
  sealingWith(key: SecretKey): Keyring {
    return new Keyring(key, [...this.keys.values()]);
  }

  /** The ids of every key, the sealing one first. */
  ids(): string[] {
    return [...this.keys.keys()];
  }

  has(keyId: string): boolean {
    return this.keys.has(keyId);
  }

  seal(plaintext: string, context: string): Sealed {
    return { keyId: this.sealing.id, sealed: this.sealing.seal(plaintext, context) };
  }

  open(keyId: string, sealed: string, context: string): string {
    const key = this.keys.get(keyId);
    if (key === undefined) throw new UnsealError(`it was sealed with key id ${keyId}, which this process was not given`, 'unknown-key');
    return key.open(sealed, context);
  }

  toJSON(): string {
    return `[keyring ${this.ids().join(', ')}]`;
  }

  [inspect.custom](): string {
    return this.toJSON();
  }
}
