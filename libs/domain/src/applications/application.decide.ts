// Decisions for applications: who may hold which permission, expiry, access rules, tenant scoping.
import type { Decider } from '../shared/decider';
import type { CommandContext } from '../shared/events';
import { DomainError, FieldErrorCollector, notFound } from '../shared/errors';
import { findPermission, isApplicationType, isTokenPermission } from '../permissions/permission-catalogue';
import { validateAccessRules } from '../access/access-rules';
import { codePointLength } from '../shared/json-shape';
import type { ApplicationEvent, ApplicationSettings } from './application.events';
import { evolveApplication, type ApplicationState } from './application.evolve';
import { requireGrantable, requireNoMorePowerful } from './application-grants';

export { OPERATOR_PERMISSIONS, missingManagementPermissions } from './application-grants';

export const MAX_APPLICATION_NAME_LENGTH = 200;
/** Our bound on a rule's container path, as long as a name: far more than any real container hierarchy needs. */
export const MAX_RULE_CONTAINER_LENGTH = 200;
/**
 * Our bound on an application's rules as stored (their JSON), whatever their number: every application document, and
 * so every page of GET /applications (100 of them, about 1 MB), is read and serialised in well under 50 ms.
 * 100 rules on `/` with one permission each (8,000 to 9,000 characters) fit in it.
 */
export const MAX_APPLICATION_RULES_JSON_LENGTH = 16_384;

/** Settings as the caller sent them, already shape-checked (strings, arrays) by the transport. */
export interface ApplicationInput {
  name: string;
  type: string;
  permissions?: string[];
  rules?: unknown[];
  expires_at?: string | null;
}

/**
 * Every command carries the permissions its caller holds (an application's effective permissions, or
 * OPERATOR_PERMISSIONS for the operator CLI and the bootstrap): management permissions are granted only by holders.
 */
export type ApplicationCommand =
  | { type: 'CreateApplication'; id: string; keyHash: string; input: ApplicationInput; callerPermissions: readonly string[] }
  | { type: 'UpdateApplication'; id: string; input: ApplicationInput; callerPermissions: readonly string[] }
  | { type: 'RegenerateApplicationKey'; id: string; keyHash: string; callerPermissions: readonly string[] }
  | { type: 'DeleteApplication'; id: string; callerPermissions: readonly string[] };

export function decideApplication(
  command: ApplicationCommand,
  state: ApplicationState | null,
  ctx: CommandContext,
): ApplicationEvent[] {
  const actor = ctx.actor.id;
  const at = ctx.now.toISOString();
  const tenant_id = requireTenant(ctx);
  if (command.type === 'CreateApplication') {
    if (state) throw new DomainError('conflict', 'An application with this id already exists.');
    const settings = validateApplicationSettings(command.input, ctx.now);
    requireGrantable(settings, command.callerPermissions);
    return [
      {
        type: 'ApplicationCreated',
        data: { id: command.id, tenant_id, ...settings, key_hash: command.keyHash, created_by: actor, created_at: at },
      },
    ];
  }
  if (!state || state.deleted || state.tenant_id !== tenant_id) throw notFound('Application');
  requireNoMorePowerful(state, command.callerPermissions, ACTIONS[command.type]);
  switch (command.type) {
    case 'UpdateApplication': {
      const settings = validateApplicationSettings(command.input, ctx.now);
      requireGrantable(settings, command.callerPermissions);
      return [{ type: 'ApplicationUpdated', data: { id: state.id, tenant_id, ...settings, modified_by: actor, modified_at: at } }];
    }
    case 'RegenerateApplicationKey':
      // The key it already has (two start-ups completing the same bootstrap at once): nothing changes.
      if (command.keyHash === state.key_hash) return [];
      return [
        {
          type: 'ApplicationKeyRegenerated',
          data: { id: state.id, tenant_id, key_hash: command.keyHash, modified_by: actor, modified_at: at },
        },
      ];
    case 'DeleteApplication':
      return [{ type: 'ApplicationDeleted', data: { id: state.id, tenant_id, deleted_by: actor, deleted_at: at } }];
  }
}

/** decide, evolve and the empty state together, as the command handlers and the given/when/then specs use them. */
export const applicationDecider: Decider<ApplicationCommand, ApplicationState | null, ApplicationEvent> = {
  decide: decideApplication,
  evolve: evolveApplication,
  initialState: () => null,
};

const ACTIONS = {
  UpdateApplication: 'update',
  RegenerateApplicationKey: 'regenerate the key of',
  DeleteApplication: 'delete',
} as const;

function requireTenant(ctx: CommandContext): string {
  if (!ctx.tenantId) throw new DomainError('forbidden', 'Applications belong to a tenant.');
  return ctx.tenantId;
}

