// What every part of the wire shares: ids and timestamps, the problem body, the page shape and
// its parameters.
import { Type, type Static, type TSchema, type TString } from '@sinclair/typebox';
import { DEFAULT_LIMIT, MAX_LIMIT, MAX_OFFSET } from './constants.ts';

export const Uuid = Type.String({ pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$', description: 'Dashed UUID' });
export const Key = Type.String({ pattern: '^[0-9a-f]{32}$', description: '32 hexadecimal characters' });
export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC timestamp with microseconds, e.g. 2026-11-22T05:26:28.123456Z' });
/**
 * A string that may be null, as `type: ["string", "null"]` (OpenAPI 3.1) rather than an anyOf: the
 * response serializer tells the two apart with a typeof check, where an anyOf ran the schema
 * validator on every value it wrote (the server's docs/performance.md, "Issue 12: what changed").
 */
export const Nullable = <T extends TString>(t: T) => Type.Unsafe<Static<T> | null>({ ...t, type: ['string', 'null'] });
/** A response without a body: documented as null, sent as nothing (`reply.send()`). */
export const EmptyBody = (description: string) => Type.Unsafe<undefined>(Type.Null({ description }));

export const ProblemSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String({ description: 'Stable identifier from the error catalog (docs/errors.md)' }),
    errors: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String(), plugin: Type.Optional(Type.String()) }))),
  },
  { $id: 'Problem', additionalProperties: true, description: 'RFC 9457 problem details' },
);

/**
 * The one page shape of every list (docs/api.md, "Pagination"), built by the server's
 * http/pagination.ts pageBody. A list that grows without bound (commands, notes, patients) counts its matching rows
 * exactly up to a cap past the page's offset; beyond, `count` is that bound and
 * `count_is_estimate` is true. Every other list's count is exact.
 */
export const PageOf = <T extends TSchema>(item: T, id?: string) =>
  Type.Object(
    {
      count: Type.Integer({
        description: 'Matching rows; when count_is_estimate is true, a lower bound (offset + the count cap): more rows match than were counted',
      }),
      count_is_estimate: Type.Boolean({ description: 'false: count is exact; true: count is a lower bound' }),
      next: Nullable(Type.String({ format: 'uri' })),
      previous: Nullable(Type.String({ format: 'uri' })),
      results: Type.Array(item),
    },
    id === undefined ? {} : { $id: id },
  );

export interface Paginated<T> {
  count: number;
  count_is_estimate: boolean;
  next: string | null;
  previous: string | null;
  results: T[];
}

/** The page parameters of every list's querystring schema: `Type.Object({ ...PageParams, ...filters })`. */
export const PageParams = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LIMIT, description: `Rows per page, 1 to ${MAX_LIMIT} (default ${DEFAULT_LIMIT})` })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_OFFSET, description: 'Rows to skip (default 0)' })),
};

/** The querystring of a list with nothing but its page. */
export const PageQuery = Type.Object(PageParams, { additionalProperties: false });
