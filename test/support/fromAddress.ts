import http from 'node:http';

/**
 * An HTTP request whose socket is bound to `localAddress` (a second loopback address such as 127.0.0.2), so the
 * server sees a client address other than 127.0.0.1 (LB-2). Answers the status, the body's text and the headers.
 */
export function requestFrom(
  localAddress: string,
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<{ status: number; text: string; headers: http.IncomingHttpHeaders }> {
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: options.method ?? 'GET',
        localAddress,
        agent: false,
        headers: { ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...options.headers },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode!, text, headers: response.headers }));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}
