import { pointerStep } from './requestInput';

/**
 * Text that may hold a number JSON.parse would change: 16 or more digits in a row (a dot allowed among them), or
 * an exponent of 3 or more digits. Up to 15 significant digits and a 2-digit exponent always survive a double.
 */
const mayBeInexact = /(?:\d\.?){16}|[eE][+-]?\d{3}/;

export const mayHoldInexactNumber = (text: string) => mayBeInexact.test(text);

/** A decimal as `<digits>e<exponent>` without leading or trailing zeros (`0` for zero), or null if not one. */
function normalDecimal(text: string): string | null {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!match) return null;
  const [, sign, whole, fraction = '', exponent = '0'] = match;
  const digits = (whole + fraction).replace(/^0+/, '');
  if (digits === '') return '0';
  const significant = digits.replace(/0+$/, '');
  return `${sign}${significant}e${Number(exponent) - fraction.length + (digits.length - significant.length)}`;
}

/**
 * Whether the JSON number token has exactly the value of the double it parses to, as that double is written back
 * (`String(Number(token))`): `1.0`, `1e2`, `-0` do; `1e400`, `1e-400` (0) and `12345678901234567890` do not.
 */
export function isExactNumber(token: string): boolean {
  const value = Number(token);
  return Number.isFinite(value) && normalDecimal(token) === normalDecimal(String(value));
}

const numberToken = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * The JSON pointer of the first number in the JSON text that would not be stored as sent, or null. The text must
 * be valid JSON (it is read after JSON.parse accepted it): a small tokenizer tracks the path to each number.
 */
export function inexactNumberPath(text: string): string | null {
  // One frame per open container: an object's current key (as its JSON source) or an array's current index.
  const frames: { key: string | null; index: number }[] = [];
  const pointer = () => frames.map((frame) => pointerStep(frame.key === null ? frame.index : (JSON.parse(frame.key) as string))).join('');
  let expectKey = false;
  for (let i = 0; i < text.length; ) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      let end = i + 1;
      while (text.charCodeAt(end) !== 0x22) end += text.charCodeAt(end) === 0x5c /* \ */ ? 2 : 1;
      if (expectKey) frames[frames.length - 1].key = text.slice(i, end + 1);
      expectKey = false;
      i = end + 1;
    } else if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
      numberToken.lastIndex = i;
      const token = numberToken.exec(text)![0];
      if (!isExactNumber(token)) return pointer();
      i += token.length;
    } else {
      if (c === 0x7b /* { */) {
        frames.push({ key: null, index: 0 });
        expectKey = true;
      } else if (c === 0x5b /* [ */) frames.push({ key: null, index: 0 });
      else if (c === 0x7d /* } */ || c === 0x5d /* ] */) frames.pop();
      else if (c === 0x2c /* , */) {
        const top = frames[frames.length - 1];
        if (top.key === null) top.index++;
        else expectKey = true;
      }
      i++;
    }
  }
  return null;
}
