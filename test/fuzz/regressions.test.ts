/**
 * Minimal counterexamples the fuzzer found, kept as plain tests so they stay fixed.
 */
import { useTestServer } from '../support/server';

const server = useTestServer();

it('POST /api/auth/login {"username":"\\u0000","password":"a"} is a 400, not a 500 (NUL reached PostgreSQL)', async () => {
  const { response, error } = await server.clientFor(null).POST('/api/auth/login', { body: { username: '\u0000', password: 'a' } });
  expect(response.status).toBe(400);
  expect(error).toMatchObject({ code: 'BAD_REQUEST', message: 'Invalid text at /username: lone UTF-16 surrogates and NUL characters cannot be stored' });
  // An ordinary wrong login still answers 401.
  const wrong = await server.clientFor(null).POST('/api/auth/login', { body: { username: 'nobody', password: 'a' } });
  expect(wrong.response.status).toBe(401);
});

it('PATCH /api/boards/a%00/name with an API key is a 400, not a 500 (the unvalidated board id reached the key query)', async () => {
  for (const [method, path, body] of [
    ['PATCH', '/api/boards/a%00/name', { name: 'x' }],
    ['GET', '/api/boards/a%00', undefined],
    ['POST', '/api/boards/a%00/sections', { id: 's', kind: 'empty', xOffset: 0, yOffset: 0 }],
  ] as const) {
    const result = await server.call(method, path, { body });
    expect({ path, status: result.status, code: result.body.code, message: result.body.message }).toEqual({
      path,
      status: 400,
      code: 'BAD_REQUEST',
      message: 'Invalid text in path parameter id: lone UTF-16 surrogates and NUL characters cannot be stored',
    });
  }
});
