// The bodies and answers of the proxy routes. Proxy bodies are validated by the domain (proxy.validate.ts, every rule by
// path), so their classes only describe them.
import { ApiProperty, type ApiPropertyOptions, ApiPropertyOptional, ApiSchema, type SchemaObject } from '@nestjs/swagger';
import type { ProxyView } from '@vault/application';
import {
  MAX_PROXY_CONFIGURATION_ENTRIES,
  MAX_PROXY_CONFIGURATION_VALUE_LENGTH,
  MAX_PROXY_NAME_LENGTH,
  MAX_TRANSFORMS,
  TOKEN_TYPES,
  type ProxyTransform,
} from '@vault/domain';
import { IdReference } from '../reactors/reactors.dto';

const TRANSFORM: SchemaObject = {
  oneOf: [
    {
      type: 'object',
      title: 'code',
      required: ['type', 'code'],
      additionalProperties: false,
      properties: {
        type: { type: 'string', enum: ['code'] },
        code: {
          type: 'string',
          description:
            'JavaScript run in the reactor sandbox (same limits) with `{ args: { body, headers, method, path, query }, configuration }`; returns `{ body, headers }` (a body left out is kept).',
        },
      },
    },
    {
      type: 'object',
      title: 'tokenize',
      required: ['type', 'fields'],
      additionalProperties: false,
      properties: {
        type: { type: 'string', enum: ['tokenize'] },
        fields: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            required: ['json_path', 'token'],
            additionalProperties: false,
            properties: {
              json_path: { type: 'string', description: 'Where in a JSON body, e.g. `$.card.number`; a path that finds nothing is left alone' },
              token: {
                type: 'object',
                required: ['type'],
                additionalProperties: false,
                properties: {
                  type: { enum: [...TOKEN_TYPES] },
                  containers: { type: 'array', items: { type: 'string' } },
                  metadata: { type: 'object', additionalProperties: { type: 'string' } },
                  deduplicate_token: { type: 'boolean', description: 'As in POST /tokenize: an existing token with the same fingerprint is answered' },
                },
              },
            },
          },
        },
      },
    },
    {
      type: 'object',
      title: 'mask',
      required: ['type', 'fields'],
      additionalProperties: false,
      properties: {
        type: { type: 'string', enum: ['mask'] },
        fields: { type: 'array', minItems: 1, items: { type: 'string' }, description: 'JSON paths whose strings are masked as `reveal_last: 4` would' },
      },
    },
  ],
};

const TRANSFORMS = (direction: 'request' | 'response'): ApiPropertyOptions => ({
  type: 'array',
  items: TRANSFORM,
  maxItems: MAX_TRANSFORMS,
  description:
    direction === 'request'
      ? 'Applied in order to the request before it is detokenized and sent: no code of the proxy sees data a caller put in by expression'
      : "Applied in order to the destination's answer before it goes back",
});

const SINGLE = (direction: 'request' | 'response'): ApiPropertyOptions => ({
  oneOf: [{ type: 'object', required: ['code'], properties: { code: { type: 'string' } } }, { type: 'null' }],
  description: `The older single-transform form: shorthand for a one-element ${direction}_transforms of type code. Give one form or the other (or both, when they agree, as a proxy read back shows them).`,
});

const CONFIGURATION: ApiPropertyOptions = {
  type: 'object',
  additionalProperties: { type: 'string' },
  maxProperties: MAX_PROXY_CONFIGURATION_ENTRIES,
  description: `Setting name → string (at most ${MAX_PROXY_CONFIGURATION_VALUE_LENGTH.toLocaleString('en-US')} characters), handed to code transforms. Values are secrets: sealed with the proxy, shown only to proxy:read holders.`,
};

@ApiSchema({ name: 'ProxyBody', description: 'A proxy to create, or its whole new state (PUT). Its key is generated and never changes.' })
export class ProxyBody {
  @ApiProperty({ minLength: 1, maxLength: MAX_PROXY_NAME_LENGTH })
  name!: string;

  @ApiProperty({
    format: 'uri',
    description: 'An http: or https: URL on a host of VAULT_PROXY_ALLOWED_HOSTS (else a 400 naming it); the path and query after /proxy are appended',
  })
  destination_url!: string;

  @ApiPropertyOptional(TRANSFORMS('request'))
  request_transforms?: ProxyTransform[];

  @ApiPropertyOptional(TRANSFORMS('response'))
  response_transforms?: ProxyTransform[];

