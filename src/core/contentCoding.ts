/**
 * Compressed forms of response bodies (HTTP-7): brotli and gzip through node:zlib, made on libuv's thread pool so a
 * large body does not hold up other requests. Brotli at quality 5 and gzip at level 6: a 1 MB board document takes
 * about 20 ms and 7 ms of one core and shrinks to a few percent (higher brotli qualities cost ten to a hundred times
 * more for a few percent less).
 */
import { promisify } from 'node:util';
import zlib from 'node:zlib';

export type ContentCoding = 'br' | 'gzip';

const brotliCompress = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

export function compress(bytes: Buffer | readonly Buffer[], coding: ContentCoding): Promise<Buffer> {
  const input = Buffer.isBuffer(bytes) ? bytes : Buffer.concat(bytes as Buffer[]);
  if (coding === 'gzip') return gzip(input, { level: 6 });
  return brotliCompress(input, {
    params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: input.length },
  });
}

/**
 * The compressed forms of one body that is sent many times (a cached board document, the reference page): each
 * coding is compressed once, on first use, and kept as long as this object is.
 */
export class EncodedForms {
  private readonly forms = new Map<ContentCoding, Promise<Buffer>>();
  /** Bytes held by the forms made so far. */
  bytes = 0;
  /** Called with the size of each form once it is made (a cache counts it against its budget). */
  onMade: ((bytes: number) => void) | null = null;

  constructor(private readonly source: () => Buffer | readonly Buffer[]) {}

  get(coding: ContentCoding): Promise<Buffer> {
    let form = this.forms.get(coding);
    if (!form) {
      form = compress(this.source(), coding).then((bytes) => {
        this.bytes += bytes.length;
        this.onMade?.(bytes.length);
        return bytes;
      });
      form.catch(() => this.forms.delete(coding));
      this.forms.set(coding, form);
    }
    return form;
  }
}
