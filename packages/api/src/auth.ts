// Schemas of the token endpoint (docs/api.md, Authentication).
import { Type, type Static } from '@sinclair/typebox';

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