  @ApiPropertyOptional(SINGLE('request'))
  request_transform?: { code: string } | null;

  @ApiPropertyOptional(SINGLE('response'))
  response_transform?: { code: string } | null;

  @ApiPropertyOptional({
    type: IdReference,
    description: 'A private application of your tenant: tokenize transforms create tokens as it, under its rules (required when one exists)',
  })
  application?: IdReference | null;

  @ApiPropertyOptional(CONFIGURATION)
  configuration?: Record<string, string>;

  @ApiPropertyOptional({ type: 'boolean', default: true, description: 'false: the proxy key alone invokes it (no SVC-API-KEY, and then no detokenization)' })
  require_auth?: boolean;
}

@ApiSchema({ name: 'Proxy' })
export class ProxySchema implements ProxyView {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ format: 'uuid' })
  tenant_id!: string;

  @ApiProperty()
  name!: string;

  @ApiPropertyOptional({
    description:
      'Random (160 bits); names the proxy in SVC-PROXY-KEY, and is its credential when require_auth is false. This and every field below down to configuration are shown only to proxy:read holders',
  })
  key?: string;

  @ApiPropertyOptional({ format: 'uri' })
  destination_url?: string;

  @ApiPropertyOptional(TRANSFORMS('request'))
  request_transforms?: ProxyTransform[];

  @ApiPropertyOptional(TRANSFORMS('response'))
  response_transforms?: ProxyTransform[];

  @ApiPropertyOptional({ ...SINGLE('request'), description: 'The first code transform of request_transforms, else null' })
  request_transform?: { code: string } | null;

  @ApiPropertyOptional({ ...SINGLE('response'), description: 'The first code transform of response_transforms, else null' })
  response_transform?: { code: string } | null;

  @ApiPropertyOptional({ type: IdReference, description: 'Present when the proxy has one' })
  application?: IdReference;

  @ApiPropertyOptional({ format: 'uuid', description: "The application's id again, as the hosted vaults' SDKs read it; present when the proxy has one" })
  application_id?: string;

  @ApiPropertyOptional(CONFIGURATION)
  configuration?: Record<string, string>;

  @ApiProperty()
  require_auth!: boolean;

  @ApiProperty({ description: 'The creating application' })
  created_by!: string;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiPropertyOptional({ description: 'Present once modified' })
  modified_by?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Present once modified' })
  modified_at?: string;
}

// Examples: the request bodies must be accepted as they stand by a service whose VAULT_PROXY_ALLOWED_HOSTS lists
// payments.example.com.
export const CREATE_PROXY_EXAMPLE = {
  name: 'Charge cards',
  destination_url: 'https://payments.example.com/v1/charges',
  request_transforms: [
    {
      type: 'code',
      code: "module.exports = async function ({ args, configuration }) {\n  return { body: args.body, headers: { ...args.headers, authorization: 'Bearer ' + configuration.api_key } };\n};\n",
    },
  ],
  response_transforms: [{ type: 'mask', fields: ['$.card.number'] }],
  configuration: { api_key: 'sk_test_4eC39HqLyjWDarjtT1zdp7dc' },
  require_auth: true,
};
export const UPDATE_PROXY_EXAMPLE = { ...CREATE_PROXY_EXAMPLE, name: 'Charge cards (EU)' };
export const PATCH_PROXY_EXAMPLE = { name: 'Charge cards, renamed' };

export const PROXY_EXAMPLE = {
  id: '6a1b1bc9-5f0e-4c8e-9a0e-8d2f3b7c4e21',
  tenant_id: 'b0075700-0000-4000-8000-000000000001',
  name: CREATE_PROXY_EXAMPLE.name,
  key: 'H8Yk3fQ2Lm9XwR7sTbN4vC1pJd6Ze5aG',
  destination_url: CREATE_PROXY_EXAMPLE.destination_url,
  request_transforms: CREATE_PROXY_EXAMPLE.request_transforms as ProxyTransform[],
  response_transforms: CREATE_PROXY_EXAMPLE.response_transforms as ProxyTransform[],
  request_transform: { code: CREATE_PROXY_EXAMPLE.request_transforms[0].code },
  response_transform: null,
  configuration: CREATE_PROXY_EXAMPLE.configuration,
  require_auth: true,
  created_by: 'b0075700-0000-4000-8000-000000000002',
  created_at: '2026-11-28T10:40:33.109Z',
} satisfies ProxyView;