export function validateApplicationSettings(input: ApplicationInput, now: Date): ApplicationSettings {
  const errors = new FieldErrorCollector();
  const name = input.name.trim();
  // Characters as a user counts them (code points), not UTF-16 units: 200 emoji are a valid name.
  const rawName = input.name;
  if (name.length < 1 || rawName.length > 2 * MAX_APPLICATION_NAME_LENGTH || codePointLength(rawName) > MAX_APPLICATION_NAME_LENGTH) {
    errors.add('name', `name must be 1 to ${MAX_APPLICATION_NAME_LENGTH} characters long`);
  }
  if (!isApplicationType(input.type)) {
    errors.add('type', 'type must be one of public, private, expiring, management');
  }
  const type = input.type as ApplicationSettings['type'];
  // Our bounds on the lists (the OpenAPI document lists them), checked before any element is read. 30 is every
  // permission of the catalogue once; a rule holds token permissions only.
  const maxRules = 100;
  const maxPermissions = 30;
  const givenPermissions = input.permissions ?? [];
  const tooManyPermissions = givenPermissions.length > maxPermissions;
  const permissions = tooManyPermissions ? [] : [...new Set(givenPermissions)];
  if (tooManyPermissions) {
    errors.add('permissions', `permissions must hold at most ${maxPermissions} permissions, not ${givenPermissions.length}`);
  } else {
    givenPermissions.forEach((permission, i) => {
      // A known permission is the catalogue's word and may be named; anything else is the caller's value and is not.
      const known = findPermission(permission);
      if (!known) errors.add(`permissions[${i}]`, `permissions[${i}] is not a permission of the catalogue (GET /permissions)`);
      else if (isApplicationType(type) && !known.application_types.includes(type)) {
        errors.add(`permissions[${i}]`, `permission "${permission}" cannot be held by a ${type} application`);
      }
    });
  }
  const expiresAt = input.expires_at ?? null;
  if (type === 'expiring') {
    const when = expiresAt === null ? NaN : Date.parse(expiresAt);
    if (expiresAt === null) errors.add('expires_at', 'expires_at is required for expiring applications');
    else if (Number.isNaN(when)) errors.add('expires_at', 'expires_at must be an ISO 8601 date-time');
    else if (when <= now.getTime()) errors.add('expires_at', 'expires_at must be in the future');
  } else if (expiresAt !== null && isApplicationType(type)) {
    errors.add('expires_at', 'only expiring applications may have expires_at');
  }
  const rawRules = input.rules ?? [];
  if (type === 'management' && rawRules.length > 0) errors.add('rules', 'management applications cannot have rules');
  let oversized = rawRules.length > maxRules;
  if (oversized) errors.add('rules', `rules must hold at most ${maxRules} rules, not ${rawRules.length}`);
  else {
    rawRules.forEach((rule, i) => {
      const { permissions: rulePermissions, container } = (rule ?? {}) as { permissions?: unknown; container?: unknown };
      if (Array.isArray(rulePermissions) && rulePermissions.length > maxPermissions) {
        errors.add(`rules[${i}].permissions`, `rules[${i}].permissions must hold at most ${maxPermissions} permissions, not ${rulePermissions.length}`);
        oversized = true;
      }
      if (typeof container === 'string' && container.length > MAX_RULE_CONTAINER_LENGTH) {
        errors.add(`rules[${i}].container`, `rules[${i}].container must be at most ${MAX_RULE_CONTAINER_LENGTH} characters long`);
        oversized = true;
      }
    });
  }
  const rules = oversized ? [] : validateAccessRules(rawRules, 'rules', errors);
  // Measured on the rules as stored; the body's 1 MiB bound keeps this one serialisation cheap.
  const rulesJsonLength = rules.length === 0 ? 0 : JSON.stringify(rules).length;
  if (rulesJsonLength > MAX_APPLICATION_RULES_JSON_LENGTH) {
    errors.add(
      'rules',
      `rules must hold at most ${MAX_APPLICATION_RULES_JSON_LENGTH.toLocaleString('en-US')} characters of JSON together, not ${rulesJsonLength.toLocaleString('en-US')}: shorten descriptions or containers, or merge rules`,
    );
  }
  // A rule's permissions also grant the endpoint permission (as on hosted vaults), so they must suit the type too.
  // (One that is no token permission was reported by validateAccessRules already.)
  rules.forEach((rule, i) =>
    rule.permissions.forEach((permission, j) => {
      const known = isTokenPermission(permission) ? findPermission(permission) : undefined;
      if (known && isApplicationType(type) && !known.application_types.includes(type)) {
        errors.add(`rules[${i}].permissions[${j}]`, `permission "${permission}" cannot be held by a ${type} application`);
      }
    }),
  );
  errors.throwIfAny();
  return {
    name,
    type,
    permissions,
    rules,
    expires_at: expiresAt === null ? null : new Date(expiresAt).toISOString(),
  };
}
