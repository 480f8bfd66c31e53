// The size limits a plugin package is held to while it is inspected. Every limit is checked on
// bytes actually read or inflated, never on what an archive's headers claim.
import { MANIFEST_MAX_BYTES } from '@charta/plugin-sdk/manifest';

export interface InspectionLimits {
  /** Largest upload accepted at all (the archive as sent). Above it: HTTP 413. */
  maxCompressedBytes: number;
  /** Most bytes the archive may inflate to, counted while decompressing. */
  maxInflatedBytes: number;
  /** Most entries (files and directories) an archive may hold. */
  maxEntries: number;
  /** Largest inflated/compressed ratio over the whole archive (see RATIO_GRACE_BYTES). */
  maxRatio: number;
  /** Largest CHARTA_MANIFEST.json; also how much of PKG-INFO / METADATA is read. */
  maxManifestBytes: number;
}

const MiB = 1024 * 1024;

export const DEFAULT_LIMITS: InspectionLimits = Object.freeze({
  maxCompressedBytes: 20 * MiB,
  maxInflatedBytes: 100 * MiB,
  maxEntries: 2000,
  maxRatio: 100,
  maxManifestBytes: MANIFEST_MAX_BYTES,
});

/**
 * The ratio limit only applies once this much has been inflated: a tiny archive of a few small
 * files (tar pads every entry to 512 bytes and often the archive to 10 KiB) can legitimately
 * compress 100:1, and inflating 1 MiB harms nobody.
 */
export const RATIO_GRACE_BYTES = 1 * MiB;

/** At most this many reasons are reported; the rest are summarised in one line. */
export const MAX_REASONS = 100;

/** The defaults overlaid with whatever the caller set; nonsensical values fall back to the default. */
export function resolveLimits(limits: Partial<InspectionLimits> | undefined): InspectionLimits {
  const out: InspectionLimits = { ...DEFAULT_LIMITS };
  if (!limits) return out;
  for (const key of Object.keys(DEFAULT_LIMITS) as (keyof InspectionLimits)[]) {
    const value = limits[key];
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) out[key] = value;
  }
  return out;
}

/** 20971520 → "20 MiB", 65536 → "64 KiB", 1000 → "1000 bytes". */
export function formatBytes(n: number): string {
  if (n >= MiB && n % MiB === 0) return `${n / MiB} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}
