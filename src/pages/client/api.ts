/** The page's one way to call the API: same-origin, with the session cookie, JSON in and out. */
export async function api<T>(path: string, init: RequestInit = {}): Promise<{ status: number; body: T; headers: Headers }> {
  const response = await fetch(path, { credentials: 'same-origin', ...init, headers: { Accept: 'application/json', ...(init.headers ?? {}) } });
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: response.status, body: body as T, headers: response.headers };
}
