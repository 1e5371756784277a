// Test data builders for token specs: contexts, token content and events, and an expression engine given as a table.
// Domain specs cannot load Liquid (layer rule); the adapter's specs run these rules against the real engine.
import type { CommandContext } from '../shared/events';
import type { ExpressionEngine } from './expression-engine';
import type { TokenContent, TokenCreated } from './token.events';

export const TENANT = '7e57e57e-0000-4000-8000-000000000001';
export const OTHER_TENANT = '7e57e57e-0000-4000-8000-000000000002';
export const APP = 'a99a99a9-0000-4000-8000-000000000001';
export const TOKEN_ID = 'b0b0b0b0-0000-4000-8000-000000000001';
export const CREATED_AT = new Date('2024-05-01T10:00:00.000Z');
export const LATER = new Date('2024-05-02T12:30:00.000Z');

export const anApp = (overrides: Partial<CommandContext> = {}): CommandContext => ({
  tenantId: TENANT,
  actor: { type: 'application', id: APP },
  now: LATER,
  correlationId: 'corr-1',
  ...overrides,
});

export const aTokenContent = (overrides: Partial<TokenContent> = {}): TokenContent => ({
  type: 'social_security_number',
  encrypted: { v: 1, alg: 'AES-256-GCM', key_ref: TOKEN_ID, iv: 'aXY=', ciphertext: 'Y3Q=', tag: 'dGFn' },
  fingerprint: '5Hue3zQhZ9Lq',
  fingerprint_expression: "{{ data | remove: '-' }}",
  mask: '{{ data | reveal_last: 4 }}',
  masked: { v: 1, alg: 'AES-256-GCM', key_ref: TOKEN_ID, iv: 'bWl2', ciphertext: 'bWFzaw==', tag: 'bXRhZw==' },
  containers: ['/pii/high/'],
  metadata: { source: 'signup' },
  search_indexes: ['{{ data }}'],
  search_hashes: ['9f86d081'],
  expires_at: null,
  ...overrides,
});

export const tokenCreated = (
  content: Partial<TokenContent> = {},
  owner: { tenantId?: string; at?: Date; id?: string } = {},
): TokenCreated => ({
  type: 'TokenCreated',
  data: {
    id: owner.id ?? TOKEN_ID,
    tenant_id: owner.tenantId ?? TENANT,
    ...aTokenContent(content),
    created_by: APP,
    created_at: (owner.at ?? CREATED_AT).toISOString(),
  },
});

const asText = (data: unknown): string => (typeof data === 'string' ? data : JSON.stringify(data));

/** The expressions the specs use, with Liquid's output for them; any other expression "does not parse". */
export const SPEC_EXPRESSIONS: Record<string, (data: unknown) => string> = {
  '{{ data }}': asText,
  "{{ data | remove: '-' }}": (data) => asText(data).replaceAll('-', ''),
  '{{ data | last4 }}': (data) => asText(data).replace(/\D/g, '').slice(-4),
  '{{ data | reveal_last: 4 }}': (data) => asText(data).replace(/[0-9A-Za-z](?=(?:[^0-9A-Za-z]*[0-9A-Za-z]){4})/g, 'X'),
  '{{ data | reveal: 3, 0 }}': (data) => asText(data).replace(/(?<=(?:[^0-9A-Za-z]*[0-9A-Za-z]){3}[^0-9A-Za-z]*)[0-9A-Za-z]/g, 'X'),
  "X{{ data | remove: '-' }}X": (data) => `X${asText(data).replaceAll('-', '')}X`,
  '{{ data | upcase }}!': (data) => `${asText(data).toUpperCase()}!`,
  '{{ data | stringify }}': (data) => JSON.stringify(data),
  '{{ data.name }}': (data) => asText((data as { name?: unknown }).name ?? ''),
  '{{ data.missing }}': () => '',
  '{{ data.tags }}': (data) => JSON.stringify((data as { tags?: unknown }).tags),
  "{{ data | split: '-' }}": (data) => JSON.stringify(asText(data).split('-')),
  '{{ nil }}': () => 'null',
  '{{ data | upcase }}': (data) => asText(data).toUpperCase(),
  '{{ data.blank }}': () => '   ',
  '{{ data | fails }}': () => {
    throw new Error('The expression failed while rendering.');
  },
};

export const specEngine: ExpressionEngine = {
  validate: (expression) => (expression in SPEC_EXPRESSIONS ? null : 'undefined filter: nope, line:1, col:1'),
  evaluate: (expression, data) => {
    const render = SPEC_EXPRESSIONS[expression];
    if (!render) throw new Error('The expression does not parse.');
    return render(data);
  },
};
