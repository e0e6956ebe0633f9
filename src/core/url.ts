/**
 * Whether `value` parses as a URL. Not `URL.canParse`: on Node 20 its optimised fast path answered false for valid
 * URLs (`http://my_service:8080/health`) in a worker that had called it many times (SEC-8's test failed only late in
 * a long jest run), while `new URL` parsed them.
 */
export function canParseUrl(value: string): boolean {
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}
