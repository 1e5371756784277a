// Access rules, part of every application's settings: which rule applies to a token for an operation, and what
// its transform leaves of the token's data in a response.
import { FieldErrorCollector } from '../shared/errors';
import { isTokenPermission } from '../permissions/permission-catalogue';
import { isJsonObject, jsonTypeOf, rejectUnknownProperties } from '../shared/json-shape';
import { CONTAINER_PATTERN } from '../tokens/token-fields.validate';
import { parseTokenData } from '../tokens/token-prepare';
import type { JsonValue, TokenType } from '../tokens/token-types';

export const ACCESS_TRANSFORMS = ['mask', 'redact', 'reveal'] as const;
export type AccessTransform = (typeof ACCESS_TRANSFORMS)[number];

export interface AccessRule {
  description?: string;
  /** Integer ≥ 1, unique within the application; lower numbers are tried first. */
  priority: number;
  /** Lower-case `/…/` path; the rule covers this container and every container below it. */
  container: string;
  transform: AccessTransform;
  /** Token permissions only (`token:read`, `token:search`, …). */
  permissions: string[];
}

/** One place a permission is granted, for search: tokens in `container` or below, shown with `transform`. */
export interface ContainerGrant {
  container: string;
  transform: AccessTransform;
  priority: number;
}

export const RULE_PROPERTIES = ['description', 'priority', 'container', 'transform', 'permissions'] as const;
export const MAX_RULE_DESCRIPTION_LENGTH = 500;

const byPriority = (rules: readonly AccessRule[]): AccessRule[] => [...rules].sort((a, b) => a.priority - b.priority);

/** Containers are `/…/` paths, so a plain string prefix is a path prefix: `/pci/` covers `/pci/high/`, not `/pcix/`. */
export const containerCovers = (ruleContainer: string, tokenContainer: string): boolean =>
  tokenContainer.startsWith(ruleContainer);

/**
 * The rule that decides how a token is seen for `permission`: the first, in ascending priority, whose container covers
 * one of the token's containers and that grants the permission. A covering rule without the permission does not
 * block a later one that has it. Null: the token is invisible to the operation (404 on reads, left out of searches).
 */
export const selectRule = (
  rules: readonly AccessRule[],
  tokenContainers: readonly string[],
  permission: string,
): AccessRule | null =>
  byPriority(rules).find(
    (rule) =>
      rule.permissions.includes(permission) &&
      tokenContainers.some((container) => containerCovers(rule.container, container)),
  ) ?? null;

/** An application without rules behaves as one `mask` rule on `/` holding its token permissions. */
export const effectiveRules = (application: {
  permissions: readonly string[];
  rules?: readonly AccessRule[] | null;
}): AccessRule[] => {
  if (application.rules && application.rules.length > 0) return byPriority(application.rules);
  const permissions = application.permissions.filter(isTokenPermission);
  return permissions.length === 0 ? [] : [{ priority: 1, container: '/', transform: 'mask', permissions }];
};

/**
 * The response's `data` under `rule`; undefined means the property is absent. `reveal` gives the plaintext (parsed
 * back to its JSON value for `token` tokens), `mask` the evaluated mask (absent without one), `redact` nothing.
 * `opened` holds what the caller decrypted for the transform: the data for reveal, the evaluated mask for mask.
 */
export const applyTransform = (
  rule: Pick<AccessRule, 'transform'>,
  token: { type: TokenType },
  opened: { plaintext?: string; mask?: string | null },
): JsonValue | undefined => {
  switch (rule.transform) {
    case 'reveal':
      if (opened.plaintext === undefined) throw new Error('The reveal transform needs the decrypted data.');
      return parseTokenData(token.type, opened.plaintext);
    case 'mask':
      return opened.mask ?? undefined;
    case 'redact':
      return undefined;
  }
};

/**
 * Where `permission` is granted, in the order rules are tried; a search shows a token when one of its containers is
 * covered by one of these, and selectRule on the same rules gives its transform. Grants lying inside an earlier
 * grant's container are left out: the earlier one always decides for them.
 */
