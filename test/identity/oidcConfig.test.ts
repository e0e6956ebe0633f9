/**
 * OIDC-1: the single sign-on variables (Homarr's names), read by loadConfig; pure, no server. OIDC-14: the claim's
 * group names and the membership plan.
 */
import { ConfigError, loadConfig } from '../../src/config/config';
import { claimGroups, planGroupSync, usernameFor } from '../../src/identity/oidc/rules';

const oidc = { AUTH_PROVIDERS: 'oidc', AUTH_OIDC_ISSUER: 'https://auth.example.com/application/o/tessera/', AUTH_OIDC_CLIENT_ID: 'tessera', BASE_URL: 'https://tessera.example.com/' };

describe('OIDC-1: configuration', () => {
  it('OIDC-1: passwords only by default; Homarr\'s defaults with oidc; the issuer kept as written, the base URL without its slash', () => {
    expect(loadConfig({})).toMatchObject({ authProviders: { credentials: true, oidc: false }, oidc: null });
    expect(loadConfig(oidc)).toMatchObject({
      authProviders: { credentials: false, oidc: true },
      oidc: {
        issuer: 'https://auth.example.com/application/o/tessera/',
        clientSecret: null,
        clientName: 'OIDC',
        scope: 'openid email profile groups',
        groupsAttribute: 'groups',
        autoLogin: false,
        forceUserinfo: false,
        adminGroup: null,
        linkExisting: 'off',
        redirectUri: 'https://tessera.example.com/api/auth/callback/oidc',
      },
    });
    expect(loadConfig({ ...oidc, AUTH_PROVIDERS: 'credentials, oidc', AUTH_OIDC_SCOPE_OVERWRITE: 'email groups' })).toMatchObject({
      authProviders: { credentials: true, oidc: true },
      oidc: { scope: 'openid email groups' },
    });
  });

  it('OIDC-1: a missing or wrong value stops the start with a message naming it', () => {
    expect(() => loadConfig({ AUTH_PROVIDERS: 'oidc' })).toThrow(new ConfigError('AUTH_PROVIDERS names oidc, so AUTH_OIDC_ISSUER, AUTH_OIDC_CLIENT_ID, BASE_URL must be set'));
    expect(() => loadConfig({ AUTH_PROVIDERS: 'ldap' })).toThrow(new ConfigError('AUTH_PROVIDERS must be credentials, oidc, or both separated by a comma, got "ldap"'));
    expect(() => loadConfig({ ...oidc, AUTH_OIDC_LINK_EXISTING: 'always' })).toThrow(new ConfigError('AUTH_OIDC_LINK_EXISTING must be one of off, email, username, got "always"'));
    expect(() => loadConfig({ ...oidc, BASE_URL: 'tessera.example.com' })).toThrow(ConfigError);
  });
});

describe('OIDC-14: groups from the claim', () => {
  it('OIDC-14: names that are Tessera group names, once each; others skipped', () => {
    expect(claimGroups({ groups: ['family', ' Media ', 'FAMILY', 'a/b', 7] }, 'groups')).toEqual({ groups: ['family', 'Media'], skipped: ['a/b', '7'] });
    expect(claimGroups({ roles: 'admins' }, 'roles')).toEqual({ groups: ['admins'], skipped: [] });
    expect(claimGroups({}, 'groups')).toEqual({ groups: [], skipped: [] });
  });

  it('OIDC-14: joins what the claim adds, ends only provider memberships the claim dropped', () => {
    const current = [
      { groupId: 'g1', name: 'family', viaProvider: true },
      { groupId: 'g2', name: 'local', viaProvider: false },
      { groupId: 'g3', name: 'media', viaProvider: true },
    ];
    expect(planGroupSync(current, ['Family', 'games'])).toEqual({ join: ['games'], leave: ['g3'] });
    expect(planGroupSync(current, [])).toEqual({ join: [], leave: ['g1', 'g3'] });
  });

  it('OIDC-11: the username of a new user', () => {
    expect(usernameFor({ sub: 's1', preferred_username: 'ann', email: 'ann@example.com' })).toBe('ann');
    expect(usernameFor({ sub: 's1', preferred_username: 'Ann Lee', email: 'ann@example.com' })).toBe('ann@example.com');
    expect(usernameFor({ sub: 'abc-123' })).toBe('abc-123');
    expect(usernameFor({ sub: 'has space' })).toBeNull();
  });
});
