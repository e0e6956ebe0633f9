/** IDEM-1..3, CORS-2..4: the pure rules (src/idempotency/rules.ts, src/http/cors.ts), without HTTP or a database. */
import { PreSerializedJson, ResponseTakeover, TextBody } from '../../src/core/operation';
import { answerHeaders, corsPolicyOf, isListedOrigin, preflightHeaders } from '../../src/http/cors';
import { canonicalJson, decide, fingerprintOf, isKept, keyOf, replayOf, toStored } from '../../src/idempotency/rules';

const payload = { operationId: 'createBoard', method: 'POST', path: '/api/boards', query: {}, ifMatch: undefined, body: { name: 'a', columnCount: 12 } };

describe('idempotency rules', () => {
  it('IDEM-1: a quoted key and a bare one are the same key', () => {
    expect(keyOf('"abc"')).toBe('abc');
    expect(keyOf('abc')).toBe('abc');
    expect(keyOf(['x', 'y'])).toBe('x');
    expect(keyOf(undefined)).toBeUndefined();
  });

  it('IDEM-3: the fingerprint ignores key order and sees every part of the payload', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 1, c: 2 }], u: undefined })).toBe('{"a":[{"c":2,"d":1}],"b":1}');
    const base = fingerprintOf(payload);
    expect(fingerprintOf({ ...payload, body: { columnCount: 12, name: 'a' } })).toBe(base);
    for (const change of [{ body: { name: 'b', columnCount: 12 } }, { path: '/api/boards/x' }, { query: { dryRun: true } }, { ifMatch: '"e1"' }, { operationId: 'createGroup' }, { method: 'PUT' }]) {
      expect(fingerprintOf({ ...payload, ...change })).not.toBe(base);
    }
  });

  it('IDEM-2..4: another payload is reused whatever the state; the same one replays or is in flight', () => {
    const answer = { status: 201, headers: { Location: '/api/boards/x' }, body: '{"boardId":"x"}', contentType: null };
    expect(decide({ fingerprint: 'a', answer }, 'b')).toEqual({ kind: 'reused' });
    expect(decide({ fingerprint: 'a', answer: null }, 'b')).toEqual({ kind: 'reused' });
    expect(decide({ fingerprint: 'a', answer: null }, 'a')).toEqual({ kind: 'inFlight' });
    expect(decide({ fingerprint: 'a', answer }, 'a')).toEqual({ kind: 'replay', answer });
  });

  it('IDEM-1, IDEM-2: successes are kept (JSON, pre-serialized or text bodies) and replayed marked; errors and streams are not kept', () => {
    expect(isKept({ status: 201, body: {} })).toBe(true);
    expect(isKept({ status: 409, body: {} })).toBe(false);
    expect(isKept({ status: 200, body: new ResponseTakeover(async () => undefined) })).toBe(false);
    const plain = toStored({ status: 201, body: { boardId: 'x' }, headers: { Location: '/api/boards/x' } });
    expect(plain).toEqual({ status: 201, headers: { Location: '/api/boards/x' }, body: '{"boardId":"x"}', contentType: null });
    expect(toStored({ status: 200, body: new PreSerializedJson([Buffer.from('{"a":'), Buffer.from('1}')]) }).body).toBe('{"a":1}');
    expect(toStored({ status: 200, body: new TextBody('a: 1\n', 'application/yaml') })).toMatchObject({ body: 'a: 1\n', contentType: 'application/yaml' });
    const replay = replayOf(plain);
    expect(replay.headers).toEqual({ Location: '/api/boards/x', 'Idempotent-Replayed': 'true' });
    expect((replay.body as PreSerializedJson).bytes().toString()).toBe('{"boardId":"x"}');
    expect(replayOf({ status: 204, headers: {}, body: null, contentType: null })).toEqual({ status: 204, headers: { 'Idempotent-Replayed': 'true' } });
  });
});

describe('CORS rules', () => {
  const policy = corsPolicyOf(['https://app.example']);

  it('CORS-1, CORS-2: nothing without a list; Vary only for an unlisted origin; the origin itself and credentials for a listed one', () => {
    expect(corsPolicyOf([])).toBeNull();
    expect(answerHeaders(null, 'https://app.example')).toEqual({});
    expect(answerHeaders(policy, 'https://evil.example')).toEqual({ Vary: 'Origin' });
    expect(answerHeaders(policy, undefined)).toEqual({ Vary: 'Origin' });
    expect(answerHeaders(policy, 'https://app.example')).toMatchObject({
      Vary: 'Origin',
      'Access-Control-Allow-Origin': 'https://app.example',
      'Access-Control-Allow-Credentials': 'true',
    });
    expect(isListedOrigin(policy, 'null')).toBe(false);
    expect(isListedOrigin(policy, 'https://APP.example')).toBe(false);
  });

  it('CORS-3: a preflight of a listed origin names the path\'s methods; anything else gets nothing', () => {
    expect(preflightHeaders(policy, 'https://app.example', 'POST', ['GET', 'HEAD', 'POST'])).toMatchObject({
      'Access-Control-Allow-Methods': 'GET, HEAD, POST',
      'Access-Control-Max-Age': '600',
    });
    expect(preflightHeaders(policy, 'https://app.example', undefined, ['GET'])).toEqual({});
    expect(preflightHeaders(policy, 'https://evil.example', 'POST', ['GET'])).toEqual({});
    expect(preflightHeaders(null, 'https://app.example', 'POST', ['GET'])).toEqual({});
  });
});
