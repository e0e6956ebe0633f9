/** Global (group) permissions and what each implies (ACCESS-5). */
export const globalPermissions = [
  'admin',
  'board-create',
  'board-view-all',
  'board-modify-all',
  'board-full-all',
  'app-create',
  'app-use-all',
  'app-modify-all',
  'app-full-all',
  'integration-create',
  'integration-use-all',
  'integration-interact-all',
  'integration-full-all',
  'search-engine-create',
  'search-engine-modify-all',
  'search-engine-full-all',
  'media-upload',
  'media-view-all',
  'media-full-all',
  'other-view-logs',
] as const;

export type GlobalPermission = (typeof globalPermissions)[number];

const directlyImplies: Partial<Record<GlobalPermission, readonly GlobalPermission[]>> = {
  'board-modify-all': ['board-view-all'],
  'board-full-all': ['board-modify-all', 'board-create'],
  'app-modify-all': ['app-create'],
  'app-full-all': ['app-modify-all', 'app-use-all'],
  'integration-interact-all': ['integration-use-all'],
  'integration-full-all': ['integration-interact-all', 'integration-create'],
  'search-engine-modify-all': ['search-engine-create'],
  'search-engine-full-all': ['search-engine-modify-all'],
  'media-full-all': ['media-upload', 'media-view-all'],
  admin: ['board-full-all', 'app-full-all', 'integration-full-all', 'search-engine-full-all', 'media-full-all', 'other-view-logs'],
};

export function isGlobalPermission(value: string): value is GlobalPermission {
  return (globalPermissions as readonly string[]).includes(value);
}

/** The permissions given plus everything they imply, transitively. Unknown names are dropped. */
export function expandPermissions(granted: Iterable<string>): Set<GlobalPermission> {
  const result = new Set<GlobalPermission>();
  const pending = [...granted].filter(isGlobalPermission);
  while (pending.length > 0) {
    const permission = pending.pop()!;
    if (result.has(permission)) continue;
    result.add(permission);
    pending.push(...(directlyImplies[permission] ?? []));
  }
  return result;
}

/**
 * The effective permissions of an API key: the owner's live set, narrowed to the key's scopes
 * (expanded with what they imply) when the key has scopes.
 */
export function narrowToScopes(ownerPermissions: ReadonlySet<GlobalPermission>, scopes: readonly string[] | null): Set<GlobalPermission> {
  if (scopes === null) return new Set(ownerPermissions);
  const allowed = expandPermissions(scopes);
  return new Set([...ownerPermissions].filter((permission) => allowed.has(permission)));
}

/** Sorted for stable output. */
export function sortedPermissions(permissions: Iterable<GlobalPermission>): GlobalPermission[] {
  return [...permissions].sort((a, b) => globalPermissions.indexOf(a) - globalPermissions.indexOf(b));
}
