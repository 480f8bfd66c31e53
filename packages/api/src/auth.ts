// Schemas of the token endpoint (docs/api.md, Authentication).
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, Timestamp } from './common.ts';

export const TokenRequestBody = Type.Object(
  {
    grant_type: Type.String({ maxLength: 64 }),
    client_id: Type.Optional(Type.String({ maxLength: 200 })),
    client_secret: Type.Optional(Type.String({ maxLength: 500 })),
    scope: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);

export const TokenSchema = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer(),
  scope: Type.String(),
});
export type Token = Static<typeof TokenSchema>;

// Credential rotation (docs/api.md, "Credentials"): API keys and OAuth clients, created, listed and
// revoked with an admin API key. A secret is answered once, on creation; a listing never has it.
const ExpiresAtInput = Type.String({
  maxLength: 64,
  description: 'When the credential stops working: an ISO 8601 timestamp with zone, in the future. Omitted: never.',
});
const ScopeName = Type.Union([Type.Literal('system/Plugins.*'), Type.Literal('admin')]);

export const ApiKeyCreateBody = Type.Object(
  {
    label: Type.String({ minLength: 1, maxLength: 200, description: 'What the key is for' }),
    scopes: Type.Optional(Type.Array(ScopeName, { minItems: 1, uniqueItems: true, description: 'Default: both, system/Plugins.* and admin' })),
    expires_at: Type.Optional(ExpiresAtInput),
  },
  { additionalProperties: false },
);
export const OAuthClientCreateBody = Type.Object(
  {
    label: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'What the client is for (default: api)' })),
    expires_at: Type.Optional(ExpiresAtInput),
  },
  { additionalProperties: false },
);

const CredentialTimes = {
  created_at: Timestamp,
  expires_at: Nullable(Timestamp),
  revoked_at: Nullable(Timestamp),
  last_used_at: Nullable(Type.String({ format: 'date-time', description: 'When it was last used, to the minute (null: not since migration 019)' })),
};
export const ApiKeyView = Type.Object({ id: Type.String(), label: Type.String(), scopes: Type.Array(Type.String()), ...CredentialTimes });
export const ApiKeyCreated = Type.Object({
  ...ApiKeyView.properties,
  api_key: Type.String({ description: 'The key: shown this once, stored only as a hash' }),
});
export const OAuthClientView = Type.Object({ client_id: Type.String(), label: Type.String(), scopes: Type.Array(Type.String()), ...CredentialTimes });
export const OAuthClientCreated = Type.Object({
  ...OAuthClientView.properties,
  client_secret: Type.String({ description: 'The secret: shown this once, stored only as a hash' }),
});
export const ApiKeyList = Type.Object({ results: Type.Array(ApiKeyView) });
export const OAuthClientList = Type.Object({ results: Type.Array(OAuthClientView) });
/** No control characters: an id is printable (and PostgreSQL refuses a NUL in text). */
const PRINTABLE = '^[^\\u0000-\\u001f\\u007f]+$';
export const ApiKeyParams = Type.Object({ id: Type.String({ maxLength: 100, pattern: PRINTABLE }) });
export const OAuthClientParams = Type.Object({ client_id: Type.String({ maxLength: 200, pattern: PRINTABLE }) });
export const RevokeQuery = Type.Object(
  { force: Type.Optional(Type.Boolean({ description: 'Revoke the API key making the request too (it is refused with 409 otherwise)' })) },
  { additionalProperties: false },
);
export type ApiKeyCreate = Static<typeof ApiKeyCreateBody>;
export type OAuthClientCreate = Static<typeof OAuthClientCreateBody>;
export type ApiKeyViewT = Static<typeof ApiKeyView>;
export type OAuthClientViewT = Static<typeof OAuthClientView>;
