import fc from 'fast-check';
import { inexactNumberPath, isExactNumber, mayHoldInexactNumber } from '../../src/http/exactNumbers';

/** Numbers that JSON.parse would change, found in the source text, without HTTP. */
describe('isExactNumber', () => {
  it.each(['0', '-0', '1.0', '1e2', '1E+2', '0.10', '100', '-1.5', '0.1', '1e-7', '5e-324', '1.7976931348623157e308', '9007199254740992', '0e999999', '0.30000000000000004'])(
    'keeps %s',
    (token) => expect(isExactNumber(token)).toBe(true),
  );

  it.each(['1e400', '-1e400', '12345678901234567890', '0.1000000000000000000001', '1e-400', '9007199254740993', '1.7976931348623159e308', '2e-324'])(
    'refuses %s',
    (token) => expect(isExactNumber(token)).toBe(false),
  );

  it('keeps what JSON.stringify writes of every finite double', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (value) => {
        const text = JSON.stringify(value);
        expect(isExactNumber(text)).toBe(true);
        expect(inexactNumberPath(`{"a":[${text}]}`)).toBeNull();
      }),
      { numRuns: 5000 },
    );
  });
});

describe('inexactNumberPath', () => {
  it.each([
    ['{"a":1,"b":[1.5,2,{"c":1e400}]}', '/b/2/c'],
    ['[0, 1, -1e400]', '/2'],
    ['{"items":[{"options":{"x/y":12345678901234567890}}]}', '/items/0/options/x~1y'],
    ['{"k\\"e,y:":{"n":[1e-400]}}', '/k"e,y:/n/0'],
    ['{"s":"12345678901234567890 1e400","t":[],"u":{},"v":[true,null,false,"]}"],"w":1e999}', '/w'],
    ['1e400', ''],
    ['{"s":"1e400","n":[1e300, 0.1, 12345678901234567]}', '/n/2'],
    ['{"ok":[1e300,0.30000000000000004,"12345678901234567890"]}', null],
  ])('%s', (text, path) => {
    expect(inexactNumberPath(text)).toBe(path);
  });

  it('is only needed for long digit runs and long exponents', () => {
    expect(mayHoldInexactNumber('{"a":123456789012345,"b":1.23456789012345e99}')).toBe(false);
    expect(mayHoldInexactNumber('{"a":1234567890.123456}')).toBe(true);
    expect(mayHoldInexactNumber('{"a":1e400}')).toBe(true);
  });
});