export const allowedContainers = (rules: readonly AccessRule[], permission: string): ContainerGrant[] => {
  const grants: ContainerGrant[] = [];
  for (const rule of byPriority(rules)) {
    if (!rule.permissions.includes(permission)) continue;
    if (grants.some((earlier) => containerCovers(earlier.container, rule.container))) continue;
    grants.push({ container: rule.container, transform: rule.transform, priority: rule.priority });
  }
  return grants;
};

/**
 * Checks the access rules of an application create/update body. Reports into `errors` when given (so the caller can
 * add its own findings), else throws a validation error. The rules come back in input order, aligned with their
 * indexes for the caller's own per-rule checks, and are meaningful only when nothing was reported.
 */
export const validateAccessRules = (rules: unknown, path = 'rules', errors?: FieldErrorCollector): AccessRule[] => {
  const collector = errors ?? new FieldErrorCollector();
  if (!Array.isArray(rules)) {
    collector.add(path, `${path} must be an array of access rules, not ${jsonTypeOf(rules)}.`);
    if (!errors) collector.throwIfAny();
    return [];
  }
  const priorities = new Map<number, number>();
  const read = rules.map((rule, i) => {
    const rulePath = `${path}[${i}]`;
    const valid = readRule(rule, rulePath, collector);
    const earlier = priorities.get(valid.priority);
    if (earlier !== undefined) {
      collector.add(`${rulePath}.priority`, `priority ${valid.priority} is already used by ${path}[${earlier}].`);
    } else if (valid.priority >= 1) priorities.set(valid.priority, i);
    return valid;
  });
  if (!errors) collector.throwIfAny();
  return read;
};

const readRule = (rule: unknown, path: string, errors: FieldErrorCollector): AccessRule => {
  if (!isJsonObject(rule)) {
    errors.add(path, `${path} must be an object, not ${jsonTypeOf(rule)}.`);
    return { priority: 0, container: '/', transform: 'redact', permissions: [] };
  }
  rejectUnknownProperties(rule, RULE_PROPERTIES, path, errors);
  const { description, priority, container, transform, permissions } = rule;
  const read: AccessRule = {
    priority: Number.isSafeInteger(priority) && (priority as number) >= 1 ? (priority as number) : 0,
    container: typeof container === 'string' ? container.toLowerCase() : '/',
    transform: (ACCESS_TRANSFORMS as readonly unknown[]).includes(transform) ? (transform as AccessTransform) : 'redact',
    // Kept as given (not de-duplicated) so `permissions[j]` paths of later checks point at the right item.
    permissions: Array.isArray(permissions) ? permissions.map(String) : [],
  };
  if (typeof description === 'string') read.description = description;
  if (description !== undefined && description !== null && typeof description !== 'string') {
    errors.add(`${path}.description`, `${path}.description must be a string, not ${jsonTypeOf(description)}.`);
  } else if (typeof description === 'string' && description.length > MAX_RULE_DESCRIPTION_LENGTH) {
    errors.add(`${path}.description`, `${path}.description must be at most ${MAX_RULE_DESCRIPTION_LENGTH} characters long.`);
  }
  if (read.priority === 0) errors.add(`${path}.priority`, `${path}.priority must be an integer of at least 1.`);
  if (typeof container !== 'string' || !CONTAINER_PATTERN.test(read.container)) {
    errors.add(`${path}.container`, `${path}.container must be a path like /pci/high/: starting and ending with /.`);
  }
  if (read.transform !== transform) {
    errors.add(`${path}.transform`, `${path}.transform must be one of ${ACCESS_TRANSFORMS.join(', ')}.`);
  }
  readRulePermissions(permissions, `${path}.permissions`, errors);
  return read;
};

const readRulePermissions = (permissions: unknown, path: string, errors: FieldErrorCollector): void => {
  if (!Array.isArray(permissions) || permissions.length === 0) {
    errors.add(path, `${path} must be a non-empty array of token permissions.`);
    return;
  }
  permissions.forEach((permission, j) => {
    if (typeof permission !== 'string' || !isTokenPermission(permission)) {
      // The value is not repeated back: error bodies quote names we define, never what a caller sent.
      const shown = typeof permission === 'string' ? 'another string' : jsonTypeOf(permission);
      errors.add(`${path}[${j}]`, `${path}[${j}] must be a token permission (token:read, token:search, …), not ${shown}.`);
    }
  });
};
