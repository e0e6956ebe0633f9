/**
 * SEC-8: the board page's Content-Security-Policy is built only from hosts that pass a strict grammar, and app
 * addresses whose host could inject into it are refused at write time (APP-6). No browser: the policy is a header.
 */
import { pageSources, widenPolicy } from '../../src/pages/csp';
import { appUrlMessages, appUrlProblem, policyOrigin } from '../../src/apps/urls';
import { expectError } from '../support/expect';
import { unique } from '../support/unique';
import { useTestServer } from '../support/server';
import { expectOk, item, position } from '../boards-document/helpers';

const server = useTestServer();

const injectedIcon = 'http://a.example;sandbox/i.png';
const injectedFrame = 'https://b.example,script-src/x';

/** A directive name to its sources; throws when a directive appears twice (a policy that is not well-formed). */
function directives(policy: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const directive of policy.split(';').map((d) => d.trim()).filter(Boolean)) {
    const [name, ...sources] = directive.split(/\s+/);
    if (map.has(name)) throw new Error(`directive ${name} twice in ${policy}`);
    map.set(name, sources.join(' '));
  }
  return map;
}

describe('SEC-8: no Content-Security-Policy injection through URL hosts', () => {
  it.each([
    ['iconUrl', injectedIcon],
    ['href', injectedFrame],
    ['pingUrl', 'http://c.example;report-uri/x'],
    ['iconUrl', 'http://a%3bsandbox.example/i.png'],
    ['iconUrl', 'http://*/i.png'],
  ])('SEC-8: writing an app whose %s host is %s is a 400 naming the field, on POST and PATCH, and writes nothing', async (field, value) => {
    const before = await server.db('apps').count({ count: '*' }).first();
    const created = await server.call('POST', '/api/apps', { body: { name: unique('Inject'), iconUrl: 'https://icons.example.com/i.png', [field]: value } });
    expectError(created, 400, 'BAD_REQUEST', 'Input validation failed');
    expect(created.body.data.issues).toContainEqual(expect.objectContaining({ instancePath: `/requestBody/${field}`, message: appUrlMessages[field as 'href'] }));
    expect(await server.db('apps').count({ count: '*' }).first()).toEqual(before);

    const app = expectOk(await server.call('POST', '/api/apps', { body: { name: unique('Plain'), iconUrl: 'https://icons.example.com/i.png' } }), 201);
    const patched = await server.call('PATCH', `/api/apps/${app.appId}`, { body: { [field]: value } });
    expectError(patched, 400, 'BAD_REQUEST', 'Input validation failed');
    expect((await server.call('GET', `/api/apps/${app.appId}`)).body).toMatchObject({ iconUrl: 'https://icons.example.com/i.png', href: null, pingUrl: null });
  });

  it('SEC-8: the pure rules: the write rule refuses injecting hosts, takes names, IP addresses and ports; the policy takes only strict hosts', () => {
    // A fullwidth semicolon passes the pattern (not ASCII) but the URL parser maps it to `;`: refused after parsing.
    for (const value of [injectedIcon, injectedFrame, 'http://a%2Cb.example/', 'http://a!b.example/', 'https://a.example:80;x/', 'http://a\uFF1Bsandbox.example/']) {
      expect(appUrlProblem('iconUrl', value)).toBe(appUrlMessages.iconUrl);
    }
    for (const value of ['http://my_service:8080/health', 'http://[::1]:8096/', 'https://bücher.example/x', 'http://user:pw@host.example/', 'HTTP://EXAMPLE.COM']) {
      expect(appUrlProblem('pingUrl', value)).toBeNull();
    }
    expect(policyOrigin(injectedIcon, ['http:'])).toBeNull();
    expect(policyOrigin(injectedFrame, ['https:'])).toBeNull();
    expect(policyOrigin('http://*/x', ['http:'])).toBeNull();
    expect(policyOrigin('http://my_service/x', ['http:'])).toBeNull(); // not a CSP host-source
    expect(policyOrigin('https://bücher.example/x', ['https:'])).toBe('https://xn--bcher-kva.example');
    expect(policyOrigin('http://[::1]:8080/x', ['http:'])).toBe('http://[::1]:8080');
    const sources = pageSources([{ iconUrl: injectedIcon }, { iconUrl: 'http://icons.example.com/a.png' }], [{ embedUrl: injectedFrame }, { embedUrl: 'https://embed.example.com/p' }]);
    expect(sources).toEqual({ imageOrigins: ['http://icons.example.com'], frameOrigins: ['https://embed.example.com'] });
    expect(widenPolicy("default-src 'none'; img-src 'self'", sources)).toBe("default-src 'none'; img-src 'self' data: https: http://icons.example.com; frame-src https://embed.example.com");
  });

  it('SEC-8: a board holding such addresses (rows written before the rule) still gets a well-formed policy without the injected directive', async () => {
    const app = async (iconUrl: string) => expectOk(await server.call('POST', '/api/apps', { body: { name: unique('Icon'), iconUrl } }), 201).appId as string;
    const injected = await app('http://icons.example.com/placeholder.png');
    const plain = await app('http://plain.example.com/i.png');
    const name = unique('csp-inject-');
    const { boardId } = expectOk(await server.call('POST', '/api/boards', { body: { name, columnCount: 12, isPublic: true } }), 201);
    const doc = expectOk(await server.call('GET', `/api/boards/${boardId}`));
    const at = (y: number) => [position(doc.layouts[0].id, doc.sections[0].id, 0, y)];
    expectOk(
      await server.call('PUT', `/api/boards/${boardId}`, {
        body: {
          sections: doc.sections,
          items: [
            item(unique('a'), at(0), { kind: 'app', options: { appId: injected } }),
            item(unique('a'), at(1), { kind: 'app', options: { appId: plain } }),
            // Widget options are stored as sent (PUT-9): only the policy can keep this one out.
            item(unique('f'), at(2), { kind: 'iframe', options: { embedUrl: injectedFrame } }),
            item(unique('f'), at(3), { kind: 'iframe', options: { embedUrl: 'https://embed.example.com/panel' } }),
          ],
        },
      }),
    );
    // An app row as an older instance (or a hand edit) could have written it, past today's write rule.
    await server.db('apps').where({ id: injected }).update({ iconUrl: injectedIcon });

    for (const key of [null, server.adminKey]) {
      const response = await fetch(`${server.directUrl}/boards/${name}`, { headers: key ? { ApiKey: key } : {} });
      expect(response.status).toBe(200);
      const policy = response.headers.get('content-security-policy')!;
      // One policy (no `,` starting a second one), no directive named twice, no sandbox, no script source widened.
      expect(policy).not.toContain(',');
      expect(policy).not.toMatch(/sandbox/);
      const map = directives(policy);
      expect(map.has('sandbox')).toBe(false);
      expect(map.get('script-src')).toBe("'self'");
      expect(map.get('img-src')).toBe("'self' data: https: http://plain.example.com");
      expect(map.get('frame-src')).toBe('https://embed.example.com');
    }
  });
});
