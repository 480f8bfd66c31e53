// Schemas of the health probes (docs/api.md, "Health").
import { Type } from '@sinclair/typebox';

export const HealthStatus = Type.Object({ status: Type.Literal('ok') }, { additionalProperties: false });

/** Public: an empty security requirement (OpenAPI: no credentials needed). */
export const PUBLIC: Array<Record<string, string[]>> = [{}];
